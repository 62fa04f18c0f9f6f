import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import type { CurrentMessage } from '../../shared/task-types';
import type { LlmProvider } from '../config/app-config';
import { badInput } from '../errors';
import { borrowBuffers, giveBack, POOLED_BUFFER_BYTES } from './buffer-pool';
import { DEFAULT_MAX_LINE_BYTES } from '../jsonl/constants';
import { writeAllSync } from '../jsonl/write-all';
import { toCurrentMessage } from './current-line';
import { objectMembers, withoutMembers, type JsonMember } from '../jsonl/json-members';
import { readLineBatches, type LinePosition } from './line-batches';
import { toProviderMessage } from './provider-message';
import { asciiJson } from './ascii-json';
import type { ToolDefinition } from './tool-definition';

export { toProviderMessage } from './provider-message';

export interface RequestFileOptions {
  /** current.jsonl to stream into the body; null = only extraMessages (one-shot prompts). */
  currentPath: string | null;
  requestPath: string;
  provider: LlmProvider;
  model: string;
  tools?: ToolDefinition[];
  stream: boolean;
  /** Cap on the answer: max_completion_tokens (OpenAI), max_tokens (LM Studio), num_predict (Ollama). */
  maxOutputTokens?: number;
  /**
   * Ollama only: options.num_ctx. Ollama otherwise runs with its own small default window
   * and silently drops the start of a longer context, so a configured length is passed on.
   */
  contextLength?: number;
  /** Appended after the file's lines, e.g. a summary instruction. */
  extraMessages?: CurrentMessage[];
  /**
   * The body the previous call left in `requestPath`: when current.jsonl has only grown
   * since, its lines are kept and only the new ones are projected (see KeptRequest).
   */
  continueFrom?: KeptRequest;
}

export interface RequestFileResult {
  /** The size of the body (the whole file, kept lines included). */
  bytes: number;
  messages: number;
  /** Set when the next call may extend this body: see KeptRequest. */
  kept?: KeptRequest;
}

/**
 * What a request file holds, so the next call can extend it instead of writing it again.
 * A task's context only grows between most calls, and re-reading and checking all of it at
 * every call made building request.json the task process's largest cost at 1 GB, in time
 * and in garbage (issue #17). The body is reused only while current.jsonl is provably the
 * same file grown by appends; a compaction writes a new file, and anything unexpected
 * means a full rewrite, never a stale body.
 */
export interface KeptRequest {
  readonly requestPath: string;
  readonly currentPath: string;
  readonly provider: LlmProvider;
  readonly model: string;
  /** current.jsonl when the body was written (rewrites make a new file). */
  readonly current: FileIdentity;
  /** The request file as it was left. */
  readonly request: FileIdentity & { size: number };
  /** Where the next line of current.jsonl starts: every line before it is in the body. */
  readonly linesEnd: LinePosition;
  /** current.jsonl's last bytes before linesEnd: an append leaves them, a rewrite does not. */
  readonly tail: Buffer;
  readonly messages: number;
  /** Where the extra messages and the footer begin: they are written again each call. */
  readonly prefixBytes: number;
}

interface FileIdentity {
  dev: number;
  ino: number;
  birthtimeMs: number;
}

const TAIL_BYTES = 64;

/**
 * Bytes gathered before one write: large enough to keep syscalls few (400 per 100 MiB), small
 * enough that the two buffers are not a visible share of a task process's peak (issue #17).
 */
const BATCH_BYTES = POOLED_BUFFER_BYTES;

// A malformed multi-megabyte line must not turn into a multi-megabyte error message.
const MAX_REASON_CHARS = 200;

/**
 * Writes the request body for `provider` into `requestPath` (seed 000 §3.7): a JSON header,
 * each line of current.jsonl projected for the provider and joined with commas, then a
 * footer. Only one line is in memory at a time; output goes out in 1 MiB writes. Every
 * line is parsed and checked, but a line the projection leaves unchanged (or only strips of
 * members) is copied as the bytes it was, so most of a context goes through without being
 * decoded as UTF-8 or re-serialized.
 * A malformed line is an error naming the file and line, and leaves no request file behind.
 * Given the body the last call kept (`continueFrom`), only the lines appended since are
 * read: the kept lines stay, the extra messages and footer are written again after them.
 */
