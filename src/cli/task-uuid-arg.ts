import { assertTaskUuid } from '../core/store/contexts-layout';

/** Task ids from the command line: case-insensitive, validated before they reach any path. */
export function parseTaskUuidArg(value: string): string {
  return assertTaskUuid(value.trim().toLowerCase());
}
