import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from './text';

/**
 * Files Claude Code 2.1 keeps beside a session: the full output of a tool whose result was
 * too large for the context (`<session>/tool-results/<id>.txt`, the result itself holding
 * only a preview), and the description of a subagent (`<agent>.meta.json` beside its
 * `<session>/subagents/<agent>.jsonl`).
 */

/** A spilled output is read up to this size into its tools.jsonl record; the rest is cut. */
export const SPILLED_MAX_BYTES = 4 * 1024 * 1024;

const PERSISTED = /^\s*<persisted-output>[^\n]*\n[^\n]*Full output saved to: ([^\n]+?)\s*\n/;

/**
 * The full output a tool result's preview points at, read from the session's own
 * tool-results folder (never from elsewhere, whatever path the preview names), or
 * undefined when the result is not such a preview or the file is not there.
 */
export function spilledOutput(result: string, sessionFile: string | undefined): string | undefined {
  if (sessionFile === undefined || !result.includes('<persisted-output>')) return undefined;
  const named = PERSISTED.exec(result)?.[1];
  if (named === undefined) return undefined;
  const name = path.win32.basename(named); // recorded on Windows or POSIX: both separators
  if (!/^[\w.-]+\.txt$/.test(name)) return undefined;
  const dir = path.dirname(sessionFile);
  const candidates = [
    // <project>/<session>.jsonl → <project>/<session>/tool-results/
    path.join(dir, path.basename(sessionFile, '.jsonl'), 'tool-results', name),
    // <project>/<session>/subagents/<agent>.jsonl → <project>/<session>/tool-results/
    path.join(path.dirname(dir), 'tool-results', name),
  ];
  for (const file of candidates) {
    const text = readCapped(file);
    if (text !== undefined) return text;
  }
  return undefined;
}

function readCapped(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, SPILLED_MAX_BYTES));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    return size > read ? `${text}\n[cut: ${size - read} more bytes in ${file}]` : text;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

export interface SubagentMeta {
  agentType?: string;
  description?: string;
}

/** `<agent>.meta.json` beside a subagent's own file, when there is one. */
export function subagentMeta(sessionFile: string | undefined): SubagentMeta | undefined {
  if (sessionFile === undefined || !sessionFile.endsWith('.jsonl')) return undefined;
  if (path.basename(path.dirname(sessionFile)) !== 'subagents') return undefined;
  let value: unknown;
  try {
    // A few hundred bytes that Claude Code writes once: read whole.
    value = JSON.parse(fs.readFileSync(sessionFile.replace(/\.jsonl$/, '.meta.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  const agentType = text(value.agentType);
  const description = text(value.description);
  return {
    ...(agentType !== undefined && { agentType }),
    ...(description !== undefined && { description }),
  };
}