export async function writeRequestFile(options: RequestFileOptions): Promise<RequestFileResult> {
  const { provider } = options;
  const resume = options.continueFrom && stillExtends(options.continueFrom, options);
  const fd = fs.openSync(options.requestPath, resume ? 'r+' : 'w', 0o600);
  const out = new BatchWriter(fd, resume ? resume.prefixBytes : 0);
  let messages = resume ? resume.messages : 0;
  let linesEnd: LinePosition = resume ? resume.linesEnd : { offset: 0, lineNo: 1 };
  let torn = false;
  let ok = false;
  const separator = (): void => {
    if (messages++ > 0) out.text(',');
  };
  try {
    if (!resume) out.text(`{"model":${asciiJson(JSON.stringify(options.model))},"messages":[`);
    if (options.currentPath !== null) {
      const label = options.currentPath;
      for await (const batch of readLineBatches(label, { start: linesEnd })) {
        for (const line of batch) {
          const where = `${label} line ${line.lineNo}`;
          const tornNote = line.partial ? ' (incomplete last line, no trailing newline)' : '';
          if ('tooLong' in line) {
            throw badInput(`${where}: line longer than ${DEFAULT_MAX_LINE_BYTES} bytes${tornNote}`);
          }
          // An unterminated last line may still be written to: the body is not kept.
          if (line.partial) torn = true;
          else linesEnd = { offset: line.end, lineNo: line.lineNo + 1 };
          const projected = projectLine(line.bytes, provider, where, tornNote);
          if (projected === BLANK) continue;
          separator();
          if (projected === UNCHANGED) out.bytes(line.bytes);
          else if (typeof projected === 'string') out.text(projected);
          else for (const piece of projected) out.bytes(piece);
        }
      }
    }
    const prefixBytes = out.position;
    const lineMessages = messages;
    for (const message of options.extraMessages ?? []) {
      separator();
      out.text(
        JSON.stringify(toProviderMessage(provider, toCurrentMessage(message, 'extra message'))),
      );
    }
    if (messages === 0) throw badInput(`${options.currentPath ?? 'request'}: no messages to send`);
    out.text(footer(options));
    out.flush();
    // A longer body kept from the last call (its extra messages) must not trail this one.
    if (resume) fs.ftruncateSync(fd, out.position);
    const kept =
      options.currentPath !== null && !torn
        ? keep(options, options.currentPath, fd, {
            linesEnd,
            messages: lineMessages,
            prefixBytes,
          })
        : undefined;
    ok = true;
    return { bytes: out.position, messages, ...(kept && { kept }) };
  } finally {
    out.release();
    fs.closeSync(fd);
    if (!ok) fs.rmSync(options.requestPath, { force: true });
  }
}

/**
 * The kept body when it still holds the start of this call's body: same file, provider and
 * model, current.jsonl the same file (not rewritten) and at least as long, with the bytes it
 * ended with still in place, and the request file as it was left. Anything else: undefined,
 * and the body is written from the start.
 */
function stillExtends(kept: KeptRequest, options: RequestFileOptions): KeptRequest | undefined {
  if (
    kept.requestPath !== options.requestPath ||
    kept.currentPath !== options.currentPath ||
    kept.provider !== options.provider ||
    kept.model !== options.model
  ) {
    return undefined;
  }
  try {
    const request = fs.statSync(kept.requestPath);
    if (!sameFile(request, kept.request) || request.size !== kept.request.size) return undefined;
    const current = bytesBefore(kept.currentPath, kept.linesEnd.offset, kept.tail.length);
    return current &&
      sameFile(current.stats, kept.current) &&
      current.stats.size >= kept.linesEnd.offset &&
      current.tail.equals(kept.tail)
      ? kept
      : undefined;
  } catch {
    return undefined; // gone or unreadable: written again, which reports a real problem
  }
}

function keep(
  options: RequestFileOptions,
  currentPath: string,
  requestFd: number,
  body: { linesEnd: LinePosition; messages: number; prefixBytes: number },
): KeptRequest | undefined {
  const { offset } = body.linesEnd;
  const current = bytesBefore(currentPath, offset, Math.min(TAIL_BYTES, offset));
  if (!current) return undefined;
  const written = fs.fstatSync(requestFd);
  return {
    requestPath: options.requestPath,
    currentPath,
    provider: options.provider,
    model: options.model,
    current: identity(current.stats),
    request: { ...identity(written), size: written.size },
    tail: current.tail,
    ...body,
  };
}

/**
 * A file's stats and its `length` bytes just before `end`, read through one descriptor (so
 * both describe the same file); undefined when the file holds fewer bytes than that.
 */
