import { useEffect, useMemo, useState } from 'react';
import type { ToolCallRow } from '../../../../shared/api/task-view-api';
import { useApi } from '../../api/api-context';
import { StatePanel } from '../../components/state-panel';
import { useT } from '../../i18n/use-t';
import { argsText } from './format';
import { taskStrings, type TaskStringKey } from './strings';

type ToolsState =
  { kind: 'loading' } | { kind: 'ready'; rows: ToolCallRow[] } | { kind: 'error'; message: string };
type SortKey = 'seq' | 'tool' | 'status' | 'duration_ms' | 'error';

const COLUMNS: { key: SortKey; label: TaskStringKey; numeric?: boolean }[] = [
  { key: 'seq', label: 'seq', numeric: true },
  { key: 'tool', label: 'tool' },
  { key: 'status', label: 'status' },
  { key: 'duration_ms', label: 'duration', numeric: true },
  { key: 'error', label: 'error' },
];

function sortValue(row: ToolCallRow, key: SortKey): string | number {
  if (key === 'seq') return row.message_seq ?? row.seq;
  if (key === 'duration_ms') return row.duration_ms;
  return String(row[key] ?? '');
}

/** tools.jsonl as a sortable table; a row jumps to the call in the timeline. */
export function ToolsTab({
  uuid,
  revision,
  onJump,
}: {
  uuid: string;
  revision: number;
  onJump(seq: number): void;
}) {
  const api = useApi();
  const t = useT(taskStrings);
  const [state, setState] = useState<ToolsState>({ kind: 'loading' });
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'seq', desc: false });
  useEffect(() => {
    let live = true;
    api.listToolCalls({ uuid, limit: 5000 }).then(
      (list) => live && setState({ kind: 'ready', rows: list.records }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);
  const rows = useMemo(() => {
    if (state.kind !== 'ready') return [];
    const sorted = [...state.rows].sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return sort.desc ? sorted.reverse() : sorted;
  }, [state, sort]);

  if (state.kind === 'loading') return <StatePanel tone="loading" title={t('toolsLoading')} />;
  if (state.kind === 'error')
    return (
      <StatePanel tone="error" title={t('loadError')}>
        {state.message}
      </StatePanel>
    );
  if (state.rows.length === 0) return <StatePanel tone="empty" title={t('toolsEmpty')} />;
  return (
    <table className="tv-table tv-tools">
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th
              key={c.key}
              className={c.numeric ? 'num' : ''}
              aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
            >
              <button
                type="button"
                className="tv-sort"
                onClick={() =>
                  setSort((s) => ({ key: c.key, desc: s.key === c.key ? !s.desc : false }))
                }
              >
                {t(c.label)}
                {sort.key === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
              </button>
            </th>
          ))}
          <th>{t('args')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr
            key={r.seq}
            className={r.message_seq ? 'tv-clickable' : ''}
            title={r.message_seq ? t('jumpToCall') : undefined}
            onClick={() => r.message_seq && onJump(r.message_seq)}
          >
            <td className="num">{r.message_seq ? `#${r.message_seq}` : '—'}</td>
            <td>{r.tool ?? r.tool_name}</td>
            <td>
              <span className={r.status === 'error' ? 'tv-pill tv-pill-error' : 'tv-pill'}>
                {r.status === 'error' ? t('error') : t('success')}
              </span>
            </td>
            <td className="num">{r.duration_ms} ms</td>
            <td className="tv-cell-error">{r.error ?? ''}</td>
            <td>
              <code className="tv-call-args">{argsText(r.args ?? r.arguments)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
