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
import { startScriptedLlm, type ScriptedLlm } from '../../../test/support/scripted-llm-server';
import { defaultConfig } from '../config/app-config';
import { buildPipeline } from '../compaction/pipeline';
import { runCompaction } from '../compaction/compaction-engine';
import { llmSummarizer } from '../compaction/llm-summarizer';
import { createLlmClient } from '../llm';
import { indexPendingMessages } from '../search/message-index';

let root: string;
let store: ContextStore;
let llm: ScriptedLlm;
const book = new PriceBook();
/** The tasks compacted with an LLM summary (their records carry llm_usage). */
const compacted: string[] = [];
const SUMMARY_USAGE = { prompt_tokens: 90_000, completion_tokens: 1_200 };
/** Input tokens of the agents' own compaction calls recorded by the import (e.g. Copilot CLI's). */
let importedCompactionInput = 0;

function compactionInputOf(rows: ReturnType<ContextStore['listTasks']>['rows']): number {
  let n = 0;
  for (const row of rows)
    for (const r of allRecords(store.taskPath(row))) n += r.llm_usage?.input_tokens ?? 0;
  return n;
}

/** Compacts the largest priced imported tasks once each through a real LLM client. */
async function compactSome(): Promise<void> {
  llm = await startScriptedLlm({
    flavor: 'openai',
    script: () => ({ content: 'The agent investigated and edited files.', usage: SUMMARY_USAGE }),
  });
  const config = defaultConfig();
  config.llm.provider = 'openai';
  config.llm.openai = { model: 'gpt-4o-mini', base_url: llm.url, api_key: 'sk-test' };
  const summarizer = llmSummarizer(createLlmClient(config.llm));
  const rows = store
    .listTasks({ limit: 1000 })
    .rows.filter((r) => r.total_messages >= 20 && r.model && book.priceOf(r.model))
    .sort((a, b) => b.total_messages - a.total_messages)
    .slice(0, 3);
  for (const row of rows) {
    const task = store.openForMaintenance(row.uuid);
    try {
      const run = await runCompaction(task, {
        steps: buildPipeline(config, 8000, ['summarize'], {
          summarize: { keep_recent_messages: 3, min_to_compress: 1 },
        }),
        reason: 'manual',
        summarizer,
        contextWindow: 8000,
        maxOutputTokens: 1000,
        dryRun: false,
      });
      if (run.steps.some((s) => s.applied)) compacted.push(row.uuid);
    } finally {
      task.close();
    }
  }
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-usage-'));
  store = ContextStore.open(path.join(root, 'contexts'));
  const run = await importPaths(store, realTranscriptFiles());
  expect(run.results.length).toBeGreaterThan(8);
  importedCompactionInput = compactionInputOf(store.listTasks({ limit: 1000 }).rows);
  await compactSome();
  // What `cwb usage` and the API run before a report: the catch-up reads the new records.
  indexPendingMessages(store.db, (row) => store.taskPath(row));
}, 180_000);

afterAll(async () => {
  await llm?.close();
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The tasks' own costs (src/core/cost, as `cwb show` and the task view compute them). */
function ownCosts(): { usd: number; unknownTokens: number; tasks: number } {
  let usd = 0;
  let unknownTokens = 0;
  let tasks = 0;
  for (const row of store.listTasks({ limit: 1000 }).rows) {
    const records = allRecords(store.taskPath(row));
    const tokens =
      row.input_tokens +
      row.output_tokens +
      row.cache_read_tokens +
      row.cache_creation_tokens +
      records.reduce((n, r) => n + usageTokens(r.llm_usage), 0);
    if (tokens === 0) continue;
    tasks++;
    const cost = taskCost(row, records, book);
    if (cost.total.usd === null) unknownTokens += tokens;
    else usd += cost.total.usd;
  }
  return { usd, unknownTokens, tasks };
}

const cents = (usd: number): number => Math.round(usd * 100);

function usageTokens(u: Parameters<typeof taskCost>[1][number]['llm_usage']): number {
  if (!u) return 0;
  return (
    (u.input_tokens ?? 0) +
    (u.output_tokens ?? 0) +
    (u.cache_read_tokens ?? 0) +
    (u.cache_creation_tokens ?? 0)
  );
}

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

  it("counts the compactions' own LLM calls, at their hour, as the tasks' costs do", () => {
    expect(compacted.length).toBeGreaterThan(0);
    const rows = store.listTasks({ limit: 1000 }).rows;
    const input = rows.reduce((n, row) => n + row.input_tokens, 0);
    const compactionInput = compactionInputOf(rows);
    const ours = compacted.length * SUMMARY_USAGE.prompt_tokens;
    expect(compactionInput).toBe(importedCompactionInput + ours);
    const report = usageReport(store.db, book, { by: 'day', top: 50, timeZone: 'UTC' });
    expect(report.total.tokens.input).toBe(input + compactionInput);
    // A compaction made today is today's usage, apart from the session's own days.
    const today = new Date().toISOString().slice(0, 10);
    const day = report.rows.find((r) => r.key === today)!;
    expect(day.tokens.input).toBeGreaterThanOrEqual(ours);
    for (const uuid of compacted) {
      const row = rows.find((r) => r.uuid === uuid)!;
      const own = taskCost(row, allRecords(store.taskPath(row)), book).total.usd!;
      const top = report.top.find((t) => t.uuid === uuid)!;
      expect(cents(top.usd!)).toBe(cents(own));
      expect(own).toBeGreaterThan(taskCost(row, [], book).total.usd!);
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
      // Today holds the compactions made by this test and nothing of the sessions themselves.
      const ours = store
        .listTasks({ limit: 1000 })
        .rows.filter((r) => r.agent === agent && compacted.includes(r.uuid)).length;
      const todays = report.rows.find((r) => r.key === today)?.tokens;
      expect(todays ?? null, agent).toEqual(
        ours === 0
          ? null
          : {
              input: ours * SUMMARY_USAGE.prompt_tokens,
              output: ours * SUMMARY_USAGE.completion_tokens,
              cache_read: 0,
              cache_write: 0,
            },
      );
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
