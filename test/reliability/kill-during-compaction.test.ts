/**
 * Faults (issue 9): processes SIGKILLed while they compact a task. 30 kills: 20 frozen
 * between the temp write and the rename of current.jsonl (test/support/fault-hooks.ts
 * blocks the rename and tells us; no hook in src/), 10 at a random moment of the run.
 * Compactions run both as `cwb compact` runs them (maintenance on a paused task) and as a
 * task process runs them (the task resumed first). After each kill: current.jsonl is
 * byte-for-byte the old or the new version, tasks.db agrees with the folders, every
 * message line is intact, and the task resumes with seq going on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { toCurrent } from '../../src/core/store/message-store';
import { readView } from '../../src/core/compaction/read-view';
import type { SummaryRecord, CurrentMessage } from '../../src/shared/task-types';
import { waitForExit } from '../support/run-ts';
import { useFaultChildren } from '../support/fault-children';
import {
  LineWatcher,
  assertDbMatchesFolders,
  assertMessagesIntact,
  checkedContent,
  faultSeed,
  parseJsonl,
  seededRandom,
  sleep,
  tempFilesIn,
} from '../support/reliability';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-kill-compact-');
const spawnChild = useFaultChildren();

const SEED = faultSeed();
const FROZEN_KILLS = 20;
const RANDOM_KILLS = 10;
const LANES = 3;

const tally = {
  kills: 0,
  frozenBeforeRename: 0,
  randomMoment: 0,
  currentOld: 0,
  currentNew: 0,
  /** The compaction record was written but current.jsonl is still the old version. */
  recordInEffectCurrentOld: 0,
  /** `.current.jsonl.tmp-*` files left in the task folder after the kill. */
  tempFilesLeft: 0,
  /** tasks.db total_summaries differs from summaries.jsonl after reopening. */
  summaryCountDrift: 0,
};
afterAll(() => {
  console.info(`kill-during-compaction seed=${SEED} ${JSON.stringify(tally)}`);
});

/** How long frozen rounds took from `start` to the rename: the scale of the random kills. */
const renameTimes: number[] = [];
function typicalRenameMs(): number {
  const sorted = [...renameTimes].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 100;
}

const PIPELINES = ['truncate', 'extractive', 'extractive,truncate'];

interface Lane {
  root: string;
  uuid: string;
  side: string;
  round: number;
}

