import fs from 'node:fs';
import path from 'node:path';
import type { TokenUsage } from '../../shared/task-types';
import { asNumber, clip, contentText, isRecord, normalizeTimestamp } from './text';
import { usageWithTotal } from './transcript-writer';

/**
 * What Claude Code puts into the new context after it compacts, besides the summary: the
 * `attachment` entries written between the summary and the next reply — files it read again
 * (`file`), files too large to read again (`compact_file_reference`), the plan
 * (`plan_file_reference`), hook output (`hook_additional_context`, SessionStart:compact)
 * and the like. Each becomes one user message holding the text the model was given (the
 * path and the content verbatim, so the facts they carry count as kept).
 */
export function reattachedText(attachment: unknown): string | undefined {
  if (!isRecord(attachment)) return undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const type = str(attachment.type) ?? 'unknown';
  const name = str(attachment.displayPath) ?? str(attachment.filename) ?? str(attachment.path);
  switch (type) {
    case 'file': {
      const content = isRecord(attachment.content) ? attachment.content : undefined;
      const file = isRecord(content?.file) ? content.file : undefined;
      const text = str(file?.content) ?? contentText(content);
      return `Contents of ${str(file?.filePath) ?? name ?? 'a file'} (re-read after compaction):\n${text}`;
    }
    case 'compact_file_reference':
      return `Note: ${str(attachment.filename) ?? name ?? 'a file'} was read before the conversation was summarized, but its contents are too large to include. Use the Read tool to see it again.`;
    case 'plan_file_reference':
      return `A plan file exists from plan mode at: ${str(attachment.planFilePath) ?? '?'}\n\nPlan contents:\n\n${str(attachment.planContent) ?? ''}`;
    case 'hook_additional_context': {
      const content = Array.isArray(attachment.content)
        ? attachment.content.map((c) => (typeof c === 'string' ? c : contentText(c))).join('\n')
        : (str(attachment.content) ?? contentText(attachment.content));
      return `${str(attachment.hookName) ?? 'Hook'} hook additional context: ${content}`;
    }
    default: {
      const text = str(attachment.content) ?? str(attachment.prompt);
      return text ?? `[${type}] ${clip(JSON.stringify(attachment), 20_000)}`;
    }
  }
}

/** The compaction's own model call, from its `agent-acompact-*` run. */
export interface CompactionRun {
  /** The run's file name (`agent-acompact-<id>.jsonl`). */
  file: string;
  agentId?: string;
  model?: string;
  usage?: TokenUsage;
  /** When the run's summary call answered. */
  at?: string;
}

/** How much of a run's end is read: its last reply is the summary call, at its end. */
const TAIL_BYTES = 1024 * 1024;
/** A run belongs to a boundary written at most this long after the run's reply. */
const MAX_RUN_GAP_MS = 10 * 60 * 1000;

/**
 * Claude Code 2.1 writes each compaction's summary call as a subagent file beside the
 * session (`<session>/subagents/agent-acompact-<id>.jsonl`: a copy of the conversation, then
 * the summary request and its reply). The run of a boundary at `at` is the one whose last
 * reply came closest before it. Reads only the end of each run file.
 */
export function findCompactionRun(
  sessionFile: string,
  at: string | undefined,
): CompactionRun | undefined {
  if (at === undefined) return undefined;
  const when = Date.parse(at);
  if (Number.isNaN(when)) return undefined;
  const dir = path.join(
    path.dirname(sessionFile),
    path.basename(sessionFile, '.jsonl'),
    'subagents',
  );
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter(isCompactionRunFile);
  } catch {
    return undefined;
  }
  let best: { run: CompactionRun; gap: number } | undefined;
  for (const name of names.sort()) {
    const run = lastReply(path.join(dir, name));
    if (run?.at === undefined) continue;
    // The boundary is written after the summary call answered (a little clock slack).
    const gap = when - Date.parse(run.at);
    if (gap < -5_000 || gap > MAX_RUN_GAP_MS) continue;
    if (!best || Math.abs(gap) < Math.abs(best.gap)) best = { run, gap };
  }
  return best?.run;
}

export function isCompactionRunFile(name: string): boolean {
  return /^agent-acompact-[^/]*\.jsonl$/.test(name);
}

export function isSideQuestionFile(name: string): boolean {
  return /^agent-aside_question-[^/]*\.jsonl$/.test(name);
}

function lastReply(file: string): CompactionRun | undefined {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"assistant"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // the first line of the tail may be cut
    }
    if (!isRecord(entry) || entry.type !== 'assistant' || !isRecord(entry.message)) continue;
    const message = entry.message;
    const model = typeof message.model === 'string' ? message.model : undefined;
    const at = normalizeTimestamp(entry.timestamp);
    return {
      file: path.basename(file),
      ...(typeof entry.agentId === 'string' && { agentId: entry.agentId }),
      ...(model !== undefined && model !== '<synthetic>' && { model }),
      ...(isRecord(message.usage) && { usage: anthropicUsage(message.usage) }),
      ...(at !== undefined && { at }),
    };
  }
  return undefined;
}

/** Anthropic usage: input_tokens excludes cache reads and writes, so the total adds all four. */
export function anthropicUsage(u: Record<string, unknown>): TokenUsage {
  return usageWithTotal({
    input_tokens: asNumber(u.input_tokens),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: asNumber(u.cache_creation_input_tokens),
    cache_read_tokens: asNumber(u.cache_read_input_tokens),
  });
}
