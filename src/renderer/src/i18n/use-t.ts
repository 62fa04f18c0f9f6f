import { useUiStore, type Language } from '../state/ui-store';

/**
 * Every UI string exists in English and Japanese. Each feature keeps its own strings beside
 * its code (`strings.ts`: `{ en: {...}, ja: {...} }` with the same keys), so features never
 * edit a shared dictionary. `{name}` placeholders are filled from `vars`.
 */
export type Strings<K extends string> = Record<Language, Record<K, string>>;

export function defineStrings<K extends string>(strings: Strings<K>): Strings<K> {
  return strings;
}

export type Translate<K extends string> = (
  key: K,
  vars?: Record<string, string | number>,
) => string;

export function useT<K extends string>(strings: Strings<K>): Translate<K> {
  const language = useUiStore((s) => s.language);
  return (key, vars) => fill(strings[language][key] ?? strings.en[key], vars);
}

export function fill(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
