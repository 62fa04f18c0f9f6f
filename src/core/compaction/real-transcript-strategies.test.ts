/**
 * Both strategies on real conversations: tau-bench airline runs of gpt-4o (OpenAI chat
 * messages with tool calls, parallel calls and `Error: …` results), turned into stored
 * records as an import would.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolOutputStore } from '../store/tool-output-store';
import { estimateTokens } from '../tokens/estimate';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { SNAPSHOT_HEADER, parseSnapshot } from './context-snapshot';
import { IMPORTANCE_WINDOW_DEFAULTS, importanceWindow } from './importance-window';
import type { StrategyResult } from './strategy';
import { openAiToRecords, pairProblems, strategyContext } from './test-support/records';
import { repairToolPairs } from './tool-pairing';
import {
  TOOL_OUTPUT_TRIM_DEFAULTS,
  TRIMMED_PREFIX,
  toolOutputTrim,
  trimmedPlaceholder,
  type ToolOutputTrimParams,
} from './tool-output-trim';
import { entryFromRecord, entrySeq, type ViewEntry } from './view';

const FIXTURE = realFixture('openai-chat', 'tau-bench-gpt-4o-airline.json');

const tempDir = useTempDir('cwb-real-');

let runs: ViewEntry[][] = [];
let longest: ViewEntry[] = [];

beforeAll(() => {
  const doc = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { traj: unknown[] }[];
  runs = doc.map((run) => openAiToRecords(run.traj).map((r) => entryFromRecord(r)));
  longest = runs.reduce((a, b) => (b.length > a.length ? b : a));
});

function applied(result: StrategyResult): Extract<StrategyResult, { applied: true }> {
  if (!result.applied) throw new Error(`not applied: ${result.reason}`);
  return result;
}

/**
 * What breaks the invariants every plan keeps: system first, pairs intact, entries that are
 * the view's own (same stored record, same role and tool ids) in time order. Collected as
 * text so that thousands of checks cost one assertion.
 */
function planProblems(before: readonly ViewEntry[], after: readonly ViewEntry[]): string[] {
  const problems = pairProblems(after);
  if (after[0] !== before[0] || after[0]?.message.role !== 'system')
    problems.push('system not first');
  const repaired = repairToolPairs(after);
  if (repaired.length !== after.length || repaired.some((e, i) => e !== after[i])) {
    problems.push('repairToolPairs changed the plan');
  }
  const bySeq = new Map(before.map((e) => [entrySeq(e), e]));
  let last = 0;
  for (const e of after) {
    if (e.create) continue;
    const seq = entrySeq(e);
    const original = bySeq.get(seq);
    if (seq === undefined || !original) {
      problems.push(`entry ${seq ?? 'inline'} is not from the view`);
      continue;
    }
    const m = e.message;
    const o = original.message;
    if (e.record !== original.record || m.role !== o.role || m.tool_call_id !== o.tool_call_id) {
      problems.push(`entry ${seq} is not the stored message`);
    }
    if (JSON.stringify(m.tool_calls) !== JSON.stringify(o.tool_calls)) {
      problems.push(`entry ${seq} changed its tool calls`);
    }
    if (seq <= last) problems.push(`entry ${seq} out of order`);
    last = seq;
  }
  return problems;
}

function checkPlan(before: readonly ViewEntry[], after: readonly ViewEntry[]): void {
  expect(planProblems(before, after)).toEqual([]);
}

