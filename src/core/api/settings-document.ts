import fs from 'node:fs';
import YAML, { type Document } from 'yaml';
import { REDACTED_SECRET } from '../../shared/api/settings-api';
import { badInput } from '../errors';
import { sourceLocation, type KeyPath } from './settings-keys';

/**
 * config.yaml as a YAML document (not a plain object), so a change rewrites only the
 * values it touches: comments, key order, `${VAR}` references and other tools' sections
 * stay exactly as the user wrote them.
 */
export function readConfigDocument(file: string): Document {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) {
    throw badInput(`${file}: cannot edit the file: ${doc.errors[0]!.message}`);
  }
  return doc;
}

export interface Leaf {
  key: string[];
  value: unknown;
}

/** Every setting in an object, arrays taken whole (`compaction.pipeline` is one value). */
export function leaves(value: unknown, prefix: string[] = []): Leaf[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return prefix.length ? [{ key: prefix, value }] : [];
  }
  return Object.entries(value).flatMap(([k, v]) =>
    v === undefined ? [] : leaves(v, [...prefix, k]),
  );
}

export function valueAt(value: unknown, key: KeyPath): unknown {
  let current = value;
  for (const k of key) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[k];
  }
  return current;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Writes the patch into the document and returns the settings it changed. A value equal
 * to the effective one (or to what the UI was shown, "***" included) is left alone, so a
 * form sent back whole never turns a `${VAR}` into the secret it expands to. null removes
 * the setting from every place it could be (its default applies again).
 */
export function applyPatch(
  doc: Document,
  patch: readonly Leaf[],
  effective: unknown,
  shown: unknown,
): string[] {
  const changed: string[] = [];
  for (const { key, value } of patch) {
    if (value === REDACTED_SECRET) continue;
    if (sameValue(value, valueAt(effective, key)) || sameValue(value, valueAt(shown, key)))
      continue;
    const location = sourceLocation(key);
    if (value === null) {
      for (const place of location.precedence) doc.deleteIn(place);
    } else {
      const place = location.precedence.find((p) => doc.hasIn(p)) ?? location.home;
      doc.setIn(place, value);
    }
    changed.push(key.join('.'));
  }
  return changed;
}

/** Settings the file gives as `${VAR}` references, as written (safe to show). */
export function referencesIn(doc: Document, keys: readonly KeyPath[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const key of keys) {
    const place = sourceLocation(key).precedence.find((p) => doc.hasIn(p));
    const written = place ? doc.getIn(place) : undefined;
    if (typeof written === 'string' && /\$\{[A-Za-z_]/.test(written))
      found[key.join('.')] = written;
  }
  return found;
}
