import { SegmentedControl } from '../../components/segmented-control';
import { useT } from '../../i18n/use-t';
import { scopeStrings } from './scope-strings';
import { useSearchStore, type SearchScope } from './search-store';

/** Tasks (titles and prompts) or messages: what the task list's search box searches. */
export function SearchScopeControl({ text }: { text: string }) {
  const t = useT(scopeStrings);
  const { scope, values, setScope, setValues } = useSearchStore();
  return (
    <SegmentedControl<SearchScope>
      name="search-scope"
      label={t('scope')}
      value={scope}
      onChange={(next) => {
        // What was typed goes along, so switching asks the same question of the other.
        if (next === 'messages' && text && !values.query) setValues({ ...values, query: text });
        setScope(next);
      }}
      options={[
        { value: 'tasks', label: t('scopeTasks') },
        { value: 'messages', label: t('scopeMessages') },
      ]}
    />
  );
}
