import { forwardRef, type ReactNode } from 'react';
import type { FacetValue, TaskFacets } from '../../../../shared/api/tasks-api';
import { TASK_STATUSES, type TaskStatus } from '../../../../shared/task-types';
import { statusStrings } from '../../components/status-strings';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { DateRangeFilter } from './date-range-filter';
import { NO_FILTERS, type FilterValues } from './filter-values';
import { browserStrings } from './strings';
import { OWN_AGENT } from './task-query';
import { agentLabel } from '../../../../shared/agents';

interface Props {
  values: FilterValues;
  facets: TaskFacets | null;
  /** False while the counts shown are the previous query's. */
  facetsCurrent: boolean;
  onChange(values: FilterValues): void;
  /** Shown before the search box (what the box searches: tasks or messages). */
  lead?: ReactNode;
}

/** Search, status chips (with counts) and the facet pickers; the store answers all of them. */
export const TaskFilters = forwardRef<HTMLInputElement, Props>(function TaskFilters(
  { values, facets, facetsCurrent, onChange, lead },
  searchRef,
) {
  const t = useT(browserStrings);
  const ts = useT(statusStrings);
  const f = useFormat();
  const set = (patch: Partial<FilterValues>): void => onChange({ ...values, ...patch });
  const toggle = (status: TaskStatus): void =>
    set({
      status: values.status.includes(status)
        ? values.status.filter((s) => s !== status)
        : [...values.status, status],
    });
  const dirty = JSON.stringify(values) !== JSON.stringify(NO_FILTERS);
  return (
    <div className="task-filters">
      {lead}
      <input
        ref={searchRef}
        type="search"
        className="search-input"
        placeholder={t('search')}
        aria-label={t('search')}
        title={t('searchHint')}
        value={values.search}
        onChange={(e) => set({ search: e.target.value })}
        onKeyDown={(e) => {
          // ↓ from the search box goes on to the results, like a combobox.
          if (e.key !== 'ArrowDown') return;
          const grid = document.querySelector<HTMLElement>('.task-grid');
          if (!grid) return;
          e.preventDefault();
          grid.focus();
        }}
      />
      <div
        className={facetsCurrent ? 'status-chips' : 'status-chips status-chips-stale'}
        role="group"
        aria-label={t('colStatus')}
        aria-busy={!facetsCurrent}
      >
        {TASK_STATUSES.map((s) => (
          <button
            key={s}
            type="button"
            className={`chip chip-${s}`}
            aria-pressed={values.status.includes(s)}
            data-status={s}
            onClick={() => toggle(s)}
          >
            {ts(s)}
            {facets && <span className="chip-count">{f.number(facets.status[s])}</span>}
          </button>
        ))}
      </div>
      <FacetSelect
        label={t('allAgents')}
        name="agent"
        value={values.agent}
        options={(facets?.agents ?? []).map((o) => ({
          value: o.value === '' ? OWN_AGENT : o.value,
          count: o.count,
        }))}
        display={(v) => (v === OWN_AGENT ? t('ownAgent') : agentLabel(v, t('ownAgent')))}
        onChange={(agent) => set({ agent })}
      />
      <FacetSelect
        label={t('allRepos')}
        name="repo"
        value={values.repo}
        options={facets?.repos ?? []}
        onChange={(repo) => set({ repo })}
      />
      <FacetSelect
        label={t('allUsers')}
        name="user"
        value={values.user}
        options={facets?.users ?? []}
        onChange={(user) => set({ user })}
      />
      <FacetSelect
        label={t('allModels')}
        name="model"
        value={values.model}
        options={facets?.models ?? []}
        onChange={(model) => set({ model })}
      />
      <FacetSelect
        label={t('allHosts')}
        name="host"
        value={values.host}
        options={facets?.hosts ?? []}
        onChange={(host) => set({ host })}
      />
      <DateRangeFilter from={values.from} to={values.to} onChange={(days) => set(days)} />
      {dirty && (
        <button type="button" className="link-button" onClick={() => onChange(NO_FILTERS)}>
          {t('clear')}
        </button>
      )}
    </div>
  );
});

function FacetSelect(props: {
  label: string;
  name: string;
  value: string;
  options: FacetValue[];
  display?(value: string): string;
  onChange(value: string): void;
}) {
  const f = useFormat();
  return (
    <select
      name={props.name}
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      <option value="">{props.label}</option>
      {props.options.map((o) => (
        <option key={o.value} value={o.value}>
          {props.display ? props.display(o.value) : o.value} ({f.number(o.count)})
        </option>
      ))}
    </select>
  );
}
