import crypto from 'node:crypto';

const WORDS = [
  'read',
  'file',
  'patch',
  'error',
  'test',
  'build',
  'src/app.ts',
  'ok',
  '42',
  'コンテキスト',
];

/**
 * Message content that carries its own sha256, so a reader can prove it arrived intact.
 * Used by the fault tests' child processes (no vitest here: children run outside the runner).
 */
export function checkedContent(i: number, words: number): string {
  const bytes = crypto.randomBytes(Math.max(1, words));
  const pad = Array.from(bytes, (b) => WORDS[b % WORDS.length]).join(' ');
  const sha = crypto.createHash('sha256').update(pad).digest('hex');
  return JSON.stringify({ i, pad, sha });
}

export function contentIsIntact(content: string | null): boolean {
  if (content === null) return false;
  const body = JSON.parse(content) as { pad?: unknown; sha?: unknown };
  if (typeof body.pad !== 'string' || typeof body.sha !== 'string') return false;
  return crypto.createHash('sha256').update(body.pad).digest('hex') === body.sha;
}
