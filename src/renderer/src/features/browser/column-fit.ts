import { gridLayout, type TaskColumn } from './task-columns';

/**
 * The columns given up first when the table is narrower than its columns need, so that what
 * stays is never cut at the edge: counts a task's page shows anyway, then what the title
 * and agent already suggest. Status, title and cost (what the list is read for) always stay.
 */
export const SQUEEZE_ORDER: readonly string[] = [
  'type',
  'user',
  'host',
  'duration',
  'compactions',
  'tools',
  'messages',
  'model',
  'created',
  'repo',
  'tokens',
  'updated',
  'agent',
];

/**
 * The shown columns that fit `room` px (all of them when `room` is unknown), and the ids set
 * aside for want of room. Columns the user turned on (`chosen`) go last: they asked for them.
 */
export function fitColumns(
  columns: readonly TaskColumn[],
  widths: Record<string, number>,
  room: number | null,
  chosen: readonly string[] = [],
): { columns: TaskColumn[]; squeezed: string[] } {
  let kept = [...columns];
  const squeezed: string[] = [];
  if (room === null) return { columns: kept, squeezed };
  const order = [
    ...SQUEEZE_ORDER.filter((id) => !chosen.includes(id)),
    ...SQUEEZE_ORDER.filter((id) => chosen.includes(id)),
  ];
  for (const id of order) {
    if (gridLayout(kept, widths).minWidth <= room) break;
    if (!kept.some((c) => c.id === id)) continue;
    kept = kept.filter((c) => c.id !== id);
    squeezed.push(id);
  }
  return { columns: kept, squeezed };
}
