import { TaskListPanel } from '../../components/task-list-panel';

export function TasksPage() {
  return <TaskListPanel />;
}
