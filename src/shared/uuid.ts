/**
 * Task ids are UUID v4 (seed 000 §4.6). They become folder names, so they are checked
 * against this exact shape before they touch any path: nothing like `../x`, an absolute
 * path or a NUL byte can pass.
 */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function isTaskUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_V4.test(value);
}
