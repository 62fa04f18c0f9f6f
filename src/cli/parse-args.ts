import { CwbError } from '../core/errors';

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
