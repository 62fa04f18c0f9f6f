/**
 * Where the UI is, kept in the URL hash so that reloads, the browser's back button and
 * links between views work the same in the app and in `cwb serve`.
 */
export type TaskTab = 'timeline' | 'compactions' | 'planning' | 'tools' | 'context';

export type Route =
  | { page: 'tasks' }
  | { page: 'task'; uuid: string; tab: TaskTab; seq?: number; view?: 'history' | 'current' }
  | { page: 'compaction'; uuid: string; id: number }
  | { page: 'settings' };

const UUID = '[0-9a-f-]{36}';
const TABS: readonly TaskTab[] = ['timeline', 'compactions', 'planning', 'tools', 'context'];

export function parseRoute(hash: string): Route {
  const [pathPart, query = ''] = hash.replace(/^#/, '').split('?');
  const path = pathPart ?? '';
  const params = new URLSearchParams(query);
  let m = new RegExp(`^/task/(${UUID})/compaction/(\\d+)$`).exec(path);
  if (m) return { page: 'compaction', uuid: m[1]!, id: Number(m[2]) };
  m = new RegExp(`^/task/(${UUID})(?:/(\\w+))?$`).exec(path);
  if (m) {
    const tab = (TABS as readonly string[]).includes(m[2] ?? '') ? (m[2] as TaskTab) : 'timeline';
    const seq = Number(params.get('seq'));
    const view = params.get('view');
    return {
      page: 'task',
      uuid: m[1]!,
      tab,
      ...(Number.isInteger(seq) && seq > 0 && { seq }),
      ...((view === 'history' || view === 'current') && { view }),
    };
  }
  if (path === '/settings') return { page: 'settings' };
  return { page: 'tasks' };
}

export function routeHash(route: Route): string {
  switch (route.page) {
    case 'tasks':
      return '#/';
    case 'settings':
      return '#/settings';
    case 'compaction':
      return `#/task/${route.uuid}/compaction/${route.id}`;
    case 'task': {
      const params = new URLSearchParams();
      if (route.seq) params.set('seq', String(route.seq));
      if (route.view) params.set('view', route.view);
      const q = params.toString();
      return `#/task/${route.uuid}/${route.tab}${q ? `?${q}` : ''}`;
    }
  }
}
