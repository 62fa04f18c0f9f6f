import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash, type Route } from './route';

const uuid = '550e8400-e29b-41d4-a716-446655440000';

describe('routes', () => {
  it('round-trip through the hash', () => {
    const routes: Route[] = [
      { page: 'tasks' },
      { page: 'settings' },
      { page: 'task', uuid, tab: 'timeline' },
      { page: 'task', uuid, tab: 'tools', seq: 42, view: 'current' },
      { page: 'compaction', uuid, id: 3 },
      { page: 'task', uuid, tab: 'timeline', seq: 7, view: 'history', mark: 'a&b=c "d"' },
      { page: 'usage' },
      { page: 'usage', period: 'custom', since: '2025-09-01', until: '2025-09-30', by: 'week' },
      { page: 'usage', period: 'week', split: 'agent' },
    ];
    for (const r of routes) expect(parseRoute(routeHash(r))).toEqual(r);
  });

  it('falls back to the task list for anything it does not know', () => {
    expect(parseRoute('#/task/../../etc')).toEqual({ page: 'tasks' });
    expect(parseRoute('#/task/' + uuid + '/nope')).toEqual({ page: 'task', uuid, tab: 'timeline' });
    expect(parseRoute('')).toEqual({ page: 'tasks' });
    expect(parseRoute('#/usage?since=yesterday&by=year&split=x')).toEqual({ page: 'usage' });
  });
});