function bytesBefore(
  file: string,
  end: number,
  length: number,
): { stats: fs.Stats; tail: Buffer } | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const stats = fs.fstatSync(fd);
    const tail = Buffer.alloc(length);
    const bytesRead = fs.readSync(fd, tail, 0, length, end - length);
    return bytesRead === length ? { stats, tail } : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function identity(stats: fs.Stats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, birthtimeMs: stats.birthtimeMs };
}

function sameFile(stats: fs.Stats, known: FileIdentity): boolean {
  return (
    stats.dev === known.dev && stats.ino === known.ino && stats.birthtimeMs === known.birthtimeMs
  );
}

/**
 * What stands in for a line's content while the rest of the line is parsed and projected.
 * Any string would do for the checks (no projection looks at the text of a content); this
 * one, NULs and all, is there so it can be found again in the projected JSON.
 */
const STAND_IN = '\u0000cwb-content\u0000';
const STAND_IN_JSON = JSON.stringify(STAND_IN);

const BLANK = Symbol('blank line');
const UNCHANGED = Symbol('unchanged line');

/**
 * One line of current.jsonl for `provider`: BLANK (skip it), UNCHANGED (send its bytes as
 * they are), pieces of its bytes to send one after the other (the line without some of its
 * members), or the JSON text to send instead.
 *
 * Every line is parsed and checked. Most lines need no change, or only lose members the
 * provider does not take (OpenAI has no `tool_name`, which every tool result carries); for
 * those the bytes go out as they were, minus the dropped members' byte ranges, so a large
 * tool output is never decoded as UTF-8 nor re-serialized. The
 * check parses a latin1 reading of the bytes: every byte becomes one character, so the
 * structure (all ASCII) parses exactly as it would from UTF-8 while V8 works on a compact
 * one-byte string instead of decoding — about twice as fast on non-ASCII text such as
 * Japanese. Strings inside come out garbled, which the checks do not look at (roles and
 * key names are ASCII); isUtf8 vouches for the encoding. A line that needs a change, or that
 * fails a check, is read again as UTF-8 so its new text and its error message are right.
 */
function projectLine(
  bytes: Buffer,
  provider: LlmProvider,
  where: string,
  torn: string,
): string | Buffer[] | typeof BLANK | typeof UNCHANGED {
  if (isUtf8(bytes)) {
    try {
      const text = bytes.toString('latin1');
      // Members found and every string checked in one native pass (json-members.ts); the
      // content, most of a line, is then left out of what JSON.parse sees (an empty string
      // stands in for it: no projection looks at the text of a content), so it is never
      // copied. The line is valid JSON exactly when its content string is (checked) and
      // the line with "" in its place parses.
      const members = objectMembers(bytes, text);
      const content = contentMember(members, bytes);
      const checked = content
        ? `${text.slice(0, content.valueStart)}${STAND_IN_JSON}${text.slice(content.end)}`
        : text;
      const value: unknown = JSON.parse(checked);
      const projected = toProviderMessage(provider, toCurrentMessage(value, where));
      if (sameJson(value, projected)) return UNCHANGED;
      const dropped = droppedKeys(value as Record<string, unknown>, projected);
      if (dropped) {
        const drop = new Set<number>();
        members.forEach((member, i) => {
          if (dropped.has(latin1Key(member.rawKey))) drop.add(i);
        });
        return withoutMembers(bytes, members, drop);
      }
      // Anything else changed (Ollama's tool-call arguments, a null content): the message is
      // serialized again, but its content still goes out as its own bytes. The serialized
      // text is latin1 like the parse, so encoding it as latin1 gives back the UTF-8 bytes.
      const json = JSON.stringify(projected);
      const at = json.indexOf(STAND_IN_JSON);
      if (!content) return [Buffer.from(json, 'latin1')];
      if (at !== -1 && json.indexOf(STAND_IN_JSON, at + 1) === -1) {
        return [
          Buffer.from(json.slice(0, at), 'latin1'),
          bytes.subarray(content.valueStart, content.end),
          Buffer.from(json.slice(at + STAND_IN_JSON.length), 'latin1'),
        ];
      }
    } catch {
      // fall through: the UTF-8 reading below reports the problem properly
    }
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return BLANK;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badInput(`${where}: malformed JSON (${reason(error)})${torn}`);
  }
  return JSON.stringify(toProviderMessage(provider, toCurrentMessage(value, where)));
}

