/**
 * Cursor's plain-text agent transcripts (`agent-transcripts/<id>.txt`, beside or before the
 * JSON Lines ones): a line `user:` or `assistant:` opens each message; in an assistant's,
 * `[Thinking]`, `[Tool call] <name>` (its arguments as indented `key=value` lines) and
 * `[Tool result]` open blocks whose body is indented, and lines at the left margin are the
 * reply's text. No ids, no times.
 *
 * Each message becomes what the JSON Lines transcript holds for it — a `{role, message:
 * {content}}` entry of Anthropic blocks, the results of the calls before them a user entry
 * of `tool_result` blocks — and goes through the same converter (cursor.ts), so both
 * transcripts give the same messages, calls (a result answers the oldest call still open)
 * and LLM calls. Keys are `L<line>` of the line that opens the entry.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { mergeMeta } from './jsonl-session';
import type { SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { cursorAgentFormat, cursorFormat } from './cursor';

interface Entry {
  lineNo: number;
  value: { role: 'user' | 'assistant'; message: { content: Record<string, unknown>[] } };
}

type Block = { kind: 'text' | 'thinking' | 'call' | 'result'; name?: string; lines: string[] };

const ROLE_LINE = /^(user|assistant):\s*$/;
const MARKER = /^\[(Thinking|Tool call|Tool result)\](?: (.*))?$/;

/** True for a plain-text Cursor transcript: a `.txt` whose first line names a role. */
export function isCursorTextTranscript(head: string, fileName: string): boolean {
  if (!fileName.endsWith('.txt')) return false;
  const first = head.split('\n').find((l) => l.trim() !== '');
  return first !== undefined && ROLE_LINE.test(first.trim());
}

/** The transcript's entries, as the JSON Lines transcript would hold them. */
async function* entries(file: string): AsyncGenerator<Entry> {
  const lines = readline.createInterface({
    input: fs.createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let role: 'user' | 'assistant' | undefined;
  let start = 0;
  let blocks: (Block & { lineNo: number })[] = [];
  let lineNo = 0;
  const flush = function* (): Generator<Entry> {
    if (role === 'user') {
      const text = blocks
        .flatMap((b) => b.lines)
        .join('\n')
        .trim();
      yield { lineNo: start, value: { role, message: { content: [{ type: 'text', text }] } } };
    } else if (role === 'assistant') yield* assistantEntries(blocks);
    blocks = [];
  };
  for await (const line of lines) {
    lineNo++;
    const opens = ROLE_LINE.exec(line.trim());
    if (opens && !/^\s/.test(line)) {
      yield* flush();
      role = opens[1] as 'user' | 'assistant';
      start = lineNo;
      continue;
    }
    if (role === undefined) continue;
    const marker = role === 'assistant' && !/^\s/.test(line) ? MARKER.exec(line.trim()) : null;
    const last = blocks.at(-1);
    if (marker) {
      const kind =
        marker[1] === 'Thinking' ? 'thinking' : marker[1] === 'Tool call' ? 'call' : 'result';
      blocks.push({
        kind,
        lineNo,
        lines: [],
        ...(marker[2] !== undefined && { name: marker[2].trim() }),
      });
    } else if (last && last.kind !== 'text' && (line.trim() === '' || /^\s/.test(line)))
      last.lines.push(line.replace(/^ {2}|^\t/, ''));
    else if (last?.kind === 'text') last.lines.push(line);
    else blocks.push({ kind: 'text', lineNo, lines: [line] });
  }
  yield* flush();
}

/** An assistant message: a reply entry per run of text, thinking and calls; results apart. */
function* assistantEntries(blocks: (Block & { lineNo: number })[]): Generator<Entry> {
  let reply: Record<string, unknown>[] = [];
  let replyAt = 0;
  let results: Record<string, unknown>[] = [];
  let resultsAt = 0;
  const entry = (lineNo: number, r: 'user' | 'assistant', content: Record<string, unknown>[]) =>
    ({ lineNo, value: { role: r, message: { content } } }) as Entry;
  for (const b of blocks) {
    const body = b.lines.join('\n').trim();
    if (b.kind === 'result') {
      if (reply.length > 0) yield entry(replyAt, 'assistant', reply);
      reply = [];
      if (results.length === 0) resultsAt = b.lineNo;
      results.push({ type: 'tool_result', content: body });
      continue;
    }
    if (results.length > 0) yield entry(resultsAt, 'user', results);
    results = [];
    if (reply.length === 0) replyAt = b.lineNo;
    if (b.kind === 'thinking') reply.push({ type: 'thinking', thinking: body });
    else if (b.kind === 'call')
      reply.push({ type: 'tool_use', name: b.name ?? 'tool', input: args(b.lines) });
    else if (body !== '') reply.push({ type: 'text', text: body });
  }
  if (reply.length > 0) yield entry(replyAt, 'assistant', reply);
  if (results.length > 0) yield entry(resultsAt, 'user', results);
}

/** `key=value` lines as an object; anything else kept as the text it is. */
function args(lines: string[]): unknown {
  const input: Record<string, string> = {};
  const text = lines.filter((l) => l.trim() !== '');
  for (const l of text) {
    const match = /^([\w.-]+)=(.*)$/.exec(l.trim());
    if (!match) return text.join('\n');
    input[match[1]!] = match[2]!;
  }
  return input;
}

export async function* parseCursorText(file: string): AsyncGenerator<SessionEvent> {
  const meta: SessionMeta = { agent: 'cursor' };
  let converter = cursorAgentFormat.converter(undefined, file);
  for await (const e of entries(file))
    for (const event of converter.line(e.value, e.lineNo))
      if (event.kind === 'meta') mergeMeta(meta, event.meta);
  mergeMeta(meta, { sessionId: path.basename(file, '.txt') });
  yield { kind: 'session', key: path.basename(file), meta };
  converter = cursorAgentFormat.converter(undefined, file);
  for await (const e of entries(file))
    for (const { thread: _thread, ...event } of converter.line(e.value, e.lineNo))
      if (event.kind !== 'meta') yield event as SessionEvent;
}

/** Cursor's transcripts, either kind: the JSON Lines ones and the plain-text ones. */
export const cursorTranscriptFormat: SessionFormat = {
  ...cursorFormat,
  sniff: (head, fileName) =>
    cursorFormat.sniff(head, fileName) ||
    (typeof head === 'string' && isCursorTextTranscript(head, fileName)),
  parse: (file, doc, options) =>
    file.endsWith('.txt') ? parseCursorText(file) : cursorFormat.parse(file, doc, options),
};
