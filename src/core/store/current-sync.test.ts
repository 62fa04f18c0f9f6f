import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { TASK_FILES } from './contexts-layout';
import { removeDeadTempFiles, syncCurrent } from './current-sync';
import { toCurrent } from './message-store';
import { readView } from '../compaction/read-view';
import { compactTask } from '../compaction/task-compaction';
import { defaultConfig } from '../config/app-config';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** A pid that is surely not alive: beyond Linux's pid_max. */
const DEAD_PID = 4_194_305;

function lines(file: string): unknown[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
}

async function pausedTask(turns = 6): Promise<{ store: ContextStore; uuid: string; dir: string }> {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({ title: 'sync' });
  task.addMessage({ role: 'system', content: 'You are careful.' });
  for (let i = 0; i < turns; i++) {
    task.addMessage({ role: 'user', content: `question ${i} `.repeat(30) });
    task.addMessage({ role: 'assistant', content: `answer ${i} `.repeat(30) });
  }
  await task.stop();
  return { store, uuid: task.uuid, dir: store.taskPath(store.requireTask(task.uuid)) };
}

/** Drops the last line of a file, as a kill between a message's two lines leaves current.jsonl. */
function dropLastLine(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
}

const viewOf = (dir: string): unknown[] => readView(dir).view.map((e) => e.message);

describe('syncCurrent (a task opened for writing)', () => {
  it('appends the message a kill kept out of current.jsonl, and leaves an intact file alone', async () => {
    const { store, uuid, dir } = await pausedTask();
    const currentPath = path.join(dir, TASK_FILES.current);
    const intact = fs.readFileSync(currentPath);
    expect(syncCurrent(dir)).toBe('in-sync');
    dropLastLine(currentPath);
    const task = store.resumeTask(uuid);
    expect(lines(path.join(task.dir, TASK_FILES.current))).toEqual(viewOf(task.dir));
    expect(fs.readFileSync(path.join(task.dir, TASK_FILES.current)).equals(intact)).toBe(true);
    task.close();
    store.close();
  });

  it('after a compaction, finds the missing message behind the plan', async () => {
    const { store, uuid } = await pausedTask();
    await compactTask(store, defaultConfig(), uuid, {
      dryRun: false,
      offline: true,
      pipeline: ['truncate'],
    });
    const task = store.resumeTask(uuid);
    const next = task.addMessage({ role: 'user', content: 'after the compaction' });
    task.close();
    const currentPath = path.join(task.dir, TASK_FILES.current);
    dropLastLine(currentPath);
    expect(syncCurrent(task.dir)).toBe('appended');
    expect(lines(currentPath).at(-1)).toEqual(toCurrent(next));
    expect(lines(currentPath)).toEqual(viewOf(task.dir));
    store.close();
  });

  it('rebuilds current.jsonl from the view when a rewrite of it was interrupted, and removes temp files of dead processes only', async () => {
    const { store, uuid, dir } = await pausedTask();
    const currentPath = path.join(dir, TASK_FILES.current);
    const dead = path.join(dir, `.${TASK_FILES.current}.tmp-${DEAD_PID}-0123456789ab`);
    const deadMeta = path.join(dir, `.${TASK_FILES.metadata}.tmp-${DEAD_PID}-0123456789ab`);
    const live = path.join(dir, `.${TASK_FILES.finalSummary}.tmp-${process.pid}-0123456789ab`);
    for (const f of [dead, deadMeta, live]) fs.writeFileSync(f, 'partial');
    // current.jsonl disagrees with the view (e.g. the old version before a compaction).
    fs.writeFileSync(currentPath, `${JSON.stringify({ role: 'user', content: 'old' })}\n`);
    const task = store.resumeTask(uuid);
    expect(fs.readdirSync(task.dir).filter((n) => n.includes('.tmp-'))).toEqual([
      path.basename(live),
    ]);
    expect(lines(path.join(task.dir, TASK_FILES.current))).toEqual(viewOf(task.dir));
    task.close();
    store.close();
  });

  it('rebuilds when the end of current.jsonl is not the end of the view at all', async () => {
    const { dir, store } = await pausedTask();
    const currentPath = path.join(dir, TASK_FILES.current);
    fs.appendFileSync(currentPath, 'null\n');
    expect(syncCurrent(dir)).toBe('rebuilt');
    expect(lines(currentPath)).toEqual(viewOf(dir));
    expect(removeDeadTempFiles(dir)).toEqual([]);
    store.close();
  });

  it('a task with no messages yet is in sync', () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const task = store.createTask({});
    expect(syncCurrent(task.dir)).toBe('in-sync');
    task.close();
    store.close();
  });
});
