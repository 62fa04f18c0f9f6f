import type { TaskStatus } from '../../../shared/task-types';
import { useT } from '../i18n/use-t';
import { statusStrings } from './status-strings';

export function StatusBadge({ status }: { status: TaskStatus }) {
  const t = useT(statusStrings);
  return (
    <span className={`status status-${status}`}>
      <span className="status-dot" aria-hidden="true" />
      {t(status)}
    </span>
  );
}
