/**
 * Where the members of a JSON object sit in its bytes, found without decoding it: what lets
 * request.json drop a member (say `tool_name`) from a line and copy the rest as the bytes
 * they were. Strings are skipped with Buffer.indexOf (memchr), so a 50 KiB content string
 * costs a few native searches, not a loop over its characters.
 *
 * The bytes must already be known to be one valid JSON object (the caller parsed them):
 * this only measures, it does not check.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** One member of the top-level object: its key text and the byte range from key to value end. */
export interface JsonMember {
  /** The raw bytes of the key between its quotes (escapes not undone). */
  rawKey: Buffer;
  start: number;
  /** Where the value starts (after the ':' and any space). */
  valueStart: number;
  end: number;
}

/**
 * The rest of a JSON string after its opening quote, up to and with its closing quote, as
 * JSON's grammar allows it: no raw '"', '\\' or control character, only the escapes JSON
 * knows. Written so no text can be split two ways (each escape is followed by the longest
 * run of plain characters), so a failed match costs one pass, not a backtracking storm.
 */
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const STRING_REST = /[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"/y;

/**
 * Index just past the JSON string that starts (with its quote) at `at` in `text` (the
 * bytes read as latin1, one character per byte), or -1 when it is not a valid JSON string.
 * A native scan: what lets a 50 KiB content string be checked without JSON.parse copying it.
 */
export function validStringEnd(text: string, at: number): number {
  STRING_REST.lastIndex = at + 1;
  return STRING_REST.test(text) ? STRING_REST.lastIndex : -1;
}

/**
 * The top-level members of the JSON object in `bytes`, in order. With `text` (the same
 * bytes read as latin1), every string met is also checked against JSON's grammar, and an
 * invalid one throws.
 */
export function objectMembers(bytes: Buffer, text?: string): JsonMember[] {
  // `text` goes down as an argument, not inside a closure: the optimizing compiler embedded
  // such a closure, and with it the text of the line it was compiled on, in skipValue's
  // code, so a 460 KB line stayed alive for the rest of the run (issue #17).
  const members: JsonMember[] = [];
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_BRACE) throw new Error('not a JSON object');
  at = skipSpace(bytes, at + 1);
  while (bytes[at] === QUOTE) {
    const start = at;
    const keyEnd = stringEnd(bytes, at, text);
    const rawKey = bytes.subarray(start + 1, keyEnd - 1);
    at = skipSpace(bytes, keyEnd);
    if (bytes[at] !== COLON) throw new Error('expected ":" after a key');
    const valueStart = skipSpace(bytes, at + 1);
    at = skipValue(bytes, valueStart, text);
    members.push({ rawKey, start, valueStart, end: at });
    at = skipSpace(bytes, at);
    if (bytes[at] !== COMMA) break;
    at = skipSpace(bytes, at + 1);
  }
  if (bytes[at] !== CLOSE_BRACE) throw new Error('expected "}" or another member');
  return members;
}

const OPEN = Buffer.from('{');
const SEPARATOR = Buffer.from(',');
const CLOSE = Buffer.from('}');

/**
 * The object in `bytes` without the members whose indexes are in `drop`, as pieces to be
 * written one after the other: the kept members are slices of `bytes`, not copies.
 */
export function withoutMembers(bytes: Buffer, members: JsonMember[], drop: Set<number>): Buffer[] {
  const pieces: Buffer[] = [OPEN];
  members.forEach((member, i) => {
    if (drop.has(i)) return;
    if (pieces.length > 1) pieces.push(SEPARATOR);
    pieces.push(bytes.subarray(member.start, member.end));
  });
  pieces.push(CLOSE);
  return pieces;
}

/** Index just past the string at `at`, checked against JSON's grammar when `text` is given. */
function stringEnd(bytes: Buffer, at: number, text: string | undefined): number {
  if (text === undefined) return skipString(bytes, at);
  const end = validStringEnd(text, at);
  if (end === -1) throw new Error('invalid string');
  return end;
}

/** Index just past the string that starts (with its quote) at `at`. */
function skipString(bytes: Buffer, at: number): number {
  let quote = bytes.indexOf(QUOTE, at + 1);
  while (quote !== -1) {
    // A quote ends the string unless an odd number of backslashes stands before it.
    let slashes = 0;
    while (bytes[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  throw new Error('unterminated string');
}

/** Index just past the value that starts at `at`. */
function skipValue(bytes: Buffer, at: number, text: string | undefined): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at, text);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = at; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === QUOTE) {
        i = stringEnd(bytes, i, text) - 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
    }
    throw new Error('unterminated object or list');
  }
  // A number, true, false or null: runs until the next delimiter.
  let i = at;
  while (i < bytes.length && !isDelimiter(bytes[i])) i++;
  return i;
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipSpace(bytes: Buffer, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}
