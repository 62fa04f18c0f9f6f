import type { TaskStatus } from '../../../shared/task-types';

const LABELS: Record<TaskStatus, string> = {
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
};

export function StatusBadge({ status }: { status: TaskStatus }) {
  return (
    <span className={`status status-${status}`}>
      <span className="status-dot" aria-hidden="true" />
      {LABELS[status]}
    </span>
  );
}
