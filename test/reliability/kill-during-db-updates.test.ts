/**
 * Faults (issue 9): task processes SIGKILLed while they update tasks.db in a tight loop
 * (test/support/fault-db-writer.ts: LLM-call usage, tool calls, messages). 30 kills. After
 * each kill: the database passes `PRAGMA integrity_check`, every committed update is there
 * and at most the one in flight is extra, each update is atomic (token sums are exact
 * multiples of the call count), the statistics recounted from the files match them, the DB
 * agrees with the folders, and the task resumes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import type { TaskRow } from '../../src/shared/task-types';
import { waitForExit } from '../support/run-ts';
import { useFaultChildren } from '../support/fault-children';
import {
  LineWatcher,
  assertDbMatchesFolders,
  assertMessagesIntact,
  faultSeed,
  parseJsonl,
  seededRandom,
  sleep,
} from '../support/reliability';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-kill-db-');
const spawnChild = useFaultChildren();

const SEED = faultSeed();
const KILLS = 30;
const LANES = 3;

const tally = {
  kills: 0,
  killedBeforeResumeCommitted: 0,
  /** Updates committed whose ack never reached us (the kill came right after the commit). */
  committedNotAcked: 0,
  /** A tools.jsonl line whose tasks.db counter update never happened. */
  toolLineWithoutCounter: 0,
  /** tool_call_count (seed 000) differs from total_tool_calls (seed 001) after recovery. */
  toolCountersDisagree: 0,
  updatesAcked: 0,
};
afterAll(() => {
  console.info(`kill-during-db-updates seed=${SEED} ${JSON.stringify(tally)}`);
});

interface Lane {
  root: string;
  uuid: string;
  committed: { llm: number; tool: number };
  /** tools.jsonl lines never counted in tool_call_count, from earlier kills (never corrected). */
  uncounted: number;
}

async function newLane(): Promise<Lane> {
  const root = path.join(tempDir(), 'contexts');
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'db faults' });
  task.addMessage({ role: 'user', content: 'count things' });
  await task.stop();
  store.close();
  return { root, uuid: task.uuid, committed: { llm: 0, tool: 0 }, uncounted: 0 };
}

function rowBeforeRecovery(root: string, uuid: string): { row: TaskRow; integrity: unknown } {
  // recover: false reads the row as the killed process left it (SQLite itself rolls back
  // an unfinished transaction when the database is opened).
  const store = ContextStore.open(root, { recover: false });
  try {
    return {
      row: store.requireTask(uuid),
      integrity: store.db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    store.close();
  }
}

async function dbRound(lane: Lane, random: () => number): Promise<void> {
  const child = spawnChild('fault-db-writer', [lane.root, lane.uuid]);
  const exited = waitForExit(child);
  const watch = new LineWatcher(child);
  if (random() < 0.2) {
    await sleep(random() * 1500);
  } else {
    await watch.waitFor((l) => l === 'ready');
    await sleep(random() * 200);
  }
  child.kill('SIGKILL');
  const exit = await exited;
  expect(exit.signal, exit.stderr).toBe('SIGKILL');
  tally.kills++;
  const acks = { L: 0, T: 0, M: 0 };
  for (const line of watch.lines) if (line === 'L' || line === 'T' || line === 'M') acks[line]++;
  tally.updatesAcked += acks.L + acks.T + acks.M;

  const { row, integrity } = rowBeforeRecovery(lane.root, lane.uuid);
  expect(integrity).toBe('ok');
  // Every acknowledged update is committed; at most the one in flight is there unacknowledged.
  const llm = row.llm_call_count - lane.committed.llm;
  const tool = row.tool_call_count - lane.committed.tool;
  expect(llm - acks.L).toBeGreaterThanOrEqual(0);
  expect(llm - acks.L).toBeLessThanOrEqual(1);
  expect(tool - acks.T).toBeGreaterThanOrEqual(0);
  expect(tool - acks.T).toBeLessThanOrEqual(1);
  tally.committedNotAcked += llm - acks.L + (tool - acks.T);
  // Each update is one transaction: never a call counted without its tokens.
  expect(row.input_tokens).toBe(3 * row.llm_call_count);
  expect(row.output_tokens).toBe(2 * row.llm_call_count);
  expect(row.total_tokens).toBe(5 * row.llm_call_count);

  const store = ContextStore.open(lane.root);
  try {
    expect(store.recovery!.rowsWithoutFolder).toEqual([]);
    expect(store.recovery!.foldersWithoutRow).toEqual([]);
    assertDbMatchesFolders(store);
    const after = store.requireTask(lane.uuid);
    if (after.status === 'paused') tally.killedBeforeResumeCommitted++;
    else expect(after.error_message).toMatch(/^interrupted/);
    const dir = store.taskPath(after);
    const toolLines = parseJsonl<unknown>(path.join(dir, 'tools.jsonl')).length;
    // tools.jsonl gets its line before the counter update: a kill in between leaves one
    // line more than the counter says until recovery recounts tool_call_count from
    // tools.jsonl (was gap 2; kill-windows.test.ts hits that window every time).
    const gap = toolLines - after.tool_call_count - lane.uncounted;
    expect([0, 1]).toContain(gap);
    lane.uncounted += gap;
    tally.toolLineWithoutCounter += gap;
    const messages = assertMessagesIntact(path.join(dir, 'messages.jsonl'));
    if (after.status === 'failed') {
      // Recovery recounted what the files can tell.
      expect(after.total_messages).toBe(messages.length);
      expect(after.total_tool_calls).toBe(toolLines);
      if (after.tool_call_count !== after.total_tool_calls) tally.toolCountersDisagree++;
    }
    expect(fs.existsSync(path.join(dir, 'metadata.json'))).toBe(true);

    const task = store.resumeTask(lane.uuid);
    task.recordLlmCall({ input_tokens: 3, output_tokens: 2 });
    expect(task.addMessage({ role: 'user', content: 'go on' }).seq).toBe(messages.length + 1);
    await task.stop();
    const resumed = store.requireTask(lane.uuid);
    expect(resumed.llm_call_count).toBe(row.llm_call_count + 1);
    expect(resumed.total_tokens).toBe(5 * resumed.llm_call_count);
    lane.committed = { llm: resumed.llm_call_count, tool: resumed.tool_call_count };
  } finally {
    store.close();
  }
}

describe('SIGKILL during tasks.db updates', () => {
  it(`${KILLS} kills of a process updating statistics in a tight loop: integrity ok, committed updates kept, each atomic, DB matches folders, resumable`, async () => {
    const random = seededRandom(SEED);
    const lanes = await Promise.all(Array.from({ length: LANES }, () => newLane()));
    await Promise.all(
      lanes.map(async (lane) => {
        for (let round = 0; round < KILLS / LANES; round++) await dbRound(lane, random);
      }),
    );
    expect(tally.kills).toBe(KILLS);
  }, 300_000);
});
