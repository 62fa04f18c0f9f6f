import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { realTranscriptFiles } from '../../../test/support/real-transcript-files';
import type { SearchSessionsInput, SessionSearchResult } from '../../shared/api/search-api';
import type { UsageReport } from '../../shared/api/usage-api';
import { PriceBook } from '../cost';
import type { PgTaskRepository } from '../db/pg-task-repository';
import { importPaths } from '../import';
import { ContextStore } from '../store/context-store';
import { usageOf } from '../usage/usage-of';
import { keepSearchIndexCurrent, searchAllSessions } from './session-search';

/**
 * Message search and usage on both indexes (docs/search-and-usage.md): the same real
 * fixtures imported into tasks.db and into a fleet's PostgreSQL, and every search and
 * report compared, hit for hit and cent for cent.
 */
let cluster: PostgresCluster;
let dir: string;
let url: string;
const stores: Record<'sqlite' | 'postgres', ContextStore> = {} as never;
const book = new PriceBook();
const catchUp: Record<string, { indexed: number; remaining: number }> = {};
/** Messages without a time of their own get the import's: apart in each store. */
const started = new Date().toISOString();
const timeOf = (t: string | null) => (t !== null && t >= started ? 'at import' : t);

/** A task of this app's own, with text the fixtures lack and usage on its replies. */
async function ownTask(store: ContextStore): Promise<void> {
  const task = store.createTask({
    title: 'own task',
    workdir: '/home/ann/src/widget/packages/core',
    key: { owner: 'acme', repo: 'widget' },
  });
  task.addMessage({ role: 'user', content: 'Rename fooBar_baz in src/core/x.ts, café au lait' });
  task.addMessage({
    role: 'assistant',
    content: 'Renamed fooBar_baz; the Café test passes. Ünïcode ok.',
    timestamp: '2026-11-20T10:15:00.000Z',
    usage: { input_tokens: 1200, output_tokens: 300, cache_read_tokens: 4000 },
  } as never);
  task.recordLlmCall({ input_tokens: 1200, output_tokens: 300, cache_read_tokens: 4000 });
  task.addMessage({ role: 'tool', tool_name: 'Bash', content: 'ok: src/core/x.ts\u0000 done' });
  await task.complete();
}

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-search-backends-'));
  stores.sqlite = ContextStore.open(path.join(dir, 'sqlite'));
  stores.postgres = ContextStore.open(path.join(dir, 'postgres'), { index: url, host: 'alpha' });
  for (const [kind, store] of Object.entries(stores)) {
    const run = await importPaths(store, realTranscriptFiles());
    expect(run.results.length).toBeGreaterThan(8);
    await ownTask(store);
    catchUp[kind] = keepSearchIndexCurrent(store, Number.POSITIVE_INFINITY);
  }
}, 300_000);

afterAll(() => {
  for (const store of Object.values(stores)) store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  cluster?.stop();
});

/** A task's identity in either store (imports give new uuids): its source, session and start. */
function keyOf(store: ContextStore, uuid: string): string {
  const row = store.repo.require(uuid);
  return `${row.task_source}|${row.task_type}|${row.task_id}|${timeOf(row.created_at)}|${row.title}`;
}

function search(kind: keyof typeof stores, input: SearchSessionsInput) {
  const store = stores[kind];
  const result: SessionSearchResult = searchAllSessions(store, input, { catchUpMs: 0 });
  return {
    ...result,
    hits: result.hits.map((h) => ({
      ...h,
      uuid: keyOf(store, h.uuid),
      timestamp: timeOf(h.timestamp),
    })),
  };
}

const CASES: SearchSessionsInput[] = [
  { query: 'error' },
  { query: 'pydicom/dataset.py' },
  { query: 'pydicom/dataset.py', exact: true },
  { query: 'PYDICOM/DATASET.PY', exact: true },
  { query: 'src/core/x.ts', exact: true },
  { query: 'src/core/x.', exact: true },
  { query: 'fooBar_baz', exact: true },
  { query: 'foobar_BAZ' },
  { query: 'cafe' },
  { query: 'CAFÉ' },
  { query: '"no such file"' },
  { query: '"the test"' },
  { query: 'pydic*' },
  { query: 'test* file' },
  { query: 'the', agent: 'codex' },
  { query: 'the', role: 'user' },
  { query: 'the', role: 'tool' },
  { query: 'the', role: 'reasoning' },
  { query: 'done', tool: 'Bash' },
  { query: 'the', tool: 'str_replace_editor' },
  { query: 'the', repo: 'widget' },
  { query: 'the', folder: '/home/ann/src/widget' },
  { query: 'the', folder: '/home/ann/src/widget/packages/core/' },
  { query: 'the', since: '2099-01-01' },
  { query: 'the', limit: 3 },
  { query: 'the', limit: 200 },
  { query: 'NEAR(a b) OR "x' },
  { query: 'zzqx-nothing-matches' },
];

