import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/core/config/load-config';
import type { AppConfig } from '../src/core/config/app-config';
import { ContextStore } from '../src/core/store/context-store';
import { importPaths } from '../src/core/import';
import { agentCompactionPoints, pointAt } from '../src/core/compaction/compaction-points';
import {
  neededAt,
  reReadsAt,
  scoreAgentContext,
  scoreCandidateAt,
} from '../src/core/compaction/needed-next-eval';
import { contextWindowOf } from '../src/core/compaction/task-compaction';
import { droppedEvidence } from '../src/core/facts/dropped-evidence';
import { futureReferenceRecall } from '../src/core/facts/needed-next';
import { realFixture } from './support/real-fixtures';

/**
 * "Needed next" (FRR) on real Claude Code sessions that Claude Code compacted itself: what
 * the agent typed after the compaction decides what the new context had to keep.
 */
const FIXTURES = ['624a4a58-compacted.jsonl', 'entire-53ea1606-compacted.jsonl'];

let tmp: string;
let store: ContextStore;
let config: AppConfig;
const tasks = new Map<string, string>();

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-frr-'));
  config = parseConfigText('', { file: 'test', baseDir: tmp, env: {} });
  store = ContextStore.open(path.join(tmp, 'contexts'), { recover: false });
  for (const name of FIXTURES) {
    const run = await importPaths(store, [realFixture('claude-code-compacted', name)], {});
    const main = run.results.flatMap((r) => r.tasks).find((t) => t.parent_uuid === null)!;
    tasks.set(name, main.uuid);
  }
}, 120_000);

afterAll(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.each(FIXTURES)('%s', (name) => {
  it('keeps far more of what the agent needed next than Claude Code’s own summary, in a tenth of the prefix', async () => {
    const row = store.requireTask(tasks.get(name)!);
    const dir = store.taskPath(row);
    const points = agentCompactionPoints(dir);
    expect(points).toHaveLength(1);
    const point = points[0]!;
    expect(point.notes).toEqual([]);
    expect(point.agentPreTokens).toBeGreaterThan(50_000);
    const needed = neededAt(point);
    expect(needed.length).toBeGreaterThan(50);
    const agent = scoreAgentContext(point, needed)!;
    const ours = await scoreCandidateAt(
      dir,
      config,
      contextWindowOf(row, config),
      point,
      config.compaction.pipeline,
      needed,
    );
    expect(ours.applied).toBe(true);
    expect(agent.frr!).toBeLessThan(0.4);
    expect(ours.frr!).toBeGreaterThanOrEqual(0.95);
    // The newest messages stay whole beside the summary: about a tenth of the prefix in all.
    expect(ours.tokensAfter / ours.tokensBefore).toBeLessThanOrEqual(0.12);
    // The agent read files again and ran commands again after its compaction.
    expect(reReadsAt(point).count).toBeGreaterThan(0);
  });

  it('ranks the evidence Claude Code’s summary dropped under a hook’s budget', () => {
    const dir = store.taskPath(store.requireTask(tasks.get(name)!));
    const point = agentCompactionPoints(dir)[0]!;
    const needed = neededAt(point);
    const summary = point.agentContext![0]!.message.content!;
    const evidence = droppedEvidence(
      point.prefix.map((e) => ({ message: e.message })),
      summary,
      { maxTokens: 4000, note: '' },
    );
    expect(evidence.tokens).toBeLessThanOrEqual(4000);
    expect(evidence.shown).toBeGreaterThan(100);
    const alone = futureReferenceRecall(needed, summary).frr!;
    const repaired = futureReferenceRecall(needed, `${summary}\n${evidence.text}`).frr!;
    expect(repaired).toBeGreaterThanOrEqual(0.9);
    expect(repaired - alone).toBeGreaterThan(0.5);
  });
});

describe('a what-if point', () => {
  it('is the context up to a seq and what the agent did after it', () => {
    const dir = store.taskPath(store.requireTask(tasks.get(FIXTURES[0]!)!));
    const agent = agentCompactionPoints(dir)[0]!;
    const earlier = pointAt(dir, Math.floor(agent.endSeq / 2));
    expect(earlier.startSeq).toBe(1);
    expect(earlier.prefix.at(-1)!.record!.seq).toBeLessThanOrEqual(earlier.endSeq);
    // What followed ends at the agent's own compaction (its summary starts another context).
    expect(earlier.after.length).toBeGreaterThan(0);
    expect(earlier.after.length).toBeLessThan(agent.endSeq);
    expect(neededAt(earlier).length).toBeGreaterThan(0);
  });
});
