/** Narrowing helpers for JSON from outside (provider answers, context lines). */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object, or an empty one: optional nested fields read as missing. */
export function asObject(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
