/**
 * The cheap token estimate of seed 001 §4.2: characters / 4, or characters / 2 when at
 * least half of the characters are Japanese. It is the number stored in messages.jsonl
 * and compared against thresholds, so it must match the original Python implementation:
 * characters are Unicode code points (Python `len`) and the division floors (`//`).
 */

export interface CharacterCounts {
  /** Unicode code points; a surrogate pair is one character. */
  characters: number;
  japanese: number;
}

function isJapaneseCodeUnit(c: number): boolean {
  return (
    (c >= 0x3000 && c <= 0x303f) || // CJK symbols and punctuation (、。「」 and the ideographic space)
    (c >= 0x3040 && c <= 0x309f) || // hiragana
    (c >= 0x30a0 && c <= 0x30ff) || // katakana
    (c >= 0x31f0 && c <= 0x31ff) || // katakana phonetic extensions (small ㇰ etc.)
    (c >= 0x3400 && c <= 0x4dbf) || // CJK unified ideographs extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xff00 && c <= 0xffef) // halfwidth and fullwidth forms, incl. halfwidth katakana
  );
}

/**
 * Code units that can make a count differ from the string's length: the start of a
 * surrogate pair (two units, one character) or a unit of a listed Japanese range. Without
 * the `u` flag the regex sees code units, so a high surrogate matches whether or not a low
 * one follows (the loop decides).
 */
const SPECIAL_UNIT = /[\u3000-\u9fff\uff00-\uffef\ud800-\udbff]/;

/**
 * Multi-megabyte tool outputs go through here on every append, so the common case is one
 * native scan: a text without any of SPECIAL_UNIT (all ASCII, and most other text outside
 * Japanese) has one character per code unit and none Japanese. (The append bench, group 3
 * of docs/benchmarks.md: the loop below over every non-ASCII text was ~20 % of an append's
 * CPU; counting the bench's 1,500 messages took 3.2 ms this way against 5.3 ms.) The loop
 * starts where the first such unit is and allocates nothing.
 */
export function countCharacters(text: string): CharacterCounts {
  const length = text.length;
  const first = text.search(SPECIAL_UNIT);
  if (first < 0) return { characters: length, japanese: 0 };
  let characters = first;
  let japanese = 0;
  for (let i = first; i < length; i++) {
    const c = text.charCodeAt(i);
    characters++;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        // Every listed Japanese range lies in the BMP, so an astral character (emoji,
        // extension B ideographs) is never counted as Japanese.
        i++;
        continue;
      }
    }
    if (c >= 0x3000 && isJapaneseCodeUnit(c)) japanese++;
  }
  return { characters, japanese };
}

/** Share of Japanese characters in `text`, 0 for the empty string. */
export function japaneseRatio(text: string): number {
  const { characters, japanese } = countCharacters(text);
  return characters === 0 ? 0 : japanese / characters;
}

export function estimateTokens(text: string): number {
  return tokensOf(countCharacters(text));
}

/** The estimate of a text from its counts (those of several texts add up to their concatenation's). */
export function tokensOf({ characters, japanese }: CharacterCounts): number {
  // Integer comparison instead of a ratio, so exactly 50 % is never lost to rounding.
  const divisor = characters > 0 && japanese * 2 >= characters ? 2 : 4;
  return Math.floor(characters / divisor);
}
