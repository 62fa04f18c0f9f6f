/**
 * Faults (issue 9): task processes SIGKILLed while they append messages. 40 kills:
 * 30 of a child that appends self-checking messages as fast as it can (test/support/
 * fault-appender.ts) and 10 of the real built task process in the middle of a scripted run.
 * After each kill the store is reopened and checked: no complete line lost (byte-compare
 * with what was on disk), every checksum intact, current.jsonl the projection of the
 * history, tasks.db consistent with the folders, and the task resumable with seq going on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { toCurrent } from '../../src/core/store/message-store';
import { TaskSupervisor } from '../../src/core/supervisor/task-supervisor';
import type { CurrentMessage } from '../../src/shared/task-types';
import type { WorkerEvent } from '../../src/shared/worker-protocol';
import { capturingFork } from '../support/capturing-fork';
import { waitForExit } from '../support/run-ts';
import { useFaultChildren } from '../support/fault-children';
import {
  LineWatcher,
  assertDbMatchesFolders,
  assertMessagesIntact,
  checkedContent,
  completeLines,
  faultSeed,
  parseJsonl,
  seededRandom,
  sleep,
} from '../support/reliability';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm-server';
import { makeTaskEnv } from '../support/task-env';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-kill-append-');
const spawnChild = useFaultChildren();
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const SEED = faultSeed();
const APPENDER_KILLS = 30;
const WORKER_KILLS = 10;
const LANES = 3;

/** What the rounds saw, printed at the end (docs/reliability.md quotes a run). */
const tally = {
  kills: 0,
  timing: 0,
  tear: 0,
  between: 0,
  tornMessages: 0,
  tornCurrent: 0,
  currentOneBehind: 0,
  /** Messages of the history not in current.jsonl at the end (summed over the lanes' tasks). */
  currentSkipped: 0,
  beforeResumeCommitted: 0,
  linesChecked: 0,
};
const missingFromContext = new Map<string, number>();
afterAll(() => {
  tally.currentSkipped = [...missingFromContext.values()].reduce((a, b) => a + b, 0);
  console.info(`kill-during-append seed=${SEED} ${JSON.stringify(tally)}`);
});

function folderOf(root: string, uuid: string): string | undefined {
  return ['running', 'paused', 'completed']
    .map((f) => path.join(root, f, uuid))
    .find((d) => fs.existsSync(d));
}

/** A task with its first messages, paused: each round's child resumes it. */
async function pausedTask(root: string): Promise<string> {
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'append faults' });
  task.addMessage({ role: 'system', content: 'You are a test.' });
  task.addMessage({ role: 'user', content: checkedContent(0, 10) });
  await task.stop();
  store.close();
  return task.uuid;
}

type RoundMode = 'timing' | 'tear' | 'between';

/**
 * One kill. Half the rounds kill at a random moment (start-up, recovery, the resume
 * transaction, appends); a quarter tear a random write (messages.jsonl, current.jsonl or
 * the offset index) part way and kill the writer there; a quarter kill it between a
 * message's line in messages.jsonl and its line in current.jsonl.
 */
