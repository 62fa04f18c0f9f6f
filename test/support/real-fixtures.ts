import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './run-ts';

/**
 * The real transcripts in ../shared/fixtures/real. The repository sits beside `shared` in
 * the main checkout, one level deeper in a worktree (wt/<name>): the first that exists wins.
 */
export const REAL_FIXTURES = (() => {
  const candidates = [
    path.resolve(REPO_ROOT, '..', 'shared', 'fixtures', 'real'),
    path.resolve(REPO_ROOT, '..', '..', 'shared', 'fixtures', 'real'),
  ];
  return candidates.find((dir) => fs.existsSync(dir)) ?? candidates[0]!;
})();
