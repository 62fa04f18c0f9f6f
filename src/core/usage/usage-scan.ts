import fs from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES, NEWLINE } from '../jsonl/constants';
import { figuresOf, type MessageFigures, type UsageMessage } from './usage-series';

/** How far a scan of messages.jsonl got: the byte after its last complete line. */
export interface ScanPosition {
  offset: number;
  /** Complete lines read so far (readable or not): the task's message count. */
  lines: number;
}

export const SCAN_START: ScanPosition = { offset: 0, lines: 0 };

/** Big reads: the scan is sequential, and each await lets other requests through. */
const SCAN_CHUNK_BYTES = 1 << 20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SEQ_KEY = Buffer.from('{"seq":');
const ROLE_KEY = Buffer.from(',"role":"');
const CONTENT_KEY = Buffer.from(',"content":');
const NULL = Buffer.from('null');
const TIMESTAMP_KEY = Buffer.from(',"timestamp":"');
const TOKENS_KEY = Buffer.from(',"tokens":');
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
/** Keys that change a message's figures beyond its seq, tokens and time. */
const FIGURE_KEYS = ['"usage"', '"compaction_id"', '"history_only"'].map((k) => Buffer.from(k));
/** Bytes of an ISO timestamp (digits, letters, `:`, `.`, `+`, `-`). */
const TIMESTAMP_BYTE = new Uint8Array(256);
for (const c of '0123456789:.+-TZtz ') TIMESTAMP_BYTE[c.charCodeAt(0)] = 1;

/**
 * Reads the complete lines of messages.jsonl from `from` to the end of the file and hands
 * the figures of each readable message to `sink`. Asynchronous and chunked, so a long task
 * never holds the event loop for more than one chunk's lines; a last line still being
 * written is left for the next scan. Lines past the size cap and lines that are not JSON
 * are counted but skipped (readMessages reports them; a chart skips what it cannot read).
 */
export async function scanUsageFigures(
  file: string,
  from: ScanPosition,
  sink: (figures: MessageFigures) => void,
): Promise<ScanPosition> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return from;
    throw err;
  }
  let { offset, lines } = from;
  try {
    const { size } = await handle.stat();
    const chunk = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
    let parts: Buffer[] = [];
    let held = 0;
    let position = offset;
    while (position < size) {
      const { bytesRead } = await handle.read(
        chunk,
        0,
        Math.min(chunk.length, size - position),
        position,
      );
      if (bytesRead === 0) break; // the file shrank under us
      let from = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, from);
        if (newline === -1 || newline >= bytesRead) break;
        if (held === 0) {
          readLine(chunk, from, newline, sink);
        } else if (held + newline - from <= DEFAULT_MAX_LINE_BYTES) {
          parts.push(chunk.subarray(from, newline));
          const line = Buffer.concat(parts);
          readLine(line, 0, line.length, sink);
        }
        parts = [];
        held = 0;
        lines++;
        offset = position + newline + 1;
        from = newline + 1;
      }
      if (from < bytesRead) {
        held += bytesRead - from;
        // Past the cap only the length is counted: the line is skipped when it ends.
        if (held <= DEFAULT_MAX_LINE_BYTES)
          parts.push(Buffer.from(chunk.subarray(from, bytesRead)));
        else parts = [];
      }
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return { offset, lines };
}

function readLine(
  buf: Buffer,
  start: number,
  end: number,
  sink: (figures: MessageFigures) => void,
): void {
  let found: MessageFigures | Partial<UsageMessage> | null;
  try {
    found = parseWithoutContent(buf, start, end);
  } catch {
    found = null;
  }
  if (found !== null && 'counts' in found) {
    sink(found as MessageFigures);
    return;
  }
  let message = found as Partial<UsageMessage> | null;
  try {
    message ??= parseWhole(buf, start, end);
  } catch {
    return;
  }
  if (message === null || typeof message !== 'object' || typeof message.seq !== 'number') return;
  sink(figuresOf(message as UsageMessage));
}

function parseWhole(buf: Buffer, start: number, end: number): Partial<UsageMessage> | null {
  const text = buf.toString('utf8', start, end);
  return text.trim() === '' ? null : (JSON.parse(text) as Partial<UsageMessage>);
}

