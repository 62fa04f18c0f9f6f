/**
 * A strategy parameter as the picker edits it: its kind comes from the server's default
 * value (the strategies' own parameter interfaces: numbers, nullable numbers and strings,
 * string lists), its limits from its name, so every strategy's parameters are editable
 * without a form per strategy. A structured value (an object, such as `fact_ledger`) is not
 * editable here: it is shown as config.yaml sets it and never sent, so the server's value applies.
 */
export type ParamKind = 'number' | 'integer' | 'boolean' | 'text' | 'list' | 'fixed';

export interface ParamSpec {
  name: string;
  kind: ParamKind;
  /** null allowed (the strategy then derives or uses its built-in value). */
  nullable: boolean;
  min?: number;
  max?: number;
}

export type ParamError =
  | { key: 'invalidNumber' }
  | { key: 'invalidInteger' }
  | { key: 'invalidRange'; min: number; max: number }
  | { key: 'invalidMin'; min: number };

export type ParamValue = string | number | boolean | null | string[];

// Known shapes of the seven strategies' parameters (see each strategy's Params interface).
const RATIO = /(_ratio|^fraction|compression_threshold)$/;
const PERCENT = /_percent$/;
const INTEGER =
  /(messages|_turns|_tokens|_bytes|_length|_chars|_nodes|_depth|_children|_compress|^token_threshold)$/;

export function paramSpec(name: string, defaultValue: unknown): ParamSpec {
  const nullable = defaultValue === null;
  if (defaultValue !== null && typeof defaultValue === 'object' && !Array.isArray(defaultValue))
    return { name, kind: 'fixed', nullable: false };
  if (Array.isArray(defaultValue)) return { name, kind: 'list', nullable: false };
  if (typeof defaultValue === 'boolean') return { name, kind: 'boolean', nullable: false };
  if (RATIO.test(name)) return { name, kind: 'number', nullable, min: 0, max: 1 };
  if (PERCENT.test(name)) return { name, kind: 'number', nullable, min: 5, max: 100 };
  if (typeof defaultValue === 'number' || INTEGER.test(name)) {
    const integer =
      INTEGER.test(name) || (typeof defaultValue === 'number' && Number.isInteger(defaultValue));
    return { name, kind: integer ? 'integer' : 'number', nullable, min: 0 };
  }
  return { name, kind: 'text', nullable };
}

/** The text a field shows for a value. */
export function paramText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join('\n');
  if (typeof value === 'object')
    return Object.entries(value)
      .map(
        ([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`,
      )
      .join(', ');
  return String(value);
}

/** The value a field's text stands for, or why it is not valid. */
export function parseParam(
  spec: ParamSpec,
  text: string,
): { ok: true; value: ParamValue } | { ok: false; error: ParamError } {
  const trimmed = text.trim();
  switch (spec.kind) {
    case 'fixed':
      // never sent (see ParamKind): callers skip it
      return { ok: true, value: null };
    case 'boolean':
      return { ok: true, value: trimmed === 'true' };
    case 'list':
      return {
        ok: true,
        value: text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      };
    case 'text':
      return { ok: true, value: trimmed === '' && spec.nullable ? null : text };
    case 'number':
    case 'integer': {
      if (trimmed === '' && spec.nullable) return { ok: true, value: null };
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n))
        return { ok: false, error: { key: 'invalidNumber' } };
      if (spec.kind === 'integer' && !Number.isInteger(n))
        return { ok: false, error: { key: 'invalidInteger' } };
      if (spec.max !== undefined && spec.min !== undefined && (n < spec.min || n > spec.max))
        return { ok: false, error: { key: 'invalidRange', min: spec.min, max: spec.max } };
      if (spec.min !== undefined && n < spec.min)
        return { ok: false, error: { key: 'invalidMin', min: spec.min } };
      return { ok: true, value: n };
    }
  }
}