/** Everything after the messages array, provider by provider. */
function footer(options: RequestFileOptions): string {
  const tail: Record<string, unknown> = {};
  if (options.tools && options.tools.length > 0) tail.tools = options.tools;
  tail.stream = options.stream;
  const max = options.maxOutputTokens;
  switch (options.provider) {
    case 'openai':
      // Without this the stream carries no usage at all.
      if (options.stream) tail.stream_options = { include_usage: true };
      if (max !== undefined) tail.max_completion_tokens = max;
      break;
    case 'lmstudio':
      // Asked for too: LM Studio ignores what it does not know, and the versions that
      // learn it (lmstudio-bug-tracker #713) then report usage for streamed answers.
      if (options.stream) tail.stream_options = { include_usage: true };
      // LM Studio speaks the older max_tokens name.
      if (max !== undefined) tail.max_tokens = max;
      break;
    case 'ollama': {
      const ollamaOptions: Record<string, number> = {};
      if (max !== undefined) ollamaOptions.num_predict = max;
      if (options.contextLength !== undefined) ollamaOptions.num_ctx = options.contextLength;
      if (Object.keys(ollamaOptions).length > 0) tail.options = ollamaOptions;
      break;
    }
  }
  // `{"stream":true}` → `],"stream":true}`: the object's braces become the footer's ends.
  return `],${asciiJson(JSON.stringify(tail)).slice(1)}`;
}

/**
 * Whether two JSON values are equal (object key order aside). Strings of a projection are
 * the parsed line's own strings, so comparing them is cheap whatever their length.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return keysA.every((key) => Object.hasOwn(recordB, key) && sameJson(recordA[key], recordB[key]));
}

/**
 * The keys of `value` the projection left out, when leaving them out is its only change
 * (every other member is the same); undefined when it changed anything else.
 */
function droppedKeys(value: Record<string, unknown>, projected: object): Set<string> | undefined {
  const kept = projected as Record<string, unknown>;
  for (const key of Object.keys(kept)) {
    if (!Object.hasOwn(value, key) || !sameJson(value[key], kept[key])) return undefined;
  }
  const dropped = new Set(Object.keys(value).filter((key) => !Object.hasOwn(kept, key)));
  return dropped.size > 0 ? dropped : undefined;
}

/** The one member named content when its value is a string; undefined otherwise. */
function contentMember(members: JsonMember[], bytes: Buffer): JsonMember | undefined {
  let found: JsonMember | undefined;
  for (const member of members) {
    if (latin1Key(member.rawKey) !== 'content') continue;
    // Twice: JSON.parse keeps the last one, which only a full parse gets right.
    if (found) return undefined;
    found = member;
  }
  return found && bytes[found.valueStart] === 0x22 ? found : undefined; // a string: '"'
}

/** A key's raw bytes read the way the line was parsed (latin1), escapes undone. */
function latin1Key(raw: Buffer): string {
  const text = raw.toString('latin1');
  return text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text;
}

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS)}…`;
}

/**
 * Gathers output in a buffer and writes it when full, at explicit offsets from `start`.
 * One buffer, written synchronously: a write to the page cache takes tens of microseconds,
 * less than a round trip through libuv's thread pool, and a second buffer filling while
 * the first was written was 256 KiB more of a task process's peak while request.json is
 * extended (issue #17). The reader gives the event loop its turns (line-batches.ts).
 */
class BatchWriter {
  private readonly buffers = borrowBuffers(1);
  private readonly buffer = this.buffers[0];
  private used = 0;
  /** Where the next buffer goes in the file. */
  private next: number;

  constructor(
    private readonly fd: number,
    start: number,
  ) {
    this.next = start;
  }

  /** The file offset just past everything given so far (written or still buffered). */
  get position(): number {
    return this.next + this.used;
  }

  text(text: string): void {
    // Short texts (separators, headers) are encoded straight into the buffer.
    if (text.length * 3 <= BATCH_BYTES - this.used) {
      this.used += this.buffer.write(text, this.used);
      return;
    }
    this.bytes(Buffer.from(text));
  }

  bytes(data: Buffer): void {
    if (data.length > BATCH_BYTES - this.used) this.flush();
    if (data.length >= BATCH_BYTES) {
      // Larger than the buffer: written on its own, after what came before it.
      this.writeOut(data);
      return;
    }
    data.copy(this.buffer, this.used);
    this.used += data.length;
  }

  /** Writes what the buffer holds. */
  flush(): void {
    if (this.used === 0) return;
    const data = this.buffer.subarray(0, this.used);
    this.used = 0;
    this.writeOut(data);
  }

  /** Gives the buffer back once the file is done with (on success or failure). */
  release(): void {
    giveBack(this.buffers);
  }

  private writeOut(data: Buffer): void {
    const at = this.next;
    this.next += data.length;
    writeAllSync(this.fd, data, at);
  }
}