/** Adds a turn or two of conversation (with a tool call and its result) and pauses the task. */
async function growTask(lane: Lane, first: boolean): Promise<void> {
  const store = ContextStore.open(lane.root);
  const task = first
    ? store.createTask({ title: 'compaction faults' })
    : store.resumeTask(lane.uuid);
  lane.uuid = task.uuid;
  if (first) task.addMessage({ role: 'system', content: 'You are a careful agent.' });
  // Enough on the first round for every strategy to apply (extractive keeps the last 5).
  for (let turn = 0; turn < (first ? 4 : 2); turn++) {
    const id = `call_${lane.round}_${turn}`;
    task.addMessage({ role: 'user', content: checkedContent(lane.round, 30 + turn * 20) });
    task.addMessage({
      role: 'assistant',
      content: 'Reading the file.',
      tool_calls: [
        { id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ],
    });
    task.addMessage({
      role: 'tool',
      tool_call_id: id,
      tool_name: 'read_file',
      content: checkedContent(turn, 120),
    });
    task.addMessage({ role: 'assistant', content: checkedContent(-turn, 15) });
  }
  await task.stop();
  store.close();
}

function taskDirOf(root: string, uuid: string): string {
  return ['running', 'paused', 'completed']
    .map((f) => path.join(root, f, uuid))
    .find((d) => fs.existsSync(d))!;
}

async function compactionRound(lane: Lane, random: () => number, frozen: boolean): Promise<void> {
  await growTask(lane, lane.round === 0);
  const before = taskDirOf(lane.root, lane.uuid);
  const oldCurrent = fs.readFileSync(path.join(before, 'current.jsonl'));
  const tempsBefore = tempFilesIn(before).length;
  const summariesBefore = parseJsonl<SummaryRecord>(path.join(before, 'summaries.jsonl')).length;
  fs.rmSync(lane.side, { recursive: true, force: true });
  fs.mkdirSync(lane.side, { recursive: true });
  const mode = random() < 0.5 ? 'maintenance' : 'running';
  const pipeline = PIPELINES[Math.floor(random() * PIPELINES.length)]!;
  const child = spawnChild('fault-compactor', [lane.root, lane.uuid, mode, pipeline], {
    CWB_FAULT_CAPTURE_DIR: lane.side,
    ...(frozen && { CWB_FAULT_BLOCK_BEFORE_RENAME: 'current.jsonl' }),
  });
  const exited = waitForExit(child);
  const watch = new LineWatcher(child);
  if (frozen) {
    await watch.waitFor((l) => l === 'start');
    const started = Date.now();
    const line = await watch.waitFor((l) => l.startsWith('blocked rename') || l.startsWith('done'));
    expect(line, `${mode} ${pipeline}: the compaction reached the rename`).toMatch(
      /^blocked rename /,
    );
    renameTimes.push(Date.now() - started);
  } else {
    // A random moment from the start of the compaction to well past its usual end (twice the
    // time frozen rounds took to reach the rename), so some kills land after the rename.
    await watch.waitFor((l) => l === 'start');
    await sleep(random() * 2 * typicalRenameMs());
  }
  child.kill('SIGKILL');
  const exit = await exited;
  expect(exit.signal, exit.stderr).toBe('SIGKILL');
  tally.kills++;
  if (frozen) tally.frozenBeforeRename++;
  else tally.randomMoment++;
  lane.round++;

  // current.jsonl is exactly the old or exactly the new version, never a mix.
  const newPath = path.join(lane.side, 'new.jsonl');
  const newCurrent = fs.existsSync(newPath) ? fs.readFileSync(newPath) : undefined;
  const dirAfterKill = taskDirOf(lane.root, lane.uuid);
  const current = fs.readFileSync(path.join(dirAfterKill, 'current.jsonl'));
  const isOld = current.equals(oldCurrent);
  const isNew = newCurrent !== undefined && current.equals(newCurrent);
  expect(isOld || isNew, 'current.jsonl is the old or the new version').toBe(true);
  if (frozen) {
    expect(isOld).toBe(true);
    expect(newCurrent!.equals(oldCurrent)).toBe(false);
  }
  if (fs.existsSync(path.join(lane.side, 'old.jsonl')))
    expect(fs.readFileSync(path.join(lane.side, 'old.jsonl')).equals(oldCurrent)).toBe(true);
  if (isOld) tally.currentOld++;
  else tally.currentNew++;
  tally.tempFilesLeft += tempFilesIn(dirAfterKill).length - tempsBefore;

  const store = ContextStore.open(lane.root);
  try {
    const report = store.recovery!;
    expect(report.rowsWithoutFolder).toEqual([]);
    expect(report.foldersWithoutRow).toEqual([]);
    assertDbMatchesFolders(store);
    const row = store.requireTask(lane.uuid);
    expect(['paused', 'failed']).toContain(row.status);
    if (row.status === 'failed') expect(row.error_message).toMatch(/^interrupted/);
    const dir = store.taskPath(row);
    expect(fs.readFileSync(path.join(dir, 'current.jsonl')).equals(current)).toBe(true);

    // Resumable: torn record lines are set aside, seq goes on, the new message is in context.
    const task = store.resumeTask(lane.uuid);
    const summaries = parseJsonl<SummaryRecord>(path.join(task.dir, 'summaries.jsonl'));
    expect(summaries.length).toBeGreaterThanOrEqual(summariesBefore);
    if (summaries.length > summariesBefore && isOld) tally.recordInEffectCurrentOld++;
    if (store.requireTask(lane.uuid).total_summaries !== summaries.length)
      tally.summaryCountDrift++;
    const records = assertMessagesIntact(path.join(task.dir, 'messages.jsonl'));
    const next = task.addMessage({ role: 'user', content: checkedContent(99, 5) });
    expect(next.seq).toBe(records.length + 1);
    const lines = parseJsonl<CurrentMessage>(path.join(task.dir, 'current.jsonl'));
    expect(lines.at(-1)).toEqual(toCurrent(next));
    // Whatever the context is now, the view rebuilt from the source of truth is well formed
    // (the next compaction or an undo rebuilds current.jsonl from it).
    const view = readView(task.dir).view;
    expect(view.at(-1)?.message).toEqual(toCurrent(next));
    expect(view[0]?.message.role).toBe('system');
    await task.stop();
  } finally {
    store.close();
  }
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe('SIGKILL during compaction', () => {
  it(`${FROZEN_KILLS} kills between the temp write and the rename of current.jsonl and ${RANDOM_KILLS} at random moments: current.jsonl old or new, DB matches folders, resumable`, async () => {
    const random = seededRandom(SEED);
    const lanes: Lane[] = Array.from({ length: LANES }, () => {
      const base = tempDir();
      return {
        root: path.join(base, 'contexts'),
        side: path.join(base, 'captured'),
        uuid: '',
        round: 0,
      };
    });
    const plan = shuffle(
      [
        ...Array.from({ length: FROZEN_KILLS }, () => true),
        ...Array.from({ length: RANDOM_KILLS }, () => false),
      ],
      random,
    );
    await Promise.all(
      lanes.map(async (lane, l) => {
        for (let i = l; i < plan.length; i += LANES) await compactionRound(lane, random, plan[i]!);
      }),
    );
    expect(tally.kills).toBe(FROZEN_KILLS + RANDOM_KILLS);
    expect(tally.frozenBeforeRename).toBe(FROZEN_KILLS);
  }, 300_000);
});
