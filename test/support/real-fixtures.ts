import path from 'node:path';
import { REPO_ROOT } from './run-ts';

/**
 * The real transcripts written by other agents, kept inside the repository so that a clone
 * with nothing beside it passes its tests (test/fixtures/real/README.md names each file's
 * origin and license). Every test, bench group and script finds them through this module.
 */
export const REAL_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'real');

/** A file under the real-fixtures folder, e.g. `realFixture('swe-agent', 'x.traj')`. */
export function realFixture(...parts: string[]): string {
  return path.join(REAL_FIXTURES, ...parts);
}
