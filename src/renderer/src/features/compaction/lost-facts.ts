/**
 * Facts a compaction may lose: the concrete things an agent needs to carry on (the files it
 * touched, the names it works with, the numbers and versions it measured, the errors it
 * saw). A summary that drops them makes the agent re-read or re-run, so the diff page
 * points them out.
 */
export type FactKind = 'path' | 'identifier' | 'number' | 'error';

export interface Fact {
  kind: FactKind;
  text: string;
}

// A path has a slash or a file extension: src/a/b.ts, ./x, /etc/hosts, C:\x\y, README.md.
const FILE_EXTENSIONS =
  'tsx?|jsx?|png|jpe?g|gif|svg|mjs|cjs|py|pyi|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|md|rst|txt|json|jsonl|ya?ml|toml|ini|cfg|lock|sh|bash|html|css|scss|sql|xml|csv|log|env|traj|dcm';
const PATH = new RegExp(
  String.raw`(?:[A-Za-z]:\\|~\/|\.{1,2}\/|\/)?(?:[\w.@+-]+[/\\])+[\w.@+-]*[\w@+-]|\b[\w-]+\.(?:${FILE_EXTENSIONS})\b`,
  'g',
);
// camelCase, PascalCase with an inner capital, snake_case, dotted names (obj.method, a.b.c).
const IDENTIFIER =
  /\b(?:[a-z_$][\w$]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Za-z]\w*_\w+|[A-Za-z_$][\w$]+(?:\.[A-Za-z_$][\w$]+)+)\b/g;
// Versions (v1.2.3, 3.11) and numbers with a unit (250ms, 4 GB, 12%). Plain numbers are
// left out: in real transcripts they are mostly line numbers of file listings, pure noise.
const NUMBER =
  /\bv?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?\b|\b\d+(?:\.\d+)?\s?(?:ms|s|min|h|KiB|MiB|GiB|KB|MB|GB|kB|B|%|tokens?|lines?|bytes?|files?|tests?)(?![\w])/g;
// An error as tools print it: `TypeError: …`, `error: …`, a line starting with ERROR/FATAL,
// a traceback, `failed`/`FAILED`. Code that merely names an error (`raise ValueError(`,
// `except OSError as error:`) and prose about "no errors" do not count.
const ERROR_LINE =
  /\b\w*(?:Error|Exception):\s+\S|(?:^|\s)(?:error|fatal):\s+\S|^\s*\[?(?:error|fatal|panic)\]?\b|traceback \(most recent call last\)|\bfail(?:ed|ure|s)?\b/i;
const MAX_ERROR_LINE = 300;

/** Everything of each kind that `text` mentions, in order of first appearance. */
export function extractFacts(text: string): Fact[] {
  const facts: Fact[] = [];
  const seen = new Set<string>();
  const add = (kind: FactKind, raw: string): void => {
    // Sentence punctuation after a path or name is not part of it; an error line stays whole.
    const value = kind === 'error' ? raw.trim() : raw.trim().replace(/[.,:;)]+$/, '');
    if (value.length < 2) return;
    const key = `${kind}\u0000${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    facts.push({ kind, text: value });
  };
  for (const line of text.split('\n')) {
    if (ERROR_LINE.test(line)) add('error', line.slice(0, MAX_ERROR_LINE));
  }
  const paths = new Set<string>();
  for (const m of text.matchAll(PATH)) {
    // A fraction or date (1/2, 2024/05/01) is not a path, nor prose like "n/a" or
    // "start/end": a path is rooted, has two slashes, or names a file.
    if (/^[\d/.]+$/.test(m[0]) || !isPath(m[0])) continue;
    paths.add(m[0].replace(/[.,:;)]+$/, ''));
    add('path', m[0]);
  }
  for (const m of text.matchAll(IDENTIFIER)) {
    if (paths.has(m[0]) || [...paths].some((p) => p.includes(m[0]) && /[/\\]/.test(p))) continue;
    add('identifier', m[0]);
  }
  for (const m of text.matchAll(NUMBER)) add('number', m[0]);
  return facts;
}

function isPath(text: string): boolean {
  if (/^(?:[A-Za-z]:\\|~\/|\.{1,2}\/|\/)/.test(text)) return true;
  if ((text.match(/[/\\]/g) ?? []).length >= 2) return true;
  return new RegExp(String.raw`\.(?:${FILE_EXTENSIONS})$`).test(text);
}

/**
 * The facts of `before` that `after` no longer mentions, error lines first. A fact counts as kept when its
 * text still appears anywhere in `after` (a summary may put a path in another sentence),
 * and an error line counts as kept when its text, or its longest meaningful part, does.
 */
export function lostFacts(before: string, after: string): Fact[] {
  const lowerAfter = after.toLowerCase();
  const lost = extractFacts(before).filter((fact) => {
    if (fact.kind !== 'error') return !after.includes(fact.text);
    const line = fact.text.trim().toLowerCase();
    return !lowerAfter.includes(line) && !lowerAfter.includes(errorCore(line));
  });
  // A name or number that only repeats part of a lost error line adds noise, not news.
  const lostLines = lost.filter((f) => f.kind === 'error').map((f) => f.text);
  return lost.filter((f) => f.kind === 'error' || !lostLines.some((line) => line.includes(f.text)));
}

/** An error line without its leading noise (timestamps, prompts, bullets). */
function errorCore(line: string): string {
  const at = line.search(ERROR_LINE);
  return line.slice(Math.max(0, at)).trim();
}
