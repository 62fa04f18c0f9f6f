import { shortenLine } from './output-limits';

/**
 * The lines of `text`, each cut to MAX_LINE_CHARS, when they fit in `budgetBytes`; otherwise
 * undefined, found without walking further than the budget into a long text.
 */
export function allLines(text: string, budgetBytes: number): string | undefined {
  const lines: string[] = [];
  let bytes = 0;
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = shortenLine(text.slice(start, end));
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > budgetBytes) return undefined;
    lines.push(line);
    start = end + 1;
  }
  return lines.join('\n');
}

/**
 * The first and last lines of `text` that fit in half of `budgetBytes` each, with a marker
 * for the lines between: a reader sees how a long message started and how it ended.
 */
export function headAndTail(
  text: string,
  budgetBytes: number,
): { text: string; omittedLines: number } {
  const half = Math.floor(budgetBytes / 2);
  const head: string[] = [];
  let headBytes = 0;
  let headEnd = 0; // where the first line not in the head starts
  while (headEnd <= text.length) {
    const newline = text.indexOf('\n', headEnd);
    const end = newline < 0 ? text.length : newline;
    const line = shortenLine(text.slice(headEnd, end));
    const size = Buffer.byteLength(line) + 1;
    if (headBytes + size > half) break;
    head.push(line);
    headBytes += size;
    headEnd = end + 1;
  }
  const tail: string[] = [];
  let tailBytes = 0;
  let tailStart = text.length + 1; // where the first line of the tail starts
  while (tailStart > headEnd) {
    const end = tailStart - 1;
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    if (start < headEnd) break;
    const line = shortenLine(text.slice(start, end));
    const size = Buffer.byteLength(line) + 1;
    if (tailBytes + size > half) break;
    tail.push(line);
    tailBytes += size;
    tailStart = start;
  }
  const omittedLines = tailStart > headEnd ? countLines(text, headEnd, tailStart) : 0;
  const marker = omittedLines > 0 ? [`[… ${omittedLines} lines omitted …]`] : [];
  return { text: [...head, ...marker, ...tail.reverse()].join('\n'), omittedLines };
}

/** Lines that start in [from, to), `to` being the start of a line. */
function countLines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
