import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { REQUEST_FILE, TASK_FILES } from './contexts-layout';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

function setup(): { root: string; store: ContextStore } {
  const root = path.join(tempDir(), 'contexts');
  return { root, store: ContextStore.open(root) };
}

describe('recovery when a store is opened', () => {
  it('marks a running task whose process is gone as failed "interrupted", keeps its files, and lets it resume', () => {
    const { root, store } = setup();
    const task = store.createTask({ title: 'crashy' });
    for (let i = 1; i <= 3; i++) task.addMessage({ role: 'user', content: `m${i}` });
    task.close();
    store.repo.setStatus(task.uuid, 'running', { process_id: deadPid(), hostname: null });
    // The crash tore the last line: half a JSON object without its newline.
    fs.appendFileSync(
      path.join(root, 'running', task.uuid, TASK_FILES.messages),
      '{"seq":4,"role":"us',
    );
    // And left its request body, as large as the context, which no one will send now.
    fs.writeFileSync(
      path.join(root, 'running', task.uuid, REQUEST_FILE),
      '{"model":"m","messages":[',
    );
    store.close();

    const reopened = ContextStore.open(root);
    const report = reopened.recovery!;
    expect(report.interrupted).toEqual([task.uuid]);
    expect(report.tornLines).toHaveLength(1);
    expect(fs.readFileSync(report.tornLines[0]!.corruptPath, 'utf8')).toContain(
      '{"seq":4,"role":"us',
    );
    const row = reopened.requireTask(task.uuid);
    expect(row).toMatchObject({ status: 'failed', total_messages: 3 });
    expect(row.error_message).toMatch(/^interrupted/);
    expect(fs.existsSync(path.join(root, 'completed', task.uuid))).toBe(true);
    expect(fs.readdirSync(path.join(root, 'completed', task.uuid))).not.toContain(REQUEST_FILE);

    const resumed = reopened.resumeTask(task.uuid);
    expect(resumed.addMessage({ role: 'assistant', content: 'back' }).seq).toBe(4);
    resumed.close();
    reopened.close();
  });

  it('leaves a running task alone while its process lives', () => {
    const { root, store } = setup();
    const task = store.createTask();
    task.addMessage({ role: 'user', content: 'still going' });
    store.close();
    const other = ContextStore.open(root);
    expect(other.recovery!.interrupted).toEqual([]);
    expect(other.requireTask(task.uuid).status).toBe('running');
    task.close();
    other.close();
  });

  it('removes rows whose folder is gone and re-indexes folders that have no row', async () => {
    const { root, store } = setup();
    const gone = store.createTask({ title: 'gone' });
    gone.close();
    const orphan = store.createTask({
      title: 'orphan',
      key: { owner: 'acme', repo: 'web', user: 'ann' },
    });
    orphan.addMessage({ role: 'user', content: 'one' });
    orphan.addMessage({ role: 'assistant', content: 'two' });
    await orphan.stop();
    fs.rmSync(path.join(root, 'running', gone.uuid), { recursive: true });
    store.repo.delete(orphan.uuid);
    store.close();

    const reopened = ContextStore.open(root);
    expect(reopened.recovery).toMatchObject({
      rowsWithoutFolder: [gone.uuid],
      foldersWithoutRow: [orphan.uuid],
    });
    expect(reopened.repo.get(gone.uuid)).toBeUndefined();
    expect(reopened.requireTask(orphan.uuid)).toMatchObject({
      status: 'paused',
      title: 'orphan',
      repository: 'acme/web',
      user: 'ann',
      total_messages: 2,
    });
    reopened.close();
  });

  it('moves a folder back to where its row says it belongs', async () => {
    const { root, store } = setup();
    const task = store.createTask();
    await task.stop();
    fs.renameSync(path.join(root, 'paused', task.uuid), path.join(root, 'completed', task.uuid));
    store.close();
    const reopened = ContextStore.open(root);
    expect(reopened.recovery!.moved).toEqual([
      { uuid: task.uuid, from: 'completed', to: 'paused' },
    ]);
    expect(fs.existsSync(path.join(root, 'paused', task.uuid))).toBe(true);
    reopened.close();
  });

  it('reports nothing on a healthy store', () => {
    const { root, store } = setup();
    store.createTask().close();
    store.close();
    const reopened = ContextStore.open(root);
    expect(reopened.recovery).toEqual({
      interrupted: [],
      moved: [],
      rowsWithoutFolder: [],
      foldersWithoutRow: [],
      tornLines: [],
    });
    reopened.close();
  });
  it("removes a staging folder a gone process left (a history task it never finished), and keeps a live one's", () => {
    const { root, store } = setup();
    store.close();
    const uuid = '0b5c5f4e-8a8e-4c55-9d3b-3d2f1c1a7e02';
    const dead = path.join(root, 'completed', `.new-${uuid}-${deadPid()}`);
    const live = path.join(root, 'completed', `.new-${uuid}-${process.pid}`);
    for (const dir of [dead, live]) {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, TASK_FILES.metadata), JSON.stringify({ uuid }));
    }
    const reopened = ContextStore.open(root);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    // Neither was ever taken for a task folder without a row.
    expect(reopened.recovery!.foldersWithoutRow).toEqual([]);
    expect(reopened.repo.get(uuid)).toBeUndefined();
    reopened.close();
  });
});
