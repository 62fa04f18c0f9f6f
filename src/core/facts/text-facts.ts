/**
 * Facts that can be read off plain text: file paths, identifiers, numbers with units and
 * versions, URLs and error lines as tools print them. Each finder is tuned on real
 * transcripts (test/fixtures/real) to leave out what is not evidence: the product's own
 * markers (`trim_…` refs, the recall and cache tools), percentages, line numbers of file
 * listings, code that merely names an error.
 */

const FILE_EXTENSIONS =
  'tsx?|jsx?|png|jpe?g|gif|svg|mjs|cjs|py|pyi|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|swift|php|md|mdx|rst|txt|json|jsonl|ya?ml|toml|ini|cfg|conf|lock|sh|bash|zsh|ps1|html?|css|scss|sql|xml|csv|log|env|traj|dcm|vue|svelte|lua|dart|scala|ex|exs|gradle|proto|ipynb|dockerfile|mod|sum';
/**
 * A path starts at a root (`/`, `~/`, `./`, `C:\`) or at the start of a run of path
 * characters: without that lookbehind the engine tried every position inside every word,
 * each scanning to the word's end (quadratic in the word; the hook's hottest line). The
 * matches are the same, as a match inside a run would have matched from its start.
 */
const PATH = new RegExp(
  String.raw`(?:[A-Za-z]:\\|~\/|\.{1,2}\/|\/|(?<![\w.@+-]))(?:[\w.@+-]+[/\\])+[\w.@+-]*[\w@+-]|\b[\w-]+(?:\.[\w-]+)*\.(?:${FILE_EXTENSIONS})\b`,
  'gi',
);
const ROOTED = /^(?:[A-Za-z]:\\|~\/|\.{1,2}\/|\/)/;
const HAS_EXTENSION = new RegExp(String.raw`\.(?:${FILE_EXTENSIONS})$`, 'i');
/** Dotted names (obj.method, a.b.c; whole, before their parts), camelCase, PascalCase with an inner capital, snake_case. */
const IDENTIFIER =
  /\b(?:[A-Za-z_$][\w$]+(?:\.[A-Za-z_$][\w$]+)+|[a-z_$][\w$]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Za-z]\w*_\w+)\b/g;
/**
 * Versions (v1.2, 3.11.4) and numbers with a unit (250 ms, 4 GB, 12 passed). Plain numbers
 * are left out (line numbers, timestamps of a transcript, columns of a listing), and so are
 * percentages: progress and usage figures ("95%") are what the product prints itself.
 */
const NUMBER =
  /\bv\d+\.\d+(?:\.\d+){0,2}(?:[-+][\w.]+)?\b|\b\d+\.\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?\b|\b\d+(?:\.\d+)?\s?(?:ms|µs|ns|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|KiB|MiB|GiB|TiB|KB|MB|GB|TB|kB|B|bytes?|tokens?|lines?|files?|tests?|passed|failed|errors?|warnings?|skipped|items?|rows?|requests?|req\/s|ops\/s|fps|MHz|GHz|px|°C)(?![\w/])/g;
