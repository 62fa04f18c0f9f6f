import type { z } from 'zod';
import type { ApiErrorInfo } from './api-result';
import { WORKBENCH_CONTRACT } from './contract';
import type { OperationName } from './operation-names';
import type { ApiParsedInput } from './workbench-api';

/** `patch.llm.provider`, `status[0]`: the zod issue path as a person would write it. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    const name = String(segment);
    return out === '' ? name : `${out}.${name}`;
  }, '');
}

/** One clear line naming the first offending field (and how many more there are). */
export function describeIssues(operation: string, error: z.ZodError): ApiErrorInfo {
  const first = error.issues[0];
  const field = first ? issuePath(first.path) : '';
  const unknownKeys =
    first?.code === 'unrecognized_keys' ? ` (${first.keys.map((k) => `"${k}"`).join(', ')})` : '';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  const where = field === '' ? 'input' : field;
  return {
    code: 'bad_input',
    message: `${operation}: ${where}: ${first?.message ?? 'invalid input'}${unknownKeys}${more}`,
    ...(field !== '' && { field }),
  };
}

/** Validates an operation's raw input (absent input counts as `{}`). */
export function validateInput<K extends OperationName>(
  name: K,
  raw: unknown,
): { ok: true; value: ApiParsedInput<K> } | { ok: false; error: ApiErrorInfo } {
  const schema: z.ZodType = WORKBENCH_CONTRACT[name].input;
  const parsed = schema.safeParse(raw === undefined || raw === null ? {} : raw);
  if (parsed.success) return { ok: true, value: parsed.data as ApiParsedInput<K> };
  return { ok: false, error: describeIssues(name, parsed.error) };
}
