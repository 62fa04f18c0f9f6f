import { cutIndex } from '../utf16-cut';
import { scrubToolText } from './tool-secrets';
import type { ToolContext } from './tool-types';

/** Seed 002 §1.3 maxMessageBytes: the most a tool result may put into the context. */
export const MAX_INLINE_BYTES = 50 * 1024;

/** Seed 002 §1.3 maxLineLength: longer lines are cut in what the model sees. */
export const MAX_LINE_CHARS = 2000;

/** A shortened output keeps this much of its start and of its end. */
const HEAD_BYTES = 20 * 1024;
const TAIL_BYTES = 20 * 1024;

/** Cuts near a line break when one is this close to the cut, so views end on whole lines. */
const SNAP_TO_NEWLINE_BYTES = 2048;

/** `text` cut to `max` characters with a note saying how long it was. */
export function shortenLine(text: string, max = MAX_LINE_CHARS): string {
  if (text.length <= max) return text;
  return `${cutToChars(text, max)}… [line cut: ${text.length} characters]`;
}

/** The first `max` UTF-16 units of `text`, never splitting a surrogate pair. */
export function cutToChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, cutIndex(text, max));
}

export interface FittedOutput {
  text: string;
  /** Set when the whole text went to the tool output cache. */
  outputRef?: string;
}

/**
 * Seed 002 §1.5–1.6: an output over MAX_INLINE_BYTES is saved whole in the tool output cache
 * and replaced by its first and last parts plus a line naming the ref, so the model sees
 * both how it started and how it ended and can read the rest back. Secrets are scrubbed
 * first, so neither the saved file nor a cut through the middle of a key keeps any of it.
 */
export function fitOutput(raw: string, ctx: ToolContext, prefix: string): FittedOutput {
  const text = scrubToolText(raw, ctx);
  // Measured before encoding: most outputs fit, and a buffer per output was garbage (#17).
  if (Buffer.byteLength(text, 'utf8') <= MAX_INLINE_BYTES) return { text };
  const view = headTailView(Buffer.from(text, 'utf8'));
  const lineEnd = view.endsWith('\n') ? '' : '\n';
  try {
    const { ref } = ctx.toolOutputs.save(text, prefix);
    return { text: `${view}${lineEnd}${fullOutputNote(ref)}`, outputRef: ref };
  } catch (err) {
    // Losing the middle of an output is better than losing the whole result.
    const why = (err as Error).message;
    return {
      text: `${view}${lineEnd}[output shortened; the full output could not be saved: ${why}]`,
    };
  }
}

export function fullOutputNote(ref: string): string {
  return `[full output: ref=${ref}; read it with tool_output_cache]`;
}

/** The first and last parts of `bytes` with a marker for what lies between. */
export function headTailView(bytes: Buffer): string {
  if (bytes.length <= HEAD_BYTES + TAIL_BYTES) return bytes.toString('utf8');
  const headEnd = snapHeadEnd(bytes, HEAD_BYTES);
  const tailStart = snapTailStart(bytes, bytes.length - TAIL_BYTES);
  const head = bytes.subarray(0, headEnd).toString('utf8');
  const tail = bytes.subarray(tailStart).toString('utf8');
  const omitted = tailStart - headEnd;
  const separatorBefore = head.endsWith('\n') ? '' : '\n';
  const separatorAfter = tail.startsWith('\n') ? '' : '\n';
  return `${head}${separatorBefore}[… ${omitted} bytes omitted (${bytes.length} bytes in all) …]${separatorAfter}${tail}`;
}

/** End of the head: just after a nearby '\n', else on a UTF-8 character boundary. */
function snapHeadEnd(bytes: Buffer, end: number): number {
  const newline = bytes.lastIndexOf(0x0a, end - 1);
  if (newline >= 0 && end - (newline + 1) <= SNAP_TO_NEWLINE_BYTES) return newline + 1;
  let cut = end;
  while (cut > 0 && isContinuationByte(bytes[cut])) cut -= 1;
  return cut;
}

/** Start of the tail: just after a nearby '\n', else on a UTF-8 character boundary. */
function snapTailStart(bytes: Buffer, start: number): number {
  const newline = bytes.indexOf(0x0a, start);
  if (newline >= 0 && newline + 1 - start <= SNAP_TO_NEWLINE_BYTES && newline + 1 < bytes.length) {
    return newline + 1;
  }
  let cut = start;
  while (cut < bytes.length && isContinuationByte(bytes[cut])) cut += 1;
  return cut;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