const URL = /\bhttps?:\/\/[^\s<>"'`)\]}]+/g;

/** The product's own words: refs, its tools, its markers. Never facts of the agent's work. */
const OWN_NOISE =
  /^(?:trim_[0-9a-f]+|tool_output_cache(?:_grep)?|history_recall|output_ref|compaction_id|condense_id|condense_parent|truncation_parent)$/;

/** Lines that name what went wrong: `ValueError: x`, `E999 SyntaxError`, `FAIL test`, `fatal: x`, `npm ERR!`. */
const STRONG_ERROR =
  /\b\w*(?:Error|Exception)(?:\[\w+\])?:\s*\S|^\s*(?:[-*]\s+)?E\d{3,4}\b|\bFAIL(?:ED)?\b|^\s*(?:fatal|panic|error)(?:\[\w+\])?:|^npm ERR!|^\s*ERROR\b/;
/** Every strong or weak error line has one of these words: the cheap test before the others. */
const ERROR_WORD = /error|exception|fail|fatal|panic|ERR!|\bE\d{3,4}\b/i;
const ERROR_WORD_G = new RegExp(ERROR_WORD.source, 'gi');
/** Lines that only mention a failure; used when a result has no strong line. */
const WEAK_ERROR = /\b(?:error|errors|exception|fatal|panic|failed|failure)\b/i;
const NOT_AN_ERROR =
  /\b(?:no|0|zero|without)\s+(?:errors?|failures?)\b|^Traceback \(most recent call last\):$/i;
/** Code that names an error without one happening: handlers, raises, class definitions, imports. */
const CODE_LINE =
  /^\s*(?:except|catch|raise|throw|class|def|function|import|from|if|elif|else|return|const|let|var|export|public|private|protected|static|#|\/\/|\/\*|\*)\b|^\s*[@}{]|=>|\bnew \w*Error\(/;
/** Numbered source lines (`cat -n`, SWE-agent's viewer, grep -n): file content, not output. */
const LISTING_LINE = /^\s*\d+[:|\t]|^[\w./-]+:\d+:/;
const MAX_ERROR_LINE = 220;
const ERRORS_PER_TEXT = 3;

export interface TextFacts {
  urls: string[];
  paths: string[];
  numbers: string[];
  identifiers: string[];
}

/** Every kind a text holds, read in one pass over its scannable part (the span extractor's hot path). */
export function textFacts(text: string): TextFacts {
  const bounded = scannable(text);
  const urls = urlsIn(bounded);
  const prepared = urls.length > 0 ? bounded.replace(URL, ' ') : bounded;
  const paths = pathsIn(prepared);
  return { urls, paths, numbers: numbersIn(prepared), identifiers: identifiersIn(prepared, paths) };
}

/** Prose without its fenced code blocks (code is a proposal or a paste, not what was said). */
export function proseOf(content: string): string {
  return content.replace(/```[\s\S]*?(?:```|$)/g, ' ');
}

export function findUrls(text: string): string[] {
  return urlsIn(scannable(text));
}

export function findPaths(text: string): string[] {
  return pathsIn(withoutUrls(text));
}

export function findIdentifiers(text: string): string[] {
  const prepared = withoutUrls(text);
  return identifiersIn(prepared, pathsIn(prepared));
}

export function findNumbers(text: string): string[] {
  return numbersIn(withoutUrls(text));
}

function urlsIn(text: string): string[] {
  return [...text.matchAll(URL)].map((m) => m[0].replace(/[.,:;!?]+$/, ''));
}

function pathsIn(prepared: string): string[] {
  const out: string[] = [];
  for (const m of prepared.matchAll(PATH)) {
    const candidate = m[0].replace(/[.,:;)]+$/, '');
    if (isPath(candidate)) out.push(candidate);
  }
  return out;
}

function identifiersIn(prepared: string, paths: readonly string[]): string[] {
  const out: string[] = [];
  const exact = new Set(paths);
  // One search in the joined paths, not one per path: a long output names hundreds of both.
  // A name holds no newline, so it cannot match across two of them.
  const pieces = paths.filter((p) => /[/\\.]/.test(p)).join('\n');
  for (const m of prepared.matchAll(IDENTIFIER)) {
    const name = m[0];
    if (OWN_NOISE.test(name) || /^\d/.test(name)) continue;
    // A file name (README.md) or a piece of a path is a path, not a name.
    if (exact.has(name) || pieces.includes(name)) continue;
    out.push(name);
  }
  return out;
}

function numbersIn(prepared: string): string[] {
  return [...prepared.matchAll(NUMBER)].map((m) => m[0].replace(/\s+/g, ' '));
}

/** Folder names that make `a/b/c` a path rather than prose (`red/green/blue`). */
const CODE_DIRS =
  /^(?:src|lib|libs|test|tests|spec|docs?|app|apps|bin|pkg|cmd|internal|packages|node_modules|scripts|config|configs|build|dist|out|public|assets|components|pages|api|core|server|client|utils|include|vendor|tmp|var|etc|usr|home|opt)$/;

/**
 * A path is rooted, names a file (`x.ts`), or has two separators and looks like a folder
 * tree; fractions, dates, `and/or`, `Red/Green/Blue` and framework names (`Next.js`) are not.
 */
