/** A shown match is cut to this many characters of its line, around where it matched. */
export const SNIPPET_CHARS = 300;

/** How much of the line before the match a cut snippet keeps. */
const CHARS_BEFORE_MATCH = 100;

export interface LineMatch {
  /** 1-based line number in the text. */
  lineNo: number;
  /** The matching line, cut around the match when it is long. */
  snippet: string;
}

/**
 * The lines of `text` where `regex` (flags g and m) matches, one result per line. The regex
 * runs over the whole text once rather than line by line, so a long output is not split
 * into an array of lines.
 */
export function* matchingLines(regex: RegExp, text: string): Generator<LineMatch> {
  let lineNo = 1;
  let counted = 0;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const at = match.index;
    const lineStart = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    const newline = text.indexOf('\n', at);
    const lineEnd = newline < 0 ? text.length : newline;
    lineNo += countNewlines(text, counted, lineStart);
    counted = lineStart;
    yield { lineNo, snippet: snippetOf(text, lineStart, lineEnd, at) };
    if (lineEnd >= text.length) break;
    // One result per line: go on from the next line (also steps past an empty match).
    regex.lastIndex = lineEnd + 1;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

function snippetOf(text: string, lineStart: number, lineEnd: number, at: number): string {
  let end = lineEnd;
  if (end > lineStart && text.charCodeAt(end - 1) === 0x0d) end--; // CRLF
  if (end - lineStart <= SNIPPET_CHARS) return ownCopy(text.slice(lineStart, end));
  let from = Math.max(lineStart, Math.min(at, end) - CHARS_BEFORE_MATCH);
  let to = Math.min(end, from + SNIPPET_CHARS);
  from = Math.max(lineStart, to - SNIPPET_CHARS);
  // Never half a surrogate pair at either edge: it would turn into a replacement character.
  if (from > lineStart && isLowSurrogate(text.charCodeAt(from))) from++;
  if (to < end && isLowSurrogate(text.charCodeAt(to))) to--;
  const before = from > lineStart ? '…' : '';
  const after = to < end ? '…' : '';
  return ownCopy(`${before}${text.slice(from, to)}${after}`);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A copy that does not point into `text`: V8 may keep a slice as a view of its parent, and
 * a kept match must not keep a whole multi-megabyte message alive with it.
 */
function ownCopy(slice: string): string {
  return Buffer.from(slice, 'utf8').toString('utf8');
}
