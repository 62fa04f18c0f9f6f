import { objectMembers } from './json-members';

const CLOSE_BRACE = 0x7d;

const isSpace = (b: number | undefined): boolean =>
  b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * The bytes to leave out of the JSON object in bytes [start, end) so that it parses as the
 * same object without its top-level member `key` (the name in quotes, as JSON writes it): the
 * member and one comma beside it. Undefined when the object has no such member, or when the
 * bytes are not one well-nested object (a torn or damaged line): the caller then keeps the
 * line whole, so a malformed line fails exactly as it would have.
 *
 * The members are found by json-members.ts (strings skipped with native searches, values
 * never decoded): much cheaper than decoding and parsing the member.
 */
export function memberSpan(
  bytes: Buffer,
  start: number,
  end: number,
  key: Buffer,
): [number, number] | undefined {
  const line = bytes.subarray(start, end);
  let members;
  try {
    members = objectMembers(line);
  } catch {
    return undefined; // not one well-formed object: read whole
  }
  const last = members.at(-1);
  if (!last) return undefined;
  // One whole object, nothing after its closing brace but spaces.
  let close = last.end;
  while (isSpace(line[close])) close++;
  if (line[close] !== CLOSE_BRACE) return undefined;
  for (let j = close + 1; j < line.length; j++) if (!isSpace(line[j])) return undefined;
  const name = key.subarray(1, key.length - 1);
  const at = members.findIndex((m) => m.rawKey.equals(name));
  if (at === -1) return undefined;
  const member = members[at]!;
  // After another member: from that member's end (its comma goes); the first: up to the next.
  const from = at > 0 ? members[at - 1]!.end : member.start;
  const to = at > 0 || at === members.length - 1 ? member.end : members[at + 1]!.start;
  return [start + from, start + to];
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
