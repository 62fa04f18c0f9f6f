import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../shared/task-types';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { useTempDir } from '../../../test/support/temp-dir';
import { openDatabase } from './open-database';
import { PgTaskRepository } from './pg-task-repository';
import type { TaskIndex, TaskQuery } from './task-index';
import { TaskRepository } from './task-repository';
import { PriceBook } from '../cost/price-book';

/**
 * One suite, two backends: every behaviour the engine relies on, asserted the same way
 * on tasks.db and on a real PostgreSQL server.
 */
const tempDir = useTempDir();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

/** Where each PostgreSQL index opened by a test lives, for other hosts to open it too. */
const pgUrls = new WeakMap<TaskIndex, string>();

const backends: [string, () => Promise<TaskIndex>][] = [
  ['sqlite', async () => new TaskRepository(openDatabase(path.join(tempDir(), 'tasks.db')))],
  [
    'postgres',
    async () => {
      const url = await cluster.createDatabase();
      const index = new PgTaskRepository(url, { host: 'h1' });
      pgUrls.set(index, url);
      return index;
    },
  ],
];

/**
 * Inserts rows held by another host. A fleet's index records the host that inserts them
 * (a second PgTaskRepository as that host); tasks.db takes it from seed 000's hostname.
 */
function insertAsHost(index: TaskIndex, host: string, rows: TaskRow[]): void {
  const url = pgUrls.get(index);
  if (!url) return index.insertRows(rows.map((r) => ({ ...r, hostname: host })));
  const other = new PgTaskRepository(url, { host });
  try {
    other.insertRows(rows.map((r) => ({ ...r, hostname: host })));
  } finally {
    other.close();
  }
}

/** The host a row is held by, as each index tells it. */
const hostOf = (row: TaskRow): string | null => row.host ?? null;

/** 230 tasks with few distinct values per column, so most sort keys tie. */
function rows(): TaskRow[] {
  return Array.from({ length: 230 }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1) + (i % 9) * 60_000).toISOString();
    return {
      // uuids out of insertion order, so a uuid tie-break and an insertion one differ
      uuid: `${String((i * 37) % 230).padStart(3, '0')}-task`,
      // The index's own host ('h1' on PostgreSQL), as a task this host ran records it.
      hostname: 'h1',
      status: (['completed', 'failed', 'paused'] as const)[i % 3],
      title: i % 5 === 0 ? null : `title ${i % 4}${i % 11 === 0 ? ' Ünïcode' : ''}`,
      prompt: `prompt ${i % 2 ? 'needle' : 'hay'} ${i}${i % 23 === 0 ? ' 100%_done' : ''}`,
      model: `model-${i % 3}`,
      user: `user-${i % 6}`,
      owner: i % 4 === 0 ? 'acme' : '',
      repo: `repo-${i % 2}`,
      agent: ['', 'claude-code', 'codex', 'gemini-cli', 'openhands'][i % 5],
      total_tokens: (i % 7) * 100,
      created_at: at,
      updated_at: at,
      completed_at: i % 3 === 2 ? null : at,
    } as TaskRow;
  });
}

/** The order both backends must give: the column (NULL lowest, byte order), ties by insertion. */
function expectedOrder(all: TaskRow[], q: TaskQuery): string[] {
  const column = (q.sort ?? 'created_at') as keyof TaskRow;
  const sign = q.order === 'asc' ? 1 : -1;
  const cmp = (a: unknown, b: unknown): number =>
    a === b
      ? 0
      : a === null || a === undefined
        ? -1
        : b === null || b === undefined
          ? 1
          : a < b
            ? -1
            : 1;
  return all
    .map((row, i) => ({
      row: {
        ...row,
        repository: row.owner ? `${row.owner}/${row.repo}` : row.repo,
        host: row.host ?? row.hostname,
      },
      i,
    }))
    .filter(({ row }) => matches(row, q))
    .sort((a, b) => sign * (cmp(a.row[column], b.row[column]) || a.i - b.i))
    .map(({ row }) => row.uuid);
}

