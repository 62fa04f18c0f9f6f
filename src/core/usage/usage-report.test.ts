import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realTranscriptFiles } from '../../../test/support/real-transcript-files';
import { importPaths } from '../import';
import { ContextStore } from '../store/context-store';
import { PriceBook, taskCost } from '../cost';
import { allRecords } from '../compaction/compaction-record';
import { usageReport } from './usage-report';

let root: string;
let store: ContextStore;
const book = new PriceBook();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-usage-'));
  store = ContextStore.open(path.join(root, 'contexts'));
  const run = await importPaths(store, realTranscriptFiles());
  expect(run.results.length).toBeGreaterThan(8);
}, 120_000);

afterAll(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The tasks' own costs (src/core/cost, as `cwb show` and the task view compute them). */
function ownCosts(): { usd: number; unknownTokens: number; tasks: number } {
  let usd = 0;
  let unknownTokens = 0;
  let tasks = 0;
  for (const row of store.listTasks({ limit: 1000 }).rows) {
    const tokens =
      row.input_tokens + row.output_tokens + row.cache_read_tokens + row.cache_creation_tokens;
    if (tokens === 0) continue;
    tasks++;
    const cost = taskCost(row, allRecords(store.taskPath(row)), book);
    if (cost.total.usd === null) unknownTokens += tokens;
    else usd += cost.total.usd;
  }
  return { usd, unknownTokens, tasks };
}

const cents = (usd: number): number => Math.round(usd * 100);

describe('usage over time', () => {
  it('adds up by day, week, month, model, agent and repo to the tasks own costs, to the cent', () => {
    const own = ownCosts();
    expect(own.usd).toBeGreaterThan(0.5);
    for (const by of ['day', 'week', 'month', 'model', 'agent', 'repo'] as const) {
      const report = usageReport(store.db, book, { by, top: 5, timeZone: 'Asia/Tokyo' });
      const rowsUsd = report.rows.reduce((s, r) => s + r.cost.usd, 0);
      expect(cents(rowsUsd), by).toBe(cents(own.usd));
      expect(cents(report.total.cost.usd), by).toBe(cents(own.usd));
      expect(
        report.rows.reduce((s, r) => s + r.cost.unknown_tokens, 0),
        by,
      ).toBe(own.unknownTokens);
    }
  });

  it('spreads a session over the hours its messages ran in, not the import time', () => {
    const hours = store.db
      .prepare('SELECT task, COUNT(*) AS n FROM usage_hours GROUP BY task ORDER BY n DESC')
      .all() as { task: number; n: number }[];
    expect(hours[0]!.n).toBeGreaterThan(1);
    const today = new Date().toISOString().slice(0, 10);
    for (const agent of ['claude-code']) {
      const report = usageReport(store.db, book, { by: 'day', agent, top: 3, timeZone: 'UTC' });
      expect(report.rows.length, agent).toBeGreaterThan(0);
      expect(
        report.rows.map((r) => r.key),
        agent,
      ).not.toContain(today);
    }
  });

  it('counts a model without a price apart, never as $0', () => {
    const row = store.listTasks({ limit: 1000 }).rows.find((r) => r.input_tokens > 0)!;
    store.db.prepare("UPDATE tasks SET model = 'no-such-model-9' WHERE uuid = ?").run(row.uuid);
    const report = usageReport(store.db, book, { by: 'model', top: 3, timeZone: 'UTC' });
    const unknown = report.rows.find((r) => r.key === 'no-such-model-9')!;
    expect(unknown.cost.usd).toBe(0);
    expect(unknown.cost.unknown_tokens).toBe(
      row.input_tokens + row.output_tokens + row.cache_read_tokens + row.cache_creation_tokens,
    );
    expect(report.top.find((t) => t.uuid === row.uuid)?.usd ?? null).toBeNull();
  });

  it('states cache savings and filters by period', () => {
    const all = usageReport(store.db, book, { by: 'day', top: 0, timeZone: 'UTC' });
    expect(all.total.tokens.cache_read).toBeGreaterThan(0);
    expect(all.total.cost.saved_usd).toBeGreaterThan(0);
    const first = all.rows[0]!.key;
    const one = usageReport(store.db, book, {
      by: 'day',
      top: 0,
      timeZone: 'UTC',
      since: first,
      until: first,
    });
    expect(one.rows.map((r) => r.key)).toEqual([first]);
    expect(one.total.tokens).toEqual(all.rows[0]!.tokens);
  });
});
