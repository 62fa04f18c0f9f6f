import fs from 'node:fs';
import path from 'node:path';
import { japaneseRatio } from '../../src/core/tokens';
import { pick, rng } from './stats';

/**
 * Real text to build contexts and token-counting inputs from, so figures are not
 * measured on `'x'.repeat(n)`: this repo's TypeScript (code), its Markdown prose (English)
 * and Japanese prose lines found in the repository (UI strings, real Claude Code sessions).
 */
export interface Corpora {
  code: string[];
  english: string[];
  japanese: string[];
}

let cached: Corpora | undefined;

export function loadCorpora(repoRoot: string): Corpora {
  if (cached) return cached;
  const code = listFiles(path.join(repoRoot, 'src'))
    .filter((f) => /\.tsx?$/.test(f) && !f.includes('.test.'))
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'))
    .filter((l) => l.length < 1500);
  const markdown = [
    path.join(repoRoot, 'README.md'),
    ...listFiles(path.join(repoRoot, 'docs')).filter(
      (f) => f.endsWith('.md') && !f.endsWith('benchmarks.md'),
    ),
  ];
  const english = markdown.flatMap((f) => proseLines(fs.readFileSync(f, 'utf8')));
  // Japanese prose from inside the repository: the UI's and prompts' Japanese strings and
  // the Japanese turns of the real Claude Code sessions in test/fixtures/real.
  const japaneseSources = [
    ...listFiles(path.join(repoRoot, 'src')).filter((f) => /\.tsx?$/.test(f)),
    ...listFiles(path.join(repoRoot, 'test', 'fixtures', 'real', 'claude-code')),
  ];
  const japanese = japaneseSources
    .flatMap((f) => unescapedLines(fs.readFileSync(f, 'utf8')))
    .filter((l) => l.trim().length > 8 && japaneseRatio(l) >= 0.5);
  cached = { code, english, japanese };
  return cached;
}

/** Lines of a text, with the `\\n` escapes of JSON strings (JSONL transcripts) as line breaks too. */
function unescapedLines(text: string): string[] {
  return text.split(/\n|\\n/);
}

/** Lines outside code fences and tables: sentences. */
function proseLines(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line.startsWith('|') || line.trim().length < 20) continue;
    out.push(line);
  }
  return out;
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : [p];
  });
}

/**
 * About `chars` characters of whole lines: runs of consecutive lines from random places,
 * so the text reads like a file or a document, not like shuffled words.
 */
export function textOfSize(lines: readonly string[], chars: number, random: () => number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < chars) {
    const start = Math.floor(random() * lines.length);
    const run = 20 + Math.floor(random() * 60);
    for (let i = 0; i < run && size < chars; i++) {
      const line = lines[(start + i) % lines.length]!;
      parts.push(line);
      size += line.length + 1;
    }
  }
  return parts.join('\n');
}

/** A tool result as read_file shows it: numbered lines. */
export function numberedLines(text: string, firstLine = 1): string {
  return text
    .split('\n')
    .map((l, i) => `${String(firstLine + i).padStart(6)}\t${l}`)
    .join('\n');
}

export { pick, rng };
