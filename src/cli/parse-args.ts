import { CwbError } from '../core/errors';
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
