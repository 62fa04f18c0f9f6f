import { useUiStore } from '../state/ui-store';
import { translate, type Strings, type Vars } from './translate';

export { defineStrings, plural, translate, type Strings } from './translate';

export type Translate<K extends string> = (key: K, vars?: Vars) => string;

export function useT<K extends string>(strings: Strings<K>): Translate<K> {
  const language = useUiStore((s) => s.language);
  return (key, vars) => translate(strings, language, key, vars);
}