function matches(row: TaskRow, q: TaskQuery): boolean {
  const repository = row.owner ? `${row.owner}/${row.repo}` : row.repo;
  const text = q.search?.toLowerCase();
  return (
    (!q.status?.length || q.status.includes(row.status)) &&
    (!q.user || row.user === q.user) &&
    (!q.model || row.model === q.model) &&
    (!q.repo || row.repo === q.repo || repository === q.repo) &&
    (!q.host || (row.host ?? row.hostname) === q.host) &&
    (!text ||
      Boolean(row.title?.toLowerCase().includes(text)) ||
      Boolean(row.prompt?.toLowerCase().includes(text)))
  );
}

describe.each(backends)('task index on %s', (_name, open) => {
  async function seeded(): Promise<TaskIndex> {
    const index = await open();
    index.insertRows(rows());
    return index;
  }

  it('pages through sorted, filtered and searched lists: every row once, in order, the total on every page', async () => {
    const index = await seeded();
    const all = rows();
    const queries: TaskQuery[] = [
      {},
      { sort: 'title', order: 'asc' },
      { sort: 'title' },
      { sort: 'completed_at', order: 'asc' },
      { sort: 'model' },
      { sort: 'total_tokens', order: 'asc' },
      { sort: 'status' },
      { sort: 'repository', order: 'asc' },
      { sort: 'agent', order: 'asc' },
      { sort: 'agent' },
      { status: ['completed'], sort: 'agent', order: 'asc' },
      { search: 'needle', sort: 'agent' },
      { status: ['failed', 'paused'], sort: 'updated_at' },
      { user: 'user-1', sort: 'title' },
      { repo: 'acme/repo-0' },
      { repo: 'repo-1', sort: 'user', order: 'asc' },
      { search: 'needle' },
      { search: 'NEEDLE', status: ['completed'], sort: 'total_tokens' },
      { search: 'needle', user: 'user-3', sort: 'model', order: 'asc' },
      { search: '100%_' },
      { search: 'ed' },
      { host: 'h1' },
      { host: 'h1', status: ['completed'], sort: 'title', order: 'asc' },
      { host: 'h1', search: 'needle', sort: 'host' },
      { sort: 'host', order: 'asc' },
    ];
    for (const q of queries) {
      const expected = expectedOrder(all, q);
      expect(expected.length, JSON.stringify(q)).toBeGreaterThan(0);
      for (const size of [7, 50, expected.length]) {
        const seen: string[] = [];
        for (let offset = 0; ; offset += size) {
          const page = index.query({ ...q, limit: size, offset });
          expect(page.total, `${JSON.stringify(q)} at ${offset}`).toBe(expected.length);
          seen.push(...page.rows.map((r) => r.uuid));
          if (page.rows.length < size) break;
        }
        expect(seen, `${JSON.stringify(q)} by ${size}`).toEqual(expected);
      }
    }
    // A literal % matches only itself; a LIKE wildcard in the text is no wildcard.
    expect(index.query({ search: '100%_done' }).total).toBe(10);
    expect(index.query({ search: '1%0' }).total).toBe(0);
    expect(index.query({ sort: 'model', offset: 500, limit: 10 })).toEqual({
      rows: [],
      total: 230,
    });
    expect(index.query({ search: 'needle', offset: 500, limit: 10 })).toEqual({
      rows: [],
      total: 115,
    });
    expect(index.query({ limit: 0 })).toEqual({ rows: [], total: 230 });
    index.close();
  });

  it('counts facets: statuses under every other filter, values most used first', async () => {
    const index = await seeded();
    expect(index.statusCounts({})).toMatchObject({
      completed: 77,
      failed: 77,
      paused: 76,
      running: 0,
    });
    expect(index.statusCounts({ status: ['paused'], user: 'user-0' })).toMatchObject({
      completed: 39,
      paused: 0,
      failed: 0,
    });
    expect(index.statusCounts({ search: 'needle' })).toMatchObject({
      completed: 38,
      failed: 39,
      paused: 38,
    });
    const values = index.facetValues(2);
    expect(values.models).toEqual([
      { value: 'model-0', count: 77 },
      { value: 'model-1', count: 77 },
    ]);
    expect(values.repos.map((r) => r.value)).toEqual(['repo-1', 'acme/repo-0']);
    expect(values.users).toHaveLength(2);
    index.close();
  });

  it('filters by agent, and sorts and sums by cost exactly as the price book prices each row', async () => {
    const index = await open();
    const book = new PriceBook();
    const priced: [string, string | null, number, number, number, number][] = [
      ['a', 'claude-opus-4-1-20250805', 1000, 2000, 30000, 400],
      ['b', 'gpt-4o', 5000, 100, 0, 0],
      ['c', 'mystery-model', 5000, 100, 0, 0],
      ['d', null, 10, 10, 0, 0],
      ['e', 'gpt-5', 0, 0, 0, 0],
      ['f', 'gpt-4o', 7, 3, 0, 0],
    ];
    index.insertRows(
      priced.map(([uuid, model, i, o, r, w], n) => ({
        ...rows()[0]!,
        uuid,
        model,
        agent: n % 2 ? 'codex' : '',
        input_tokens: i,
        output_tokens: o,
        cache_read_tokens: r,
        cache_creation_tokens: w,
      })),
    );
    const costOf = (uuid: string) => {
      const [, model, i, o, r, w] = priced.find((p) => p[0] === uuid)!;
      return book.costOf(
        { input_tokens: i, output_tokens: o, cache_read_tokens: r, cache_creation_tokens: w },
        model,
      ).usd;
    };
    const rates = book.rates(index.distinctModels());
    const byCost = index.query({ sort: 'cost', costRates: rates }).rows.map((r) => r.uuid);
    // Known costs highest first, then the unknown ones (no model, no price, no usage).
    expect(byCost.slice(0, 3)).toEqual(['a', 'b', 'f']);
    expect(byCost.slice(3).map(costOf)).toEqual([null, null, null]);
    const sum = index.sumCost({}, rates);
    expect(sum.usd).toBeCloseTo(costOf('a')! + costOf('b')! + costOf('f')!, 12);
    expect(sum).toMatchObject({ unknown: 3, tasks: 6 });
    expect(index.sumCost({ agent: 'codex' }, rates)).toMatchObject({ unknown: 1, tasks: 3 });
    // No model with a price: every cost unknown, none added.
    expect(index.sumCost({}, [])).toEqual({ usd: 0, unknown: 6, tasks: 6 });
    expect(
      index
        .query({ agent: 'codex' })
        .rows.map((r) => r.uuid)
        .sort(),
    ).toEqual(['b', 'd', 'f']);
    expect(index.query({ agent: '' }).total).toBe(3);
    // The status chips count under an agent filter too ('' included: this app's tasks).
    expect(index.statusCounts({ agent: 'codex' })).toMatchObject({ completed: 3, failed: 0 });
    expect(index.statusCounts({ agent: '' })).toMatchObject({ completed: 3, failed: 0 });
    expect(index.statusCounts({ agent: 'nobody' })).toMatchObject({ completed: 0 });
    expect(index.facetValues().agents).toEqual([
      { value: '', count: 3 },
      { value: 'codex', count: 3 },
    ]);
    index.close();
  });

  it('keeps the facet counts right through inserts, status and model changes and deletes', async () => {
    const index = await seeded();
    // createdFrom matches every row but makes both indexes count rows instead of reading
    // their kept counts: the two answers must agree after every change.
    const counted = () => index.statusCounts({ createdFrom: '2000-01-01T00:00:00.000Z' });
    const agree = () => {
      expect(index.statusCounts({})).toEqual(counted());
      const values = index.facetValues();
      const all = index.query({ limit: 1000 }).rows;
      const tally = (pick: (r: TaskRow) => string | null) => {
        const n = new Map<string, number>();
        for (const r of all) {
          const v = pick(r);
          if (v) n.set(v, (n.get(v) ?? 0) + 1);
        }
        return [...n].map(([value, count]) => ({ value, count }));
      };
      const sorted = (list: { value: string; count: number }[]) =>
        [...list].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
      expect(values.models).toEqual(sorted(tally((r) => r.model)));
      expect(values.users).toEqual(sorted(tally((r) => r.user)));
      expect(values.repos).toEqual(sorted(tally((r) => r.repository)));
      expect(values.hosts).toEqual(sorted(tally(hostOf)));
      // Agents count '' too: the tasks this app ran are a choice of the agent picker.
      const agents = new Map<string, number>();
      for (const r of all) agents.set(r.agent ?? '', (agents.get(r.agent ?? '') ?? 0) + 1);
      expect(values.agents).toEqual(
        sorted([...agents].map(([value, count]) => ({ value, count }))),
      );
    };
    agree();
    index.setStatus('000-task', 'running');
    index.setStatus('037-task', 'failed', { process_id: 7, hostname: 'h2' });
    index.delete('074-task');
    index.insert({
      uuid: 'new-task',
      key: { task_source: 's', owner: 'zeta', repo: 'z', task_type: '', task_id: '', user: 'u9' },
      model: 'model-9',
    });
    index.setImportedFacts('new-task', {
      created_at: null,
      started_at: null,
      completed_at: null,
      model: 'ignored: the row has one',
      agent: 'codex',
      git_branch: 'main',
    });
    expect(index.require('new-task')).toMatchObject({ model: 'model-9', agent: 'codex' });
    agree();
    expect(index.statusCounts({})).toMatchObject({ running: 2 });
    // Many changes pile up on PostgreSQL as count deltas, folded now and then.
    for (let i = 0; i < 700; i++) index.setStatus('000-task', i % 2 ? 'running' : 'paused');
    agree();
    index.close();
  });

  it('filters and sorts by host, counting each host; the other filters apply with it', async () => {
    const index = await seeded();
    const theirs = rows()
      .slice(0, 40)
      .map((r, i) => ({
        ...r,
        uuid: `${String(i).padStart(3, '0')}-h2`,
        status: 'running' as const,
      }));
    insertAsHost(index, 'h2', theirs);
    expect(index.facetValues().hosts).toEqual([
      { value: 'h1', count: 230 },
      { value: 'h2', count: 40 },
    ]);
    const h2 = index.query({ host: 'h2', limit: 1000 });
    expect(h2.total).toBe(40);
    expect(h2.rows.map(hostOf)).toEqual(Array(40).fill('h2'));
    expect(index.query({ host: 'h2', status: ['running'], limit: 5 }).total).toBe(40);
    expect(index.query({ host: 'h1', status: ['running'] }).total).toBe(0);
    expect(index.query({ host: 'h2', search: 'needle', limit: 5 }).total).toBe(20);
    expect(index.query({ host: 'nowhere' })).toEqual({ rows: [], total: 0 });
    // Every page of the host's list, short pages and deep ones, in order.
    const ids = (q: TaskQuery) => index.query({ limit: 1000, ...q }).rows.map((r) => r.uuid);
    for (const q of [{ host: 'h1' }, { host: 'h2', sort: 'title', order: 'asc' } as const]) {
      const all = ids(q);
      const paged: string[] = [];
      for (let offset = 0; offset < all.length; offset += 9) {
        const page = index.query({ ...q, limit: 9, offset });
        expect(page.total).toBe(all.length);
        paged.push(...page.rows.map((r) => r.uuid));
      }
      expect(paged).toEqual(all);
    }
    // Sorting by host: ties (every task of a host) by insertion.
    const byHost = ids({ sort: 'host', order: 'asc' });
    expect(byHost.slice(0, 230)).toEqual(ids({ host: 'h1', sort: 'host', order: 'asc' }));
    expect(byHost.slice(230)).toEqual(theirs.map((r) => r.uuid));
    // The status chips under a host filter count that host's tasks.
    expect(index.statusCounts({ host: 'h2' })).toEqual({
      running: 40,
      paused: 0,
      completed: 0,
      failed: 0,
    });
    index.delete('000-h2');
    expect(index.facetValues().hosts).toEqual([
      { value: 'h1', count: 230 },
      { value: 'h2', count: 39 },
    ]);
    expect(index.query({ host: 'h2', offset: 30, limit: 100 }).total).toBe(39);
    index.close();
  });

  it('searches what titles and prompts say now: new rows, a fixed title, counters, deletes', async () => {
    const index = await open();
    const found = (search: string) => {
      const { rows: hits, total } = index.query({ search, sort: 'title', order: 'asc' });
      expect(total).toBe(hits.length);
      return hits.map((r) => r.uuid);
    };
    index.insertRows([
      { ...rows()[0]!, uuid: 's1', title: 'alpha title', prompt: 'first prompt' },
      { ...rows()[1]!, uuid: 's2', title: 'beta', prompt: 'second Alpha' },
    ]);
    expect(found('alpha')).toEqual(['s1', 's2']);
    index.fixImport('s1', { title: 'gamma title' });
    expect(found('alpha')).toEqual(['s2']);
    expect(found('gamma')).toEqual(['s1']);
    index.addStats('s2', { messages: 1, usage: { input_tokens: 5 } });
    expect(found('alpha')).toEqual(['s2']);
    index.delete('s2');
    expect(found('alpha')).toEqual([]);
    const key = { task_source: '', owner: '', repo: '', task_type: '', task_id: '', user: '' };
    index.insert({ uuid: 's3', key, title: 'delta', prompt: 'alpha again' });
    expect(found('alpha')).toEqual(['s3']);
    expect(index.query({ search: 'alpha', offset: 1 })).toEqual({ rows: [], total: 1 });
    index.close();
  });

  it('records what an imported session says of itself', async () => {
    const index = await open();
    const key = {
      task_source: 'codex',
      owner: '',
      repo: 'r',
      task_type: '',
      task_id: '',
      user: '',
    };
    index.insert({ uuid: 'imp', key, status: 'completed' });
    expect(index.require('imp')).toMatchObject({ agent: '', git_branch: null });
    index.setImportedFacts('imp', {
      created_at: '2025-05-01T10:00:00.000Z',
      started_at: null,
      completed_at: '2025-05-01T11:00:00.000Z',
      model: 'gpt-5',
      agent: 'codex',
      git_branch: 'feature/x',
    });
    expect(index.require('imp')).toMatchObject({
      created_at: '2025-05-01T10:00:00.000Z',
      started_at: '2025-05-01T10:00:00.000Z',
      completed_at: '2025-05-01T11:00:00.000Z',
      updated_at: '2025-05-01T11:00:00.000Z',
      model: 'gpt-5',
      agent: 'codex',
      git_branch: 'feature/x',
    });
    index.close();
  });

  it('writes rows: insert, status, counters, metadata, control, delete', async () => {
    const index = await open();
    const key = {
      task_source: 'gh',
      owner: 'o',
      repo: 'r',
      task_type: 'issue',
      task_id: '7',
      user: 'u',
    };
    index.insert({
      uuid: 't1',
      key,
      title: 'T',
      prompt: 'P',
      process_id: 42,
      hostname: 'box',
      metadata: { a: 1 },
    });
    const row = index.require('t1');
    expect(row).toMatchObject({
      status: 'running',
      repository: 'o/r',
      task_identifier: '7',
      process_id: 42,
      hostname: 'box',
      metadata: '{"a":1}',
      total_messages: 0,
    });
    expect(row.started_at).toBe(row.created_at);

    index.addStats('t1', {
      messages: 2,
      llm_calls: 1,
      usage: { input_tokens: 30, output_tokens: 12 },
    });
    index.addStats('t1', { tool_calls: 1, compressions: 1, summaries: 1 });
    expect(index.require('t1')).toMatchObject({
      total_messages: 2,
      llm_call_count: 1,
      input_tokens: 30,
      output_tokens: 12,
      total_tokens: 42,
      tool_call_count: 1,
      total_tool_calls: 1,
      compression_count: 1,
      total_summaries: 1,
    });

    index.setStatus('t1', 'failed', { error_message: 'boom' });
    expect(index.require('t1')).toMatchObject({
      status: 'failed',
      error_message: 'boom',
      process_id: 42,
    });
    expect(index.require('t1').completed_at).not.toBeNull();
    index.setStatus('t1', 'running', { process_id: 7, hostname: 'other' });
    expect(index.require('t1')).toMatchObject({
      status: 'running',
      error_message: null,
      completed_at: null,
      process_id: 7,
      hostname: 'other',
    });
    expect(() => index.setStatus('nope', 'paused')).toThrow(/no task with id nope/);

    index.setFinalStats('t1', {
      total_messages: 5,
      total_summaries: 2,
      total_tool_calls: 3,
      final_token_count: 900,
      final_message_count: 4,
    });
    expect(index.require('t1')).toMatchObject({
      total_messages: 5,
      compression_count: 2,
      tool_call_count: 3,
      final_token_count: 900,
    });
    index.setMetadata('t1', { b: 2 });
    expect(index.require('t1').metadata).toBe('{"b":2}');

    expect(index.takeControl('t1')).toBeNull();
    index.requestControl('t1', 'pause');
    expect(index.takeControl('t1')).toBe('pause');
    expect(index.takeControl('t1')).toBeNull();
    expect(() => index.requestControl('nope', 'stop')).toThrow(/no task with id nope/);

    index.setStatus('t1', 'completed');
    expect(index.findPreviousByKey(key, '2000-01-01')?.uuid).toBe('t1');
    expect(index.findPreviousByKey(key, '2000-01-01', 't1')).toBeUndefined();
    expect(index.findPreviousByKey({ ...key, task_id: '8' }, '2000-01-01')).toBeUndefined();
    expect(index.endedBefore('9999').map((r) => r.uuid)).toEqual(['t1']);
    expect(index.endedBefore('2000')).toEqual([]);
    expect([...index.allStatuses()]).toEqual([
      ['t1', { status: 'completed', process_id: 7, hostname: 'other' }],
    ]);

    const before = index.stamp();
    index.delete('t1');
    expect(index.get('t1')).toBeUndefined();
    expect(index.stamp()).not.toBe(before);
    expect(() => index.require('t1')).toThrow(/no task with id t1/);
    index.close();
  });

  it('write() commits together, rolls back on a throw, and nests as savepoints', async () => {
    const index = await open();
    const key = { task_source: '', owner: '', repo: '', task_type: '', task_id: '', user: '' };
    index.write(() => {
      index.insert({ uuid: 'a', key });
      index.insert({ uuid: 'b', key });
    });
    expect(() =>
      index.write(() => {
        index.insert({ uuid: 'c', key });
        throw new Error('move failed');
      }),
    ).toThrow('move failed');
    expect(index.get('c')).toBeUndefined();
    index.write(() => {
      index.insert({ uuid: 'd', key });
      expect(() =>
        index.write(() => {
          index.insert({ uuid: 'e', key });
          throw new Error('inner');
        }),
      ).toThrow('inner');
      expect(index.get('d')).toBeDefined();
    });
    expect(
      index
        .query({ sort: 'created_at', order: 'asc' })
        .rows.map((r) => r.uuid)
        .sort(),
    ).toEqual(['a', 'b', 'd']);
    // A statement error inside a transaction rolls the whole of it back.
    expect(() =>
      index.write(() => {
        index.insert({ uuid: 'f', key });
        index.insert({ uuid: 'a', key });
      }),
    ).toThrow();
    expect(index.get('f')).toBeUndefined();
    // And the index is usable afterwards.
    index.addStats('a', { messages: 1 });
    expect(index.require('a').total_messages).toBe(1);
    index.close();
  });

  it('restores complete rows as recorded elsewhere, counters exact', async () => {
    const index = await open();
    const row = {
      ...rows()[1]!,
      total_messages: 123,
      input_tokens: 2 ** 40,
      final_token_count: 77,
    };
    index.insertRow(row);
    expect(index.require(row.uuid)).toMatchObject({
      total_messages: 123,
      input_tokens: 2 ** 40,
      final_token_count: 77,
      completed_at: row.completed_at,
    });
    index.close();
  });
});
