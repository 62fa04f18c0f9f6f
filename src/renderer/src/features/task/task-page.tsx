import type { Route } from '../../router/route';

export function TaskPage({ route }: { route: Extract<Route, { page: 'task' }> }) {
  return <section className="panel">{route.uuid}</section>;
}
