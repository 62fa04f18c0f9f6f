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
  let message: Partial<UsageMessage> | null;
  try {
    message = parseWithoutContent(buf, start, end);
  } catch {
    message = null;
  }
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
 * skipped byte-wise (never decoded) and only the rest is parsed. Anything else gives null
 * and is parsed whole.
 */
function parseWithoutContent(
  buf: Buffer,
  start: number,
  end: number,
): Partial<UsageMessage> | null {
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
  const head = buf.toString('latin1', start, headEnd);
  const tail = buf.toString('utf8', contentEnd, end);
  return JSON.parse(head + tail) as Partial<UsageMessage>;
}

function matches(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  return (
    at + bytes.length <= end && buf.compare(bytes, 0, bytes.length, at, at + bytes.length) === 0
  );
}
