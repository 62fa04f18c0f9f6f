/**
 * Where the UI is, kept in the URL hash so that reloads, the browser's back button and
 * links between views work the same in the app and in `cwb serve`.
 */
export type TaskTab = 'timeline' | 'compactions' | 'planning' | 'tools' | 'context';

export type Route =
  | { page: 'tasks' }
  | {
      page: 'task';
      uuid: string;
      tab: TaskTab;
      seq?: number;
      view?: 'history' | 'current';
      /** Text to mark in the message at `seq` (what a message search matched there). */
      mark?: string;
    }
  | { page: 'compaction'; uuid: string; id: number }
  | { page: 'settings' }
  | ({ page: 'usage' } & UsageRouteParams);

/** The Usage page's period and grouping, kept in the address so a view can be reloaded. */
export interface UsageRouteParams {
  /** yyyy-mm-dd, both set for a custom period; absent: the period named by `period`. */
  since?: string;
  until?: string;
  period?: UsagePeriod;
  by?: 'day' | 'week' | 'month';
  split?: 'model' | 'agent';
}
export type UsagePeriod = 'week' | 'month' | 'all' | 'custom';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const USAGE_PARAMS: [keyof UsageRouteParams, RegExp][] = [
  ['since', DAY],
  ['until', DAY],
  ['period', /^(week|month|all|custom)$/],
  ['by', /^(day|week|month)$/],
  ['split', /^(model|agent)$/],
];

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
    const mark = params.get('mark');
    return {
      page: 'task',
      uuid: m[1]!,
      tab,
      ...(Number.isInteger(seq) && seq > 0 && { seq }),
      ...((view === 'history' || view === 'current') && { view }),
      ...(mark && { mark }),
    };
  }
  if (path === '/settings') return { page: 'settings' };
  if (path === '/usage') return { page: 'usage', ...usageParams(params) };
  return { page: 'tasks' };
}

export function routeHash(route: Route): string {
  switch (route.page) {
    case 'tasks':
      return '#/';
    case 'settings':
      return '#/settings';
    case 'usage': {
      const params = new URLSearchParams();
      for (const key of ['period', 'since', 'until', 'by', 'split'] as const) {
        const value = route[key];
        if (value) params.set(key, value);
      }
      const q = params.toString();
      return `#/usage${q ? `?${q}` : ''}`;
    }
    case 'compaction':
      return `#/task/${route.uuid}/compaction/${route.id}`;
    case 'task': {
      const params = new URLSearchParams();
      if (route.seq) params.set('seq', String(route.seq));
      if (route.view) params.set('view', route.view);
      if (route.mark) params.set('mark', route.mark);
      const q = params.toString();
      return `#/task/${route.uuid}/${route.tab}${q ? `?${q}` : ''}`;
    }
  }
}

function usageParams(params: URLSearchParams): UsageRouteParams {
  const out: Record<string, string> = {};
  for (const [key, ok] of USAGE_PARAMS) {
    const value = params.get(key);
    if (value && ok.test(value)) out[key] = value;
  }
  return out as UsageRouteParams;
}
