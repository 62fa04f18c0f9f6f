import { CwbError } from '../core/errors';
import {
  candidateLabel,
  parseCandidate,
  type Candidate,
} from '../core/compaction/evaluate-compaction';
import { STRATEGY_NAMES, isStrategyName, type StrategyName } from '../shared/strategy-names';

/** A whole number from a flag, within bounds; otherwise a usage error naming the flag. */
export function parseCount(
  flag: string,
  value: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new CwbError(
      'usage',
      `${flag}: ${JSON.stringify(value)} is not a whole number from ${min} to ${max}`,
    );
  }
  return n;
}

export function parseChoice<T extends string>(
  flag: string,
  value: string,
  allowed: readonly string[],
): T {
  if (!allowed.includes(value)) {
    throw new CwbError(
      'usage',
      `${flag}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`,
    );
  }
  return value as T;
}

/** A comma-separated list of compaction strategies, each checked. */
export function parseStrategies(flag: string, value: string): StrategyName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CwbError('usage', `${flag}: name at least one strategy`);
  for (const n of names) {
    if (!isStrategyName(n)) {
      throw new CwbError(
        'usage',
        `${flag}: "${n}" is not a strategy (use ${STRATEGY_NAMES.join(', ')})`,
      );
    }
  }
  return names as StrategyName[];
}

/**
 * `extractive,tool-output-trim+summarize`: candidates to score, a comma between
 * candidates and a + between the steps of a pipeline; each named once.
 */
export function parseCandidates(flag: string, value: string): Candidate[] {
  const texts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (texts.length === 0) {
    throw new CwbError('bad_input', `${flag}: name at least one strategy or pipeline`);
  }
  const byLabel = new Map<string, Candidate>();
  for (const text of texts) {
    let candidate: Candidate;
    try {
      candidate = parseCandidate(text);
    } catch (err) {
      throw err instanceof CwbError ? new CwbError(err.code, `${flag}: ${err.message}`) : err;
    }
    byLabel.set(candidateLabel(candidate), candidate);
  }
  return [...byLabel.values()];
}
