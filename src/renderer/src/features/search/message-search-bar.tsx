import { forwardRef, type KeyboardEvent } from 'react';
import { SEARCH_ROLES, type SearchRole } from '../../../../shared/api/search-api';
import type { FacetValue } from '../../../../shared/api/tasks-api';
import { agentLabel } from '../../../../shared/agents';
import { useT } from '../../i18n/use-t';
import { DayField } from '../browser/day-field';
import { browserStrings } from '../browser/strings';
import { OWN_AGENT } from '../browser/task-query';
import { SearchScopeControl } from './search-scope';
import { NO_MESSAGE_SEARCH, type MessageSearchValues } from './search-store';
import { searchStrings } from './strings';

export const ROLE_LABEL = {
  user: 'roleUser',
  assistant: 'roleAssistant',
  reasoning: 'roleReasoning',
  tool: 'roleTool',
  system: 'roleSystem',
} as const satisfies Record<SearchRole, string>;

interface Props {
  values: MessageSearchValues;
  agents: FacetValue[];
  repos: FacetValue[];
  onChange(values: MessageSearchValues): void;
  /** Enter in the query field (search now, or on to the first hit). */
  onEnter(): void;
  /** ↓ in the query field: on to the hits. */
  onDown(): void;
}

/** The message search's field, Exact toggle and the filters the API offers. */
export const MessageSearchBar = forwardRef<HTMLInputElement, Props>(function MessageSearchBar(
  { values, agents, repos, onChange, onEnter, onDown },
  ref,
) {
  const t = useT(searchStrings);
  const tb = useT(browserStrings);
  const set = (patch: Partial<MessageSearchValues>): void => onChange({ ...values, ...patch });
  const onKey = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter') {
      e.preventDefault();
      onEnter();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      onDown();
    }
  };
  const dirty = JSON.stringify({ ...values, query: '' }) !== JSON.stringify(NO_MESSAGE_SEARCH);
  return (
    <div className="task-filters msg-search-bar">
      <SearchScopeControl text="" />
      <input
        ref={ref}
        type="search"
        className="search-input"
        name="message-query"
        placeholder={t('query')}
        aria-label={t('query')}
        title={t('queryHint')}
        value={values.query}
        onChange={(e) => set({ query: e.target.value })}
        onKeyDown={onKey}
      />
      <button
        type="button"
        className="chip"
        name="exact"
        aria-pressed={values.exact}
        title={t('exactHint')}
        onClick={() => set({ exact: !values.exact })}
      >
        {t('exact')}
      </button>
      <select
        name="agent"
        aria-label={tb('allAgents')}
        value={values.agent}
        onChange={(e) => set({ agent: e.target.value })}
      >
        <option value="">{tb('allAgents')}</option>
        {agents.map((o) => {
          const value = o.value === '' ? OWN_AGENT : o.value;
          return (
            <option key={value} value={value}>
              {agentLabel(o.value, tb('ownAgent'))}
            </option>
          );
        })}
      </select>
      <select
        name="repo"
        aria-label={tb('allRepos')}
        value={values.repo}
        onChange={(e) => set({ repo: e.target.value })}
      >
        <option value="">{tb('allRepos')}</option>
        {repos.map((o) => (
          <option key={o.value} value={o.value}>
            {o.value}
          </option>
        ))}
      </select>
      <select
        name="role"
        aria-label={t('anyRole')}
        value={values.role}
        onChange={(e) => set({ role: e.target.value as SearchRole | '' })}
      >
        <option value="">{t('anyRole')}</option>
        {SEARCH_ROLES.map((r) => (
          <option key={r} value={r}>
            {t(ROLE_LABEL[r])}
          </option>
        ))}
      </select>
      <input
        type="text"
        name="tool"
        className="msg-tool-input"
        placeholder={t('tool')}
        aria-label={t('tool')}
        value={values.tool}
        onChange={(e) => set({ tool: e.target.value })}
      />
      <DayField
        name="since"
        label={t('sinceShort')}
        fullLabel={t('since')}
        value={values.since}
        onChange={(since) => set({ since })}
      />
      {dirty && (
        <button
          type="button"
          className="link-button"
          onClick={() => onChange({ ...NO_MESSAGE_SEARCH, query: values.query })}
        >
          {t('clear')}
        </button>
      )}
    </div>
  );
});
