import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { cleanupTasks } from './cleanup';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('cleanup', () => {
  it('removes completed and failed tasks older than the cutoff from the DB and the disk together', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const old = store.createTask({ title: 'old' });
    await old.complete();
    const oldFailed = store.createTask({ title: 'old failed' });
    oldFailed.fail('boom');
    const recent = store.createTask({ title: 'recent' });
    await recent.complete();
    const paused = store.createTask({ title: 'paused' });
    await paused.stop();
    // Age the first two by 40 days.
    const aged = new Date(Date.now() - 40 * 86_400_000).toISOString();
    store.db
      .prepare('UPDATE tasks SET completed_at = ? WHERE uuid IN (?, ?)')
      .run(aged, old.uuid, oldFailed.uuid);

    const dry = cleanupTasks(store, { days: 30, dryRun: true });
    expect(dry.removed.map((t) => t.title).sort()).toEqual(['old', 'old failed']);
    expect(store.listTasks().total).toBe(4);
    expect(fs.existsSync(path.join(store.root, 'completed', old.uuid))).toBe(true);

    const done = cleanupTasks(store, { days: 30 });
    expect(done.removed).toHaveLength(2);
    expect(
      store
        .listTasks()
        .rows.map((r) => r.title)
        .sort(),
    ).toEqual(['paused', 'recent']);
    expect(fs.existsSync(path.join(store.root, 'completed', old.uuid))).toBe(false);
    expect(fs.existsSync(path.join(store.root, 'completed', oldFailed.uuid))).toBe(false);
    expect(fs.existsSync(path.join(store.root, 'completed', recent.uuid))).toBe(true);
    expect(fs.readdirSync(path.join(store.root, '.trash'))).toEqual([]);
    store.close();
  });
});
