const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A string this short is walked byte by byte; a longer one is searched for its quotes. */
const WALK_BYTES = 24;

const isSpace = (b: number | undefined): boolean =>
  b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Where the JSON string opening at `i` (bytes[i] is '"') ends: the index after its closing
 * quote, or -1 when it does not close before `end`.
 */
function stringEnd(bytes: Buffer, i: number, end: number): number {
  let j = i + 1;
  const walkTo = Math.min(end, j + WALK_BYTES);
  while (j < walkTo) {
    const b = bytes[j]!;
    if (b === QUOTE) return j + 1;
    j += b === BACKSLASH ? 2 : 1;
  }
  for (;;) {
    const q = bytes.indexOf(QUOTE, j);
    if (q === -1 || q >= end) return -1;
    // Escaped when an odd number of backslashes stands right before it.
    let k = q - 1;
    while (bytes[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q + 1;
    j = q + 1;
  }
}

/** Whether the string at `i` is the member name `key` (its quotes included) followed by ':'. */
function isKeyAt(bytes: Buffer, i: number, end: number, key: Buffer): boolean {
  if (i + key.length > end || bytes.compare(key, 0, key.length, i, i + key.length) !== 0)
    return false;
  let j = i + key.length;
  while (isSpace(bytes[j])) j++;
  return bytes[j] === COLON;
}

/**
 * The bytes to leave out of the JSON object in bytes [start, end) so that it parses as the
 * same object without its top-level member `key` (the name in quotes, as JSON writes it): the
 * member and one comma beside it. Undefined when the object has no such member, or when the
 * bytes are not one well-nested object (a torn or damaged line): the caller then keeps the
 * line whole, so a malformed line fails exactly as it would have.
 *
 * Only strings and brackets are followed (a string's inside is skipped by searching for its
 * closing quote), never the values: much cheaper than decoding and parsing the member.
 */
export function memberSpan(
  bytes: Buffer,
  start: number,
  end: number,
  key: Buffer,
): [number, number] | undefined {
  let i = start;
  while (i < end && isSpace(bytes[i])) i++;
  if (bytes[i] !== OPEN_BRACE) return undefined;
  let depth = 0;
  /** The '{' or ',' before the top-level member being read. */
  let before = i;
  let from = -1;
  let to = -1;
  for (; i < end; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      if (depth === 1 && from === -1 && to === -1 && isKeyAt(bytes, i, end, key))
        // After a comma: that comma goes with it; first: the comma after it does.
        from = bytes[before] === COMMA ? before : i;
      const next = stringEnd(bytes, i, end);
      if (next === -1) return undefined;
      i = next - 1;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) break;
      if (depth < 0) return undefined;
    } else if (b === COMMA && depth === 1) {
      if (from !== -1 && to === -1) to = bytes[from] === COMMA ? i : i + 1;
      before = i;
    }
  }
  // One whole object, nothing after it but spaces.
  if (depth !== 0 || bytes[i] !== CLOSE_BRACE) return undefined;
  for (let j = i + 1; j < end; j++) if (!isSpace(bytes[j])) return undefined;
  if (from === -1) return undefined;
  // The member was the last one: it ends at the object's closing brace.
  if (to === -1) to = i;
  return [from, to];
}

/**
 * Decodes lines of JSON objects without their top-level member `name` (one no reader uses
 * and that is much of the bytes: Claude Code's `toolUseResult`). A line is searched for the
 * name once per buffer, so lines without it cost one search of their chunk, not one each.
 */
export class MemberOmitter {
  private readonly key: Buffer;
  private searched: Buffer | undefined;
  private found = -1;
  private cut: { bytes: Buffer; start: number; end: number } | undefined;

  constructor(name: string) {
    this.key = Buffer.from(JSON.stringify(name));
  }

  /** The text of the line in bytes [start, end), the member left out where it can be. */
  decode(bytes: Buffer, start: number, end: number): string {
    this.cut = undefined;
    if (bytes !== this.searched || (this.found < start && this.found !== -1)) {
      this.searched = bytes;
      this.found = bytes.indexOf(this.key, start);
    }
    if (this.found === -1 || this.found >= end) return bytes.toString('utf8', start, end);
    const span = memberSpan(bytes, start, end, this.key);
    if (span === undefined) return bytes.toString('utf8', start, end);
    this.cut = { bytes, start, end };
    return bytes.toString('utf8', start, span[0]) + bytes.toString('utf8', span[1], end);
  }

  /**
   * The last line decoded, whole, if the member was left out of it (undefined otherwise):
   * a line that fails to parse is parsed again whole, so its error is the line's own. Only
   * valid until the next line is read (its buffer is reused).
   */
  lastWhole(): string | undefined {
    const cut = this.cut;
    return cut && cut.bytes.toString('utf8', cut.start, cut.end);
  }
}