describe('tau-bench airline transcript', () => {
  it('converts into a view with tool pairs intact', () => {
    expect(runs).toHaveLength(200);
    expect(longest.length).toBe(62);
    expect(pairProblems(longest)).toEqual([]);
  });

  it('tool-output-trim: oldest outputs behind refs that read back in full, newest kept', async () => {
    const store = new ToolOutputStore(tempDir());
    const p: ToolOutputTrimParams = { ...TOOL_OUTPUT_TRIM_DEFAULTS, context_budget_tokens: 1000 };
    const result = applied(await toolOutputTrim.run(strategyContext(longest, store), p));
    checkPlan(longest, result.view);
    const tools = result.view.filter((e) => e.message.role === 'tool');
    const trimmed = tools.filter((e) => e.message.content!.startsWith(TRIMMED_PREFIX));
    expect(trimmed.length).toBeGreaterThan(0);
    // the trimmed ones are the oldest: once an output is kept, no later one is trimmed (outputs
    // no bigger than a placeholder are never worth replacing)
    const placeholderTokens = estimateTokens(trimmedPlaceholder('trim_000000000000'));
    const firstKept = tools.findIndex(
      (e) => !e.message.content!.startsWith(TRIMMED_PREFIX) && e.tokens > placeholderTokens,
    );
    expect(firstKept).toBeGreaterThan(0);
    expect(tools.slice(firstKept).some((e) => e.message.content!.startsWith(TRIMMED_PREFIX))).toBe(
      false,
    );
    expect(tools.at(-1)!.message.content).toBe(
      longest.filter((e) => e.message.role === 'tool').at(-1)!.message.content,
    );
    expect(tools.reduce((n, e) => n + e.tokens, 0)).toBeLessThanOrEqual(1000);
    for (const e of trimmed) {
      const ref = /ref=([\w-]+)\]$/.exec(e.message.content!)![1]!;
      expect(store.readLines(ref, 0, 100_000).lines.join('\n')).toBe(e.record!.content);
    }
  });

  it('importance-window: system, snapshot, recent 40 %, important older, pairs intact', async () => {
    const store = new ToolOutputStore(tempDir());
    const result = applied(
      await importanceWindow.run(strategyContext(longest, store), IMPORTANCE_WINDOW_DEFAULTS),
    );
    checkPlan(longest, result.view);
    expect(result.view.length).toBeLessThanOrEqual(24);
    const snapshot = result.view[1]!;
    expect(snapshot.create).toBe('summary');
    const s = parseSnapshot(snapshot.message.content!)!;
    expect(s.goal).toBe(longest[1]!.message.content);
    // the user's thanks come after the last answer, so the agent is not done yet
    expect(s.currentPhase).toBe('executing');
    expect(
      s.keyObservations.some((o) => o.includes('Error: gift card balance is not enough')),
    ).toBe(true);
    for (const e of longest.slice(-10)) expect(result.view).toContain(e);
    // the failed updates (importance 0.8) outrank ordinary lookups among the older messages
    const kept = new Set(result.view.map((e) => e.message.content));
    expect(kept.has('Error: not enough seats on flight HAT229')).toBe(true);
    expect(store.dir).toBeDefined();
    expect(fs.existsSync(store.dir)).toBe(false);
  });

  it('keeps the invariants on every run, for both strategies, real and dry', async () => {
    const p: ToolOutputTrimParams = { ...TOOL_OUTPUT_TRIM_DEFAULTS, context_budget_tokens: 500 };
    let trimmed = 0;
    let windowed = 0;
    const problems: string[] = [];
    const check = (label: string, before: readonly ViewEntry[], after: readonly ViewEntry[]) =>
      problems.push(...planProblems(before, after).map((p) => `${label}: ${p}`));
    for (const [n, view] of runs.entries()) {
      const store = new ToolOutputStore(tempDir());
      // real runs save (and fsync) every trimmed output: every tenth run is enough for them
      for (const dryRun of n % 10 === 0 ? [true, false] : [true]) {
        const trim = await toolOutputTrim.run(strategyContext(view, store, { dryRun }), p);
        if (trim.applied) {
          check(`run ${n} trim`, view, trim.view);
          trimmed++;
        }
        const window = await importanceWindow.run(
          strategyContext(view, store, { dryRun }),
          IMPORTANCE_WINDOW_DEFAULTS,
        );
        if (window.applied) {
          check(`run ${n} window`, view, window.view);
          if (window.view.length > 24)
            problems.push(`run ${n} window: ${window.view.length} messages`);
          if (!window.view[1]!.message.content!.startsWith(SNAPSHOT_HEADER)) {
            problems.push(`run ${n} window: no snapshot after the system prompt`);
          }
          windowed++;
        } else if (view.length > 24) {
          problems.push(`run ${n} window declined: ${window.reason}`);
        }
        // chained: the window over the trimmed context keeps them too
        if (trim.applied) {
          const chained = await importanceWindow.run(
            strategyContext(trim.view, store, { dryRun }),
            IMPORTANCE_WINDOW_DEFAULTS,
          );
          if (chained.applied) check(`run ${n} trim + window`, view, chained.view);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(trimmed).toBeGreaterThan(100);
    expect(windowed).toBeGreaterThan(100);
  });
});
