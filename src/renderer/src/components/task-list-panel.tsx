import { useTaskList } from '../hooks/use-task-list';
import { StatePanel } from './state-panel';
import { TaskTable } from './task-table';

export function TaskListPanel() {
  const { state, reload } = useTaskList();
  return (
    <section className="panel" aria-labelledby="tasks-heading">
      <div className="panel-head">
        <h2 id="tasks-heading">Tasks</h2>
        {state.kind === 'ready' && (
          <span className="panel-count">
            {state.page.total === 1 ? '1 task' : `${state.page.total} tasks`}
            {state.page.facets && state.page.facets.status.running > 0 && (
              <> · {state.page.facets.status.running} running</>
            )}
          </span>
        )}
      </div>
      {state.kind === 'loading' && <StatePanel tone="loading" title="Loading tasks…" />}
      {state.kind === 'error' && (
        <StatePanel tone="error" title="The task list could not be loaded">
          <p className="state-detail">{state.message}</p>
          <button type="button" onClick={reload}>
            Try again
          </button>
        </StatePanel>
      )}
      {state.kind === 'ready' && state.page.rows.length === 0 && (
        <StatePanel tone="empty" title="No tasks yet">
          <p>
            Run an agent with <code>cwb run --prompt "…"</code>, or bring in transcripts from other
            agents with <code>cwb import FILE</code>.
          </p>
        </StatePanel>
      )}
      {state.kind === 'ready' && state.page.rows.length > 0 && <TaskTable rows={state.page.rows} />}
    </section>
  );
}
