import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useEffect, useMemo, useState } from 'react';
import type { ToolCallRow } from '../../../../shared/api/task-view-api';
import { useApi } from '../../api/api-context';
import { StatePanel } from '../../components/state-panel';
import { useFormat, type Formats } from '../../i18n/use-format';
import { useT, type Translate } from '../../i18n/use-t';
import { argsText } from './format';
import { exitStatusOf } from './edit-call';
import { byteLength } from './tool-call-view';

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
import { taskStrings, type TaskStringKey } from './strings';

type ToolsState =
  | { kind: 'loading' }
  | { kind: 'ready'; rows: ToolCallRow[]; more: boolean }
  | { kind: 'error'; message: string };

const PAGE = 5000;

function columns(
  t: Translate<TaskStringKey>,
  f: Formats,
  onJump: (seq: number) => void,
): ColumnDef<ToolCallRow>[] {
  return [
    {
      id: 'seq',
      header: t('seq'),
      accessorFn: (r) => r.message_seq ?? r.seq,
      meta: { className: 'num tv-col-seq' },
      cell: ({ row: { original: r } }) =>
        r.message_seq ? (
          <button
            type="button"
            className="tv-link"
            title={t('jumpToCall')}
            onClick={(e) => {
              e.stopPropagation();
              onJump(r.message_seq!);
            }}
          >
            #{r.message_seq}
          </button>
        ) : (
          '—'
        ),
    },
    {
      id: 'tool',
      header: t('tool'),
      accessorFn: (r) => r.tool ?? r.tool_name,
      meta: { className: 'tv-col-tool' },
    },
    {
      id: 'status',
      header: t('status'),
      accessorFn: (r) => r.status,
      meta: { className: 'tv-col-status' },
      cell: ({ row: { original: r } }) => (
        <span className={r.status === 'error' ? 'tv-pill tv-pill-error' : 'tv-pill'}>
          {r.status === 'error' ? t('error') : t('success')}
        </span>
      ),
    },
    {
      id: 'duration',
      header: t('duration'),
      accessorFn: (r) => r.duration_ms,
      meta: { className: 'num tv-col-duration' },
      cell: ({ getValue }) => {
        const ms = getValue<number>();
        return ms < 1000 ? t('ms', { n: ms }) : f.duration(ms);
      },
    },
    {
      id: 'when',
      header: t('created'),
      accessorFn: (r) => r.timestamp,
      meta: { className: 'tv-col-when' },
      cell: ({ getValue }) => (
        <time className="tv-muted" dateTime={getValue<string>()}>
          {f.dateTime(getValue<string>())}
        </time>
      ),
    },
    {
      id: 'args',
      header: t('args'),
      enableSorting: false,
      accessorFn: (r) => argsText(r.args ?? r.arguments),
      meta: { className: 'tv-col-args' },
      cell: ({ getValue, row: { original: r } }) => {
        const value = r.args ?? r.arguments;
        const pretty =
          typeof value === 'string' ? prettyJson(value) : JSON.stringify(value ?? null, null, 2);
        // The row opens the call in the timeline; the full arguments show on hover here.
        return (
          <code className="tv-call-args" title={pretty}>
            {getValue<string>()}
          </code>
        );
      },
    },
    {
      id: 'result',
      header: t('resultCol'),
      enableSorting: false,
      accessorFn: (r) => r.error ?? r.result ?? '',
      meta: { className: 'tv-col-result' },
      cell: ({ row: { original: r }, getValue }) => {
        const text = getValue<string>();
        const exit = exitStatusOf(r.result ?? r.error ?? null);
        return (
          <span className="tv-result-cell" title={text.slice(0, 4000)}>
            {exit !== undefined && (
              <span className={`tv-badge ${exit === 0 ? 'tv-exit-ok' : 'tv-exit-fail'}`}>
                {t('exitStatus', { code: exit })}
              </span>
            )}
            {text && <span className="tv-muted">{f.bytes(byteLength(text))}</span>}
            <span className={r.status === 'error' ? 'tv-cell-error tv-ellipsis' : 'tv-ellipsis'}>
              {text || '—'}
            </span>
          </span>
        );
      },
    },
  ];
}

/** tools.jsonl as a sortable table (react-table): each call beside its result; # jumps to the call. */
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
  const f = useFormat();
  const [state, setState] = useState<ToolsState>({ kind: 'loading' });
  const [sorting, setSorting] = useState<SortingState>([{ id: 'seq', desc: false }]);
  useEffect(() => {
    let live = true;
    api.listToolCalls({ uuid, limit: PAGE }).then(
      (list) =>
        live && setState({ kind: 'ready', rows: list.records, more: list.records.length >= PAGE }),
      (err: unknown) =>
        live &&
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, uuid, revision]);
  const data = useMemo(() => (state.kind === 'ready' ? state.rows : []), [state]);
  // Rebuilt when the language changes (f follows it, and t with it); onJump only navigates.
  const cols = useMemo(() => columns(t, f, onJump), [f]);
  const table = useReactTable({
    data,
    columns: cols,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });

  if (state.kind === 'loading') return <StatePanel tone="loading" title={t('toolsLoading')} />;
  if (state.kind === 'error')
    return (
      <StatePanel tone="error" title={t('loadError')}>
        {state.message}
      </StatePanel>
    );
  if (state.rows.length === 0) return <StatePanel tone="empty" title={t('toolsEmpty')} />;
  return (
    <>
      {state.more && <p className="tv-muted">{t('toolsFirst', { n: PAGE })}</p>}
      <table className="tv-table tv-tools">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const className = (h.column.columnDef.meta as { className?: string } | undefined)
                  ?.className;
                return (
                  <th
                    key={h.id}
                    className={className}
                    aria-sort={
                      sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined
                    }
                  >
                    {h.column.getCanSort() ? (
                      <button
                        type="button"
                        className="tv-sort"
                        onClick={h.column.getToggleSortingHandler()}
                      >
                        {flexRender(h.column.columnDef.header, h.getContext())}
                        {sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </button>
                    ) : (
                      flexRender(h.column.columnDef.header, h.getContext())
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr
              key={row.id}
              className={row.original.message_seq ? 'tv-clickable' : ''}
              onClick={() => row.original.message_seq && onJump(row.original.message_seq)}
            >
              {row.getVisibleCells().map((cell) => (
                <td
                  key={cell.id}
                  className={
                    (cell.column.columnDef.meta as { className?: string } | undefined)?.className
                  }
                >
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
