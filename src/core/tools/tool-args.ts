import { z } from 'zod';

export type ParsedArguments<A> = { ok: true; value: A } | { ok: false; message: string };

/**
 * Parses a tool call's `arguments` string and validates it, turning every problem into one
 * sentence that names the field, because the model reads it and retries.
 */
export function parseArguments<A>(
  toolName: string,
  schema: z.ZodType<A>,
  argumentsJson: string,
): ParsedArguments<A> {
  let raw: unknown;
  // Some providers send "" for a call without arguments.
  if (argumentsJson.trim() === '') raw = {};
  else {
    try {
      raw = JSON.parse(argumentsJson);
    } catch (err) {
      return {
        ok: false,
        message: `the arguments of ${toolName} are not valid JSON (${(err as Error).message}); send one JSON object`,
      };
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const kind = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw;
    return {
      ok: false,
      message: `the arguments of ${toolName} must be a JSON object, got ${kind}`,
    };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => describeIssue(issue, raw));
  const unknown = unknownFields(schema, raw);
  const hint = unknown.length > 0 ? ` (unknown fields: ${unknown.join(', ')})` : '';
  return { ok: false, message: `invalid arguments for ${toolName}: ${problems.join('; ')}${hint}` };
}

/**
 * An optional argument. OpenAI's strict mode sends null for optional fields, so null means
 * "not given" too.
 */
export function optional<T extends z.ZodType>(
  schema: T,
): z.ZodType<z.output<T> | undefined, z.input<T> | null | undefined> {
  return schema.nullish().transform((value) => value ?? undefined) as z.ZodType<
    z.output<T> | undefined,
    z.input<T> | null | undefined
  >;
}

function describeIssue(issue: z.core.$ZodIssue, raw: object): string {
  const field = issue.path.length > 0 ? `"${issue.path.map(String).join('.')}"` : 'the arguments';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = expectedName(issue.expected);
      const value = valueAt(raw, issue.path);
      if (value === undefined) return `${field} is required (${expected})`;
      return `${field} must be ${expected}, got ${describeValue(value)}`;
    }
    case 'too_small':
      if (issue.origin === 'string') return `${field} must not be empty`;
      return `${field} must be at least ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string')
        return `${field} must be at most ${String(issue.maximum)} characters`;
      return `${field} must be at most ${String(issue.maximum)}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

function expectedName(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'object':
    case 'array':
      return `an ${expected}`;
    default:
      return `a ${expected}`;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : String(value);
  return `a ${typeof value}`;
}

function valueAt(raw: object, at: readonly PropertyKey[]): unknown {
  let value: unknown = raw;
  for (const key of at) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Fields the schema does not know: usually the model's misspelling of a required one. */
function unknownFields(schema: z.ZodType, raw: object): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const known = new Set(Object.keys(schema.shape));
  return Object.keys(raw).filter((key) => !known.has(key));
}