/**
 * The usage figures never need a message's content, which is most of its bytes. Lines the
 * store wrote start `{"seq":N,"role":"R","content":`: for those the content string is
 * skipped byte-wise (never decoded). What follows is `"timestamp"` and `"tokens"`, then
 * optional keys; when none of the keys that change the figures (usage, compaction_id,
 * history_only) is there, the figures are read off the bytes, else the rest is parsed.
 * Anything else gives null and is parsed whole.
 */
function parseWithoutContent(
  buf: Buffer,
  start: number,
  end: number,
): MessageFigures | Partial<UsageMessage> | null {
  let p = start;
  if (!matches(buf, p, end, SEQ_KEY)) return null;
  p += SEQ_KEY.length;
  const digits = p;
  while (p < end && buf[p]! >= 0x30 && buf[p]! <= 0x39) p++;
  if (p === digits || !matches(buf, p, end, ROLE_KEY)) return null;
  p += ROLE_KEY.length;
  while (p < end && ((buf[p]! >= 0x61 && buf[p]! <= 0x7a) || buf[p] === 0x5f)) p++;
  if (buf[p] !== QUOTE) return null;
  const headEnd = p + 1;
  if (!matches(buf, headEnd, end, CONTENT_KEY)) return null;
  p = headEnd + CONTENT_KEY.length;
  let contentEnd: number;
  if (matches(buf, p, end, NULL)) {
    contentEnd = p + NULL.length;
  } else if (buf[p] === QUOTE) {
    let q = p + 1;
    for (;;) {
      q = buf.indexOf(QUOTE, q);
      if (q === -1 || q >= end) return null;
      let slashes = 0;
      while (buf[q - 1 - slashes] === BACKSLASH) slashes++;
      if (slashes % 2 === 0) break;
      q++;
    }
    contentEnd = q + 1;
  } else {
    return null;
  }
  const figures = plainFigures(buf, start, contentEnd, end);
  if (figures) return figures;
  const head = buf.toString('latin1', start, headEnd);
  const tail = buf.toString('utf8', contentEnd, end);
  return JSON.parse(head + tail) as Partial<UsageMessage>;
}

/**
 * The figures of a line whose tail is `,"timestamp":"T","tokens":N...` with no key that
 * changes them; null otherwise. A key name in quotes cannot occur inside a JSON string (its
 * quotes would be escaped there), so looking for `"usage"` and the like can only err
 * towards parsing.
 */
function plainFigures(
  buf: Buffer,
  start: number,
  contentEnd: number,
  end: number,
): MessageFigures | null {
  let p = contentEnd;
  if (!matches(buf, p, end, TIMESTAMP_KEY)) return null;
  p += TIMESTAMP_KEY.length;
  const timeStart = p;
  while (p < end && TIMESTAMP_BYTE[buf[p]!] === 1) p++;
  if (buf[p] !== QUOTE) return null;
  const time = Date.parse(buf.toString('latin1', timeStart, p));
  p++;
  if (!matches(buf, p, end, TOKENS_KEY)) return null;
  p += TOKENS_KEY.length;
  const tokens = digitsAt(buf, p, end);
  if (tokens === null) return null;
  p = tokens.next;
  if (buf[p] !== COMMA && buf[p] !== CLOSE_BRACE) return null;
  // Each quote of the rest (not Buffer#indexOf of the keys: it would search past the line,
  // through the rest of the chunk).
  for (let q = buf.indexOf(QUOTE, p); q !== -1 && q < end; q = buf.indexOf(QUOTE, q + 1)) {
    for (const key of FIGURE_KEYS) if (matches(buf, q, end, key)) return null;
  }
  // The role matters only with usage, which sends the line to the parser.
  const seq = digitsAt(buf, start + SEQ_KEY.length, end);
  if (seq === null) return null;
  return {
    seq: seq.value,
    reported: null,
    tokens: tokens.value,
    counts: true,
    time: Number.isFinite(time) ? time : null,
  };
}

function digitsAt(buf: Buffer, at: number, end: number): { value: number; next: number } | null {
  let p = at;
  let value = 0;
  while (p < end && buf[p]! >= 0x30 && buf[p]! <= 0x39) value = value * 10 + (buf[p++]! - 0x30);
  return p === at || p - at > 15 ? null : { value, next: p };
}

function matches(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  // A plain loop: Buffer#compare with offsets costs ~1 µs a call, more than the whole match.
  if (at + bytes.length > end) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}
