import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { noteO200kLoaded } from './o200k-state';

noteO200kLoaded();

/**
 * Exact o200k_base token counts (the GPT-4o / GPT-5 family), shown next to the cheap
 * estimate so users can see how far off it is. "Exact" with two bounded exceptions that
 * keep one huge tool output from stalling the app:
 *
 * - Texts above WHOLE_TEXT_LIMIT are counted in pieces of about CHUNK_SIZE characters,
 *   cut where a line starts (or, failing that, before a space), so the tokenizer never
 *   works on a giant string at once.
 * - A run of more than MAX_RUN characters of one kind (letters, punctuation, whitespace:
 *   "=====", "aaaa", a wall of spaces) is cut every MAX_RUN characters. The tokenizer
 *   treats such a run as one pre-token, and its byte-pair merge is quadratic in the
 *   pre-token's length: 64 K letters take seconds, 256 K take minutes.
 *
 * Each cut can split a pre-token the whole-string count would have kept together, so the
 * total may differ from a whole-string count by about a token per cut: well under 1 % for
 * ordinary text, which is fine for a display figure.
 */

const WHOLE_TEXT_LIMIT = 1 << 20;
const CHUNK_SIZE = 1 << 16;
const MAX_RUN = 2000;

// Text that merely mentions "<|endoftext|>" is ordinary text in an agent's context:
// count it as such instead of letting the tokenizer throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function countO200k(text: string): number {
  if (text.length <= WHOLE_TEXT_LIMIT) return countWithoutLongRuns(text);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    const end = chunkEnd(text, start, CHUNK_SIZE);
    total += countWithoutLongRuns(text.slice(start, end));
    start = end;
  }
  return total;
}

const SPACE = 0;
const LETTER = 1;
const DIGIT = 2;
const SYMBOL = 3;

/**
 * Character kinds as the o200k pre-tokenizer groups them, approximated in one pass over
 * code units: everything outside ASCII counts as a letter, which at worst cuts a very long
 * line of CJK text without punctuation, never misses a long run.
 */
function kind(c: number): number {
  if (c >= 0x80) return LETTER;
  if (isSpace(c)) return SPACE;
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) return LETTER;
  if (c >= 0x30 && c <= 0x39) return DIGIT;
  return SYMBOL;
}

function countWithoutLongRuns(text: string): number {
  let total = 0;
  let segmentStart = 0;
  let runKind = -1;
  let runLength = 0;
  for (let i = 0; i < text.length; i++) {
    const k = kind(text.charCodeAt(i));
    runLength = k === runKind ? runLength + 1 : 1;
    runKind = k;
    // Digits are pre-tokenized in groups of three, so a long digit run is harmless.
    if (runLength < MAX_RUN || k === DIGIT) continue;
    let cut = i + 1;
    if (cut < text.length && isLowSurrogate(text.charCodeAt(cut))) cut++;
    total += countTokens(text.slice(segmentStart, cut), PLAIN_TEXT);
    segmentStart = cut;
    i = cut - 1;
    runLength = 0;
  }
  if (segmentStart === 0) return countTokens(text, PLAIN_TEXT);
  return total + countTokens(text.slice(segmentStart), PLAIN_TEXT);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
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
  return isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
}
