import { z } from 'zod';
import { isTaskUuid } from '../uuid';

/** A task id: checked against the exact UUID v4 shape before it can reach a path. */
export const taskUuidSchema = z
  .string()
  .refine(isTaskUuid, 'expected a task id (a lowercase UUID v4)');

/** An operation that takes a task and nothing else. */
export const taskRefInput = z.strictObject({ uuid: taskUuidSchema });

/** A path on the host's machine: absolute, no NUL byte (it goes to the file system as is). */
export const hostPathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0'), 'a path cannot contain a NUL byte')
  .refine(
    (p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\'),
    'expected an absolute path',
  );

/** An ISO 8601 date or date-time, compared as text with tasks.db's ISO timestamps. */
export const isoDateSchema = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'expected an ISO date');

/** A line that could not be read back, with where it sits (reported, never thrown). */
export interface BadLineInfo {
  file: string;
  lineNo: number;
  error: string;
}

/** Operations without input accept nothing or an empty object. */
export const noInput = z.strictObject({});