async function appendRound(root: string, uuid: string, random: () => number): Promise<void> {
  const pick = random();
  const mode: RoundMode = pick < 0.5 ? 'timing' : pick < 0.75 ? 'tear' : 'between';
  const nth = 1 + Math.floor(random() * 12);
  const target = ['messages.jsonl', 'current.jsonl', 'messages.jsonl.idx'][
    Math.floor(random() * 3)
  ]!;
  const env: NodeJS.ProcessEnv =
    mode === 'tear'
      ? { CWB_FAULT_TEAR_WRITE: `${target}:${nth}:${random().toFixed(3)}` }
      : mode === 'between'
        ? { CWB_FAULT_BLOCK_AFTER_WRITE: `messages.jsonl:${nth}` }
        : {};
  const child = spawnChild('fault-appender', [root, uuid, '6000'], env);
  const exited = waitForExit(child);
  const watch = new LineWatcher(child);
  if (mode !== 'timing') {
    expect(
      await watch.waitFor((l) => l.startsWith('torn write') || l.startsWith('blocked write')),
    ).toBeDefined();
  } else if (random() < 0.3) {
    // Anywhere from start-up on: opening the store, recovery, the resume transaction, appends.
    await sleep(random() * 1500);
  } else {
    await watch.waitFor((l) => l.startsWith('ready'));
    await sleep(random() * 150);
  }
  child.kill('SIGKILL');
  const exit = await exited;
  expect(exit.signal, exit.stderr).toBe('SIGKILL');
  tally.kills++;
  tally[mode]++;
  const acked = Math.max(
    0,
    ...watch.lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4))),
  );

  // What is on disk right after the kill, before anything repairs it.
  const before = folderOf(root, uuid)!;
  const messagesBefore = fs.readFileSync(path.join(before, 'messages.jsonl'));
  const completeBefore = completeLines(path.join(before, 'messages.jsonl'));
  const currentBefore = fs.readFileSync(path.join(before, 'current.jsonl'));
  if (messagesBefore.length > completeBefore.length) tally.tornMessages++;
  if (currentBefore.length > completeLines(path.join(before, 'current.jsonl')).length)
    tally.tornCurrent++;

  const store = ContextStore.open(root);
  try {
    const report = store.recovery!;
    expect(report.rowsWithoutFolder).toEqual([]);
    expect(report.foldersWithoutRow).toEqual([]);
    assertDbMatchesFolders(store);
    const row = store.requireTask(uuid);
    if (row.status === 'paused') tally.beforeResumeCommitted++;
    else
      expect(row).toMatchObject({
        status: 'failed',
        error_message: expect.stringMatching(/^interrupted/),
      });
    const dir = store.taskPath(row);

    // No complete line lost, and nothing but complete lines kept.
    expect(fs.readFileSync(path.join(dir, 'messages.jsonl')).equals(completeBefore)).toBe(true);
    const records = assertMessagesIntact(path.join(dir, 'messages.jsonl'));
    expect(records.length).toBeGreaterThanOrEqual(acked);
    tally.linesChecked += records.length;
    const torn = report.tornLines.find((t) => t.file.endsWith('messages.jsonl'));
    if (messagesBefore.length > completeBefore.length) {
      // The cut-off fragment is kept aside, never silently dropped.
      const fragment = messagesBefore.subarray(completeBefore.length);
      expect(torn?.bytes).toBe(fragment.length);
      const kept = fs.readFileSync(torn!.corruptPath);
      expect(
        kept
          .subarray(kept.length - fragment.length - 1)
          .equals(Buffer.concat([fragment, Buffer.from('\n')])),
      ).toBe(true);
    } else {
      expect(torn).toBeUndefined();
    }

    // current.jsonl holds projections of history messages, in order, ending with the last
    // one or the one before it (a kill between a message's two lines leaves it behind).
    // Counted here; the resume below catches current.jsonl up (was gap 1).
    const current = parseJsonl<CurrentMessage>(path.join(dir, 'current.jsonl'));
    const projected = records.map((r) => JSON.stringify(toCurrent(r)));
    let at = 0;
    for (const line of current) {
      const found = projected.indexOf(JSON.stringify(line), at);
      expect(
        found,
        'a current.jsonl line that is no message of the history',
      ).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
    expect([records.length - 1, records.length]).toContain(at);
    if (at < records.length) tally.currentOneBehind++;
    missingFromContext.set(uuid, records.length - current.length);

    // The offset index agrees (it is caught up or rebuilt on open).
    const window = store.readTask(uuid).messages(1, records.length + 10);
    expect(window.bad).toEqual([]);
    expect(window.messages.map((m) => m.seq)).toEqual(records.map((r) => r.seq));
    expect(row.total_messages).toBe(records.length);

    // Resumable: seq goes on from the last complete line.
    const task = store.resumeTask(uuid);
    const next = task.addMessage({ role: 'user', content: checkedContent(-1, 8) });
    expect(next.seq).toBe(records.length + 1);
    expect(task.messages.readWindow(next.seq, 1).messages[0]).toMatchObject({ seq: next.seq });
    await task.stop();
    // The context is the whole history again: the message a kill kept out of it is back.
    expect(
      parseJsonl<CurrentMessage>(
        path.join(store.taskPath(store.requireTask(uuid)), 'current.jsonl'),
      ),
    ).toEqual([...records, next].map((r) => toCurrent(r)));
  } finally {
    store.close();
  }
}

