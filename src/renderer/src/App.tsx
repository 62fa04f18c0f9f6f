import { AppHeader } from './components/app-header';
import { TaskListPanel } from './components/task-list-panel';
import { useAppInfo } from './hooks/use-app-info';

export function App() {
  const info = useAppInfo();
  return (
    <div className="app">
      <AppHeader info={info} />
      <main className="app-main">
        <TaskListPanel />
      </main>
    </div>
  );
}