export function isPath(text: string): boolean {
  if (text.length < 3 || /^[\d/.:-]+$/.test(text) || OWN_NOISE.test(text)) return false;
  if (/^\/+$/.test(text) || /\/\//.test(text)) return false;
  if (ROOTED.test(text)) return /[\w]/.test(text.slice(1));
  const segments = text.split(/[/\\]/);
  const last = segments.at(-1)!;
  if (segments.length === 1) return HAS_EXTENSION.test(text) && !/^[A-Z][a-z]+\.js$/.test(text);
  if (HAS_EXTENSION.test(last)) return true;
  if (segments.length < 3) return false;
  return segments.some((s) => CODE_DIRS.test(s) || /[_\-\d]/.test(s));
}

/** Longer runs without a space (base64, minified code, a hex dump) hold no fact worth listing. */
const MAX_WORD = 300;
/** How much of a long text is read at its start; its end is read further (OUTPUT_TAIL). */
const OUTPUT_HEAD = 8 * 1024;
const TEXT_HEAD = 16 * 1024;
const OUTPUT_TAIL = 32 * 1024;

/**
 * The parts of a long output that say how it ended: status lines and errors sit at the
 * start (a refusal) or the end (a stack, an exit code). The middle of a multi-megabyte
 * build log is not read.
 */
export function headAndTail(text: string, head = OUTPUT_HEAD): string {
  if (text.length <= head + OUTPUT_TAIL) return text;
  return `${text.slice(0, head)}\n${text.slice(-OUTPUT_TAIL)}`;
}

/**
 * The part of a text the finders read. Bounding both the text and its words keeps every
 * regex here linear: a path pattern backtracks over a word, so a 6 MB word would take hours.
 */
export function scannable(text: string): string {
  // One text is often read by several finders in a row (an output's errors, then its URLs).
  if (text === lastScanned.text) return lastScanned.result;
  const result = withoutLongWords(headAndTail(text, TEXT_HEAD));
  lastScanned = { text, result };
  return result;
}

let lastScanned = { text: '', result: '' };

/**
 * The text with every run of MAX_WORD or more non-space characters replaced by a space. A
 * loop, not `/\S{300,}/g`: that regex restarts at every character of every word (the
 * extractor's hottest line on code-heavy contexts).
 */
function withoutLongWords(text: string): string {
  let out: string[] | undefined;
  let kept = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (!isSpace(code)) continue;
    if (i - runStart >= MAX_WORD) {
      out ??= [];
      out.push(text.slice(kept, runStart), ' ');
      kept = i;
    }
    runStart = i + 1;
  }
  if (!out) return text;
  out.push(text.slice(kept));
  return out.join('');
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000;
}

function withoutUrls(text: string): string {
  const bounded = scannable(text);
  return bounded.includes('://') ? bounded.replace(URL, ' ') : bounded;
}

/**
 * Error lines of a tool's output: the last few lines that name an error (a stack ends with
 * what went wrong), else (unless `weak` is false) the last line that mentions a failure. Code that names an error
 * and listings of file content are skipped.
 */
export function findErrorLines(text: string, options: { weak?: boolean } = {}): string[] {
  if (!text) return [];
  const bounded = scannable(text);
  // Most outputs name no failure at all: one cheap test spares every per-line pattern.
  if (!ERROR_WORD.test(bounded)) return [];
  const strong: string[] = [];
  const weak: string[] = [];
  for (const raw of linesWith(bounded, ERROR_WORD_G)) {
    const line = raw.trim();
    if (!line || line.length > 2000 || LISTING_LINE.test(raw) || NOT_AN_ERROR.test(line)) continue;
    if (CODE_LINE.test(raw)) continue;
    const into = STRONG_ERROR.test(line) ? strong : WEAK_ERROR.test(line) ? weak : undefined;
    if (!into) continue;
    const clean = oneLine(line.replace(/^[-*]\s+/, ''), MAX_ERROR_LINE);
    if (!into.includes(clean)) into.push(clean);
    if (into.length > ERRORS_PER_TEXT) into.shift();
  }
  if (strong.length > 0) return strong;
  return options.weak === false ? [] : weak.slice(-1);
}

/**
 * The lines of `text` that `pattern` (global) matches in, in order: found by the pattern's
 * own scan rather than by splitting a long output into lines and testing each.
 */
function* linesWith(text: string, pattern: RegExp): Generator<string> {
  pattern.lastIndex = 0;
  while (pattern.exec(text) !== null) {
    const at = pattern.lastIndex - 1;
    const start = text.lastIndexOf('\n', at) + 1;
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    yield text.slice(start, end);
    if (end >= text.length) return;
    pattern.lastIndex = end + 1;
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