describe('SIGKILL during message appends', () => {
  it(`${APPENDER_KILLS} kills of an appending task process: no complete line lost, current.jsonl follows the history, DB matches folders, resumable`, async () => {
    const random = seededRandom(SEED);
    const lanes = await Promise.all(
      Array.from({ length: LANES }, async () => {
        const root = path.join(tempDir(), 'contexts');
        return { root, uuid: await pausedTask(root) };
      }),
    );
    await Promise.all(
      lanes.map(async ({ root, uuid }) => {
        for (let round = 0; round < APPENDER_KILLS / LANES; round++)
          await appendRound(root, uuid, random);
      }),
    );
    expect(tally.kills).toBe(APPENDER_KILLS);
  }, 300_000);

  it(`${WORKER_KILLS} kills of the built task process mid-run: every file intact, resumed each time, completes with tool calls paired`, async () => {
    const random = seededRandom(SEED + 1);
    let finishing = false;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: (_request, i) =>
        finishing
          ? { content: 'All done.', usage: { prompt_tokens: 5, completion_tokens: 2 } }
          : {
              content: `step ${i}: ${'checking the notes again. '.repeat(1 + (i % 40))}`,
              tool_calls: [
                { name: 'read_file', arguments: { path: 'notes.txt' } },
                { name: 'list_dir', arguments: { path: '.' } },
              ],
              usage: { prompt_tokens: 10, completion_tokens: 3 },
              // A little slow, so a kill lands in a call as well as between them (a resumed
              // task keeps the 10 000 turns it started with: they are kept in its row).
              delayMs: 50,
            },
    });
    servers.push(llm);
    const env = makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
    const { fork, workers } = capturingFork();
    const supervisor = new TaskSupervisor({
      fork,
      contextsRoot: env.root,
      configFile: env.configFile,
      env: { ...process.env, OPENAI_API_KEY: 'sk-unused' },
    });
    const events: WorkerEvent[] = [];
    supervisor.on('event', (e) => events.push(e));
    let uuid = '';
    let previous: Buffer = Buffer.alloc(0);
    for (let round = 0; round <= WORKER_KILLS; round++) {
      const last = round === WORKER_KILLS;
      finishing = last;
      const seen = events.length;
      if (round === 0)
        uuid = supervisor.start({
          prompt: 'Keep reading notes.txt',
          workdir: env.workdir,
          maxTurns: 10_000,
        });
      else supervisor.resume(uuid);
      if (!last) {
        const started = Date.now();
        while (!events.slice(seen).some((e) => e.type === 'message-appended')) {
          if (Date.now() - started > 20_000) throw new Error('the task process did not start');
          await sleep(5);
        }
        await sleep(random() * 200);
        process.kill(workers.at(-1)!.pid!, 'SIGKILL');
        tally.kills++;
      }
      const exit = await supervisor.waitForExit(uuid);
      expect(exit?.status).toBe(last ? 'completed' : 'failed');
      expect(workers.at(-1)!.stderr()).not.toMatch(/SQLITE_BUSY|database is locked|Error:/);

      const store = ContextStore.open(env.root);
      try {
        assertDbMatchesFolders(store);
        const row = store.requireTask(uuid);
        const file = path.join(store.taskPath(row), 'messages.jsonl');
        // Every complete line of the previous round is still there, byte for byte.
        expect(fs.readFileSync(file).subarray(0, previous.length).equals(previous)).toBe(true);
        previous = completeLines(file);
        if (!last) {
          expect(row).toMatchObject({
            status: 'failed',
            error_message: 'task process killed by SIGKILL',
          });
          continue;
        }
        expect(row.status).toBe('completed');
        const records = assertMessagesIntact(file);
        expect(row.total_messages).toBe(records.length);
        // The resumed context never leaves a tool call without its result.
        const current = parseJsonl<CurrentMessage>(path.join(store.taskPath(row), 'current.jsonl'));
        current.forEach((m, i) => {
          for (const call of m.tool_calls ?? []) {
            const answered = current
              .slice(i + 1)
              .some((r) => r.role === 'tool' && r.tool_call_id === call.id);
            expect(answered, `result of ${call.id}`).toBe(true);
          }
        });
      } finally {
        store.close();
      }
    }
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  }, 120_000);
});
