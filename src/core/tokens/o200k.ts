import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Exact o200k_base token counts (the GPT-4o / GPT-5 family), shown next to the cheap
 * estimate so users can see how far off it is.
 *
 * Texts above WHOLE_TEXT_LIMIT are counted in pieces of about CHUNK_SIZE characters, cut
 * where a line starts (or, failing that, before a space). That keeps the tokenizer's
 * per-piece work and memory bounded even for a single multi-megabyte line without
 * whitespace. A cut can split a pre-token the whole-string count would have kept
 * together, so the chunked total may differ from a whole-string count by a few tokens
 * per cut — well under 1 % — which is fine for a display figure.
 */

const WHOLE_TEXT_LIMIT = 1 << 20;
const CHUNK_SIZE = 1 << 16;

// Text that merely mentions "<|endoftext|>" is ordinary text in an agent's context:
// count it as such instead of letting the tokenizer throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function countO200k(text: string): number {
  if (text.length <= WHOLE_TEXT_LIMIT) return countTokens(text, PLAIN_TEXT);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    const end = chunkEnd(text, start, CHUNK_SIZE);
    total += countTokens(text.slice(start, end), PLAIN_TEXT);
    start = end;
  }
  return total;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;
}

/** End index (exclusive) of the chunk that begins at `start`. Exported for tests. */
export function chunkEnd(text: string, start: number, size: number): number {
  const limit = start + size;
  if (limit >= text.length) return text.length;
  const floor = start + (size >> 1);
  // Best cut: just after a run of newlines, before the next line's first visible
  // character, because o200k glues newline runs to whatever precedes them.
  for (let p = limit; p > floor; p--) {
    if (text.charCodeAt(p - 1) === 0x0a && !isSpace(text.charCodeAt(p))) return p;
  }
  // Next best: before a space that follows a visible character; the space then starts
  // the next word's pre-token, exactly as it would in the whole text.
  for (let p = limit; p > floor; p--) {
    const c = text.charCodeAt(p);
    if ((c === 0x20 || c === 0x09) && !isSpace(text.charCodeAt(p - 1))) return p;
  }
  // No whitespace at all (minified JSON, base64): hard cut, but never inside a
  // surrogate pair.
  const c = text.charCodeAt(limit);
  return c >= 0xdc00 && c <= 0xdfff ? limit - 1 : limit;
}
