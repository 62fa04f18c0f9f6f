import type { TaskListRow } from '../../../shared/api/tasks-api';
import { compactNumber, wholeNumber } from '../format/numbers';
import { relativeTime } from '../format/relative-time';
import { StatusBadge } from './status-badge';

/** The task list of this screen; the full virtualized browser comes with the workbench UI. */
export function TaskTable({ rows }: { rows: TaskListRow[] }) {
  const now = Date.now();
  return (
    <table className="task-table">
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Title</th>
          <th scope="col">Repository</th>
          <th scope="col">Model</th>
          <th scope="col" className="num">
            Messages
          </th>
          <th scope="col" className="num">
            Tokens
          </th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.uuid} data-uuid={row.uuid}>
            <td>
              <StatusBadge status={row.status} />
            </td>
            <td className="title-cell">
              <span className="title" title={row.prompt_preview ?? undefined}>
                {row.title || row.prompt_preview || 'Untitled task'}
              </span>
              {row.error_message && <span className="error-note">{row.error_message}</span>}
            </td>
            <td className="muted">{row.repository || '—'}</td>
            <td className="muted">{row.model ?? '—'}</td>
            <td className="num" title={wholeNumber(row.total_messages)}>
              {compactNumber(row.total_messages)}
            </td>
            <td className="num" title={wholeNumber(row.total_tokens)}>
              {compactNumber(row.total_tokens)}
            </td>
            <td className="muted" title={new Date(row.updated_at).toLocaleString()}>
              {relativeTime(row.updated_at, now)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
