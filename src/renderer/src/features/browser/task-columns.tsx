import type { ReactNode } from 'react';
import type { TaskListRow, TaskSortColumn } from '../../../../shared/api/tasks-api';
import { StatusBadge } from '../../components/status-badge';
import type { Formats } from '../../i18n/use-format';
import type { BrowserKey } from './strings';
import type { CostFigure, CostUnknownReason } from '../../../../shared/cost-types';
import { formatUsd } from '../../../../shared/format-cost';
import { agentLabel } from '../../../../shared/agents';

export interface TaskColumn {
  id: string;
  label: BrowserKey;
  /** The store's sort key (on the server); none = the column does not sort (no index for it). */
  sort?: TaskSortColumn;
  /** A CSS grid track; header and rows share it so they line up. */
  width: string;
  numeric?: boolean;
  cell(row: TaskListRow, ctx: CellContext): ReactNode;
}

export interface CellContext {
  now: number;
  /** Numbers, dates and durations in the UI's language. */
  f: Formats;
  untitled: string;
  /** The agent name of tasks this app ran. */
  own: string;
  /** Why a cost is unknown, in words. */
  unknownCost(reason: CostUnknownReason): string;
}

const dash = '—';

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Recent times read best as "3 hours ago"; history (an imported session) as its date. */
function dateCell(iso: string | null, ctx: CellContext): ReactNode {
  if (!iso) return <span className="muted">{dash}</span>;
  const old = ctx.now - Date.parse(iso) > WEEK_MS;
  return (
    <span className="muted" title={ctx.f.dateTime(iso)}>
      {old ? ctx.f.date(iso) : ctx.f.relative(iso, ctx.now)}
    </span>
  );
}

function costCell(cost: CostFigure | undefined, ctx: CellContext): ReactNode {
  if (!cost) return <span className="muted">{dash}</span>;
  if (cost.usd === null)
    return (
      <span className="muted cost-unknown" title={ctx.unknownCost(cost.unknown)}>
        ?
      </span>
    );
  return <span title={`$${cost.usd.toFixed(4)}`}>{formatUsd(cost.usd)}</span>;
}

/** Text that may not fit its column: the whole of it is a hover away. */
function textCell(text: string | null | undefined): ReactNode {
  if (!text) return <span className="muted">{dash}</span>;
  return (
    <span className="muted" title={text}>
      {text}
    </span>
  );
}

function numberCell(n: number, ctx: CellContext): ReactNode {
  return <span title={ctx.f.number(n)}>{ctx.f.compact(n)}</span>;
}

/** The task table's columns, in order (tasks.db fields, DESIGN.md §4). */
export const TASK_COLUMNS: readonly TaskColumn[] = [
  {
    id: 'status',
    label: 'colStatus',
    sort: 'status',
    width: '104px',
    cell: (r) => <StatusBadge status={r.status} />,
  },
  {
    id: 'title',
    label: 'colTitle',
    sort: 'title',
    width: 'minmax(200px, 3fr)',
    cell: (r, ctx) => (
      <span className="title-stack">
        <span className="title" title={r.prompt_preview ?? undefined}>
          {r.title || r.prompt_preview || ctx.untitled}
        </span>
        {r.error_message && (
          <span className="error-note" title={r.error_message}>
            {r.error_message}
          </span>
        )}
      </span>
    ),
  },
  {
    id: 'agent',
    label: 'colAgent',
    sort: 'agent',
    width: '124px',
    cell: (r, ctx) => textCell(agentLabel(r.agent ?? '', ctx.own)),
  },
  {
    id: 'repo',
    label: 'colRepo',
    sort: 'repository',
    width: 'minmax(120px, 1fr)',
    cell: (r) => textCell(r.repository),
  },
  {
    id: 'type',
    label: 'colType',
    sort: 'task_type',
    width: '104px',
    cell: (r) =>
      textCell(
        r.task_type || r.task_id ? `${r.task_type}${r.task_id ? ` #${r.task_id}` : ''}` : '',
      ),
  },
  {
    id: 'user',
    label: 'colUser',
    sort: 'user',
    width: '88px',
    cell: (r) => textCell(r.user),
  },
  {
    // Shows by default once tasks come from more than one host (column-store.ts).
    id: 'host',
    label: 'colHost',
    sort: 'host',
    // Narrow at least: with it the default columns still fit 1400 px.
    width: 'minmax(88px, 0.8fr)',
    cell: (r) => (
      <span className="muted" title={r.host ?? undefined}>
        {r.host || dash}
      </span>
    ),
  },
  {
    id: 'model',
    label: 'colModel',
    sort: 'model',
    width: 'minmax(110px, 1fr)',
    cell: (r) => textCell(r.model),
  },
  {
    id: 'created',
    label: 'colCreated',
    sort: 'created_at',
    width: '112px',
    cell: (r, ctx) => dateCell(r.created_at, ctx),
  },
  {
    id: 'updated',
    label: 'colUpdated',
    sort: 'updated_at',
    width: '124px',
    cell: (r, ctx) => dateCell(r.updated_at, ctx),
  },
  {
    id: 'duration',
    label: 'colDuration',
    // How long a task ran follows when it finished; the closest order the store keeps.
    sort: 'completed_at',
    width: '84px',
    numeric: true,
    cell: (r, ctx) => {
      const start = Date.parse(r.started_at ?? r.created_at);
      const end = r.completed_at
        ? Date.parse(r.completed_at)
        : r.status === 'running'
          ? ctx.now
          : Date.parse(r.updated_at);
      return ctx.f.duration(end - start);
    },
  },
  {
    id: 'messages',
    label: 'colMessages',
    sort: 'total_messages',
    width: '104px',
    numeric: true,
    cell: (r, ctx) => numberCell(r.total_messages, ctx),
  },
  {
    id: 'tokens',
    label: 'colTokens',
    sort: 'total_tokens',
    width: '88px',
    numeric: true,
    cell: (r, ctx) => numberCell(r.total_tokens, ctx),
  },
  {
    id: 'cost',
    label: 'colCost',
    sort: 'cost',
    width: '88px',
    numeric: true,
    cell: (r, ctx) => costCell(r.cost, ctx),
  },
  {
    id: 'compactions',
    label: 'colCompactions',
    sort: 'compression_count',
    width: '124px',
    numeric: true,
    cell: (r, ctx) => numberCell(r.compression_count, ctx),
  },
  {
    id: 'tools',
    label: 'colTools',
    sort: 'tool_call_count',
    width: '108px',
    numeric: true,
    cell: (r, ctx) => numberCell(r.tool_call_count, ctx),
  },
];

/** The visible columns' grid template (dragged widths in px win) and the least width it needs. */
export function gridLayout(
  columns: readonly TaskColumn[],
  widths: Record<string, number>,
): { template: string; minWidth: number } {
  let minWidth = 0;
  const tracks = columns.map((c) => {
    const px = widths[c.id];
    if (px !== undefined) {
      minWidth += px;
      return `${px}px`;
    }
    minWidth += Number(/(\d+)px/.exec(c.width)?.[1] ?? 80);
    return c.width;
  });
  return { template: tracks.join(' '), minWidth };
}