describe('message search on tasks.db and on PostgreSQL', () => {
  it('indexes every task of both through the same catch-up', () => {
    expect(catchUp.sqlite!.indexed).toBeGreaterThan(100);
    expect(catchUp.postgres).toEqual(catchUp.sqlite);
    const [{ n }] = (stores.postgres.repo as PgTaskRepository).sql<{ n: number }>(
      'SELECT COUNT(*)::bigint AS n FROM messages_search',
    );
    expect(n).toBe(catchUp.sqlite!.indexed);
  });

  it.each(CASES.map((c) => [JSON.stringify(c), c] as const))('%s: the same answer', (_, input) => {
    const sqlite = search('sqlite', input);
    const postgres = search('postgres', input);
    expect(postgres).toEqual(sqlite);
  });

  it('finds what the cases look for (the comparison is not of empty answers)', () => {
    const n = (input: SearchSessionsInput) => search('postgres', input).hits.length;
    expect(n({ query: 'error' })).toBeGreaterThan(5);
    expect(n({ query: 'pydicom/dataset.py', exact: true })).toBeGreaterThan(0);
    expect(n({ query: 'PYDICOM/DATASET.PY', exact: true })).toBe(0);
    expect(n({ query: 'fooBar_baz', exact: true })).toBe(2);
    expect(n({ query: 'foobar_BAZ' })).toBe(2);
    const cafe = search('postgres', { query: 'cafe' }).hits.filter((h) => h.title === 'own task');
    expect(cafe.map((h) => h.seq)).toEqual([1, 2]);
    const bash = search('postgres', { query: 'done', tool: 'Bash' }).hits;
    expect(bash.filter((h) => h.title === 'own task').map((h) => h.seq)).toEqual([3]);
    expect(bash.every((h) => h.tool!.split(' ').includes('Bash'))).toBe(true);
    expect(n({ query: 'the', folder: '/home/ann/src/widget' })).toBeGreaterThan(0);
    expect(n({ query: '"no such file"' })).toBeGreaterThan(0);
    expect(search('postgres', { query: 'the', limit: 3 }).more).toBe(true);
    const exact = search('postgres', { query: 'src/core/x.ts', exact: true }).hits;
    expect(exact.map((h) => h.snippet.slice(...h.match!))).toEqual([
      'src/core/x.ts',
      'src/core/x.ts',
    ]);
  });

  it('keeps PostgreSQL current when a task grows, and drops a deleted task', () => {
    for (const store of Object.values(stores)) {
      const row = store.listTasks({ limit: 5 }).rows.find((r) => r.title !== 'own task')!;
      const task = store.openForMaintenance(row.uuid);
      task.addMessage({ role: 'user', content: 'zyxwvut marker for the search test' });
      task.flushStats();
      task.close();
      expect(searchAllSessions(store, { query: 'zyxwvut' }, { catchUpMs: 0 }).pending).toBe(1);
      const found = searchAllSessions(store, { query: 'zyxwvut' });
      expect(found.hits.map((h) => h.uuid)).toEqual([row.uuid]);
      expect(found.pending).toBe(0);
      store.repo.write(() => store.repo.delete(row.uuid));
      expect(searchAllSessions(store, { query: 'zyxwvut' }).hits).toEqual([]);
    }
  });
});

describe('usage on tasks.db and on PostgreSQL', () => {
  const report = (kind: keyof typeof stores, input: Parameters<typeof usageOf>[2]) => {
    const store = stores[kind];
    const r: UsageReport = usageOf(store, book, input, { catchUpMs: 0 });
    return { ...r, top: r.top.map((t) => ({ ...t, uuid: keyOf(store, t.uuid) })) };
  };
  const cents = (usd: number) => Math.round(usd * 100);

  it.each(['day', 'week', 'month', 'model', 'agent', 'repo'] as const)(
    'by %s: the same rows and totals, to the cent',
    (by) => {
      const input = { by, top: 20, timeZone: 'Asia/Tokyo', split: 'model' as const };
      const sqlite = report('sqlite', input);
      const postgres = report('postgres', input);
      expect(postgres.rows.map((r) => r.key)).toEqual(sqlite.rows.map((r) => r.key));
      expect(postgres.total.tokens).toEqual(sqlite.total.tokens);
      expect(postgres.total.tasks).toBe(sqlite.total.tasks);
      expect(cents(postgres.total.cost.usd)).toBe(cents(sqlite.total.cost.usd));
      expect(postgres.total.cost.unknown_tokens).toBe(sqlite.total.cost.unknown_tokens);
      for (const [i, row] of sqlite.rows.entries()) {
        const other = postgres.rows[i]!;
        expect(other.tokens, row.key).toEqual(row.tokens);
        expect(other.tasks, row.key).toBe(row.tasks);
        expect(cents(other.cost.usd), row.key).toBe(cents(row.cost.usd));
        expect(cents(other.cost.saved_usd), row.key).toBe(cents(row.cost.saved_usd));
        expect(other.cost.unknown_tokens, row.key).toBe(row.cost.unknown_tokens);
      }
      expect(postgres.top.map((t) => [t.uuid, t.tokens])).toEqual(
        sqlite.top.map((t) => [t.uuid, t.tokens]),
      );
      expect(sqlite.total.cost.usd).toBeGreaterThan(0.5);
    },
  );

  it("places usage at its messages' hours and counts compactions' calls on PostgreSQL too", () => {
    const repo = stores.postgres.repo as PgTaskRepository;
    const [hours] = repo.sql<{ tasks: number; own: number }>(
      `SELECT COUNT(DISTINCT task)::bigint AS tasks,
         COUNT(*) FILTER (WHERE task = (SELECT seq FROM tasks WHERE title = 'own task'))::bigint
           AS own
       FROM usage_hours`,
    );
    expect(hours!.tasks).toBeGreaterThan(3);
    // Our own task's usage is on its messages: the catch-up records it.
    expect(hours!.own).toBe(1);
    const [compactions] = repo.sql<{ n: number }>(
      'SELECT COUNT(*)::bigint AS n FROM usage_compactions',
    );
    expect(compactions!.n).toBeGreaterThan(0);
  });
});
