import type { Language } from '../state/ui-store';
import { formatNumber } from '../format/numbers';

/**
 * Every UI string exists in English and Japanese. Each feature keeps its own strings beside
 * its code (`strings.ts`: `{ en: {...}, ja: {...} }` with the same keys), so features never
 * edit a shared dictionary. `{name}` placeholders are filled from `vars`; a number is
 * written in the UI's language (1,234), so callers pass numbers, not formatted text.
 * A string that counts something is a `plural(...)`: the form is chosen by
 * Intl.PluralRules for the UI's language (Japanese has one form, English two).
 */
export interface PluralEntry {
  readonly plural: string;
  readonly forms: Partial<Record<Intl.LDMLPluralRule, string>> & { readonly other: string };
}

export type Entry = string | PluralEntry;
export type Strings<K extends string> = Record<Language, Record<K, Entry>>;
export type Vars = Record<string, string | number>;

export function defineStrings<K extends string>(strings: Strings<K>): Strings<K> {
  return strings;
}

/** A counted string: `plural('count', { one: '1 task', other: '{count} tasks' })`. */
export function plural(by: string, forms: PluralEntry['forms']): PluralEntry {
  return { plural: by, forms };
}

const pluralRules = new Map<Language, Intl.PluralRules>();

function pluralForm(language: Language, n: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(language);
  if (!rules) {
    rules = new Intl.PluralRules(language);
    pluralRules.set(language, rules);
  }
  return rules.select(n);
}

/** The text of `key` in `language` (English when a language lacks it), counted and filled. */
export function translate<K extends string>(
  strings: Strings<K>,
  language: Language,
  key: K,
  vars?: Vars,
): string {
  const entry = strings[language][key] ?? strings.en[key];
  if (typeof entry === 'string') return fill(entry, language, vars);
  const count = Number(vars?.[entry.plural]);
  const form = Number.isFinite(count) ? pluralForm(language, count) : 'other';
  return fill(entry.forms[form] ?? entry.forms.other, language, vars);
}

export function fill(text: string, language: Language, vars?: Vars): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => {
    if (!(name in vars)) return m;
    const value = vars[name]!;
    return typeof value === 'number' ? formatNumber(value, language) : value;
  });
}
