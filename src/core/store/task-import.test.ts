import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { importTask, restoreTask } from './task-import';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('importTask', () => {
  it('writes files without per-message DB writes, then sets counts, status and source times at once', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const row = await importTask(
      store,
      {
        title: 'imported',
        status: 'completed',
        created_at: '2025-01-02T03:04:05.000Z',
        completed_at: '2025-01-02T04:00:00.000Z',
        source: { format: 'test' },
      },
      (task) => {
        task.messages.append({
          role: 'user',
          content: 'hi',
          timestamp: '2025-01-02T03:04:05.000Z',
        });
        task.messages.append({ role: 'assistant', content: 'hello' });
        task.tools.add({
          tool: 'read_file',
          args: {},
          result: 'x',
          status: 'success',
          duration_ms: 1,
        });
        return { llm_calls: 1, usage: { input_tokens: 10, output_tokens: 4 } };
      },
    );
    expect(row).toMatchObject({
      status: 'completed',
      created_at: '2025-01-02T03:04:05.000Z',
      completed_at: '2025-01-02T04:00:00.000Z',
      total_messages: 2,
      tool_call_count: 1,
      total_tool_calls: 1,
      llm_call_count: 1,
      total_tokens: 14,
      process_id: null,
    });
    const meta = JSON.parse(
      fs.readFileSync(path.join(store.root, 'completed', row.uuid, 'metadata.json'), 'utf8'),
    );
    expect(meta.source).toEqual({ format: 'test' });
    store.close();
  });

  it('removes the half-written task when the importer throws', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    await expect(
      importTask(store, { status: 'completed' }, (task) => {
        task.messages.append({ role: 'user', content: 'x' });
        throw new Error('line 7: not a transcript');
      }),
    ).rejects.toThrow('line 7');
    expect(store.listTasks().total).toBe(0);
    expect(fs.readdirSync(path.join(store.root, 'running'))).toEqual([]);
    store.close();
  });
});

describe('importTask, lines written together', () => {
  it('writes nothing of the transcript until the task is complete, and removes it when those writes fail', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    let seenOnDisk = -1;
    const real = fs.writeSync;
    await expect(
      importTask(store, { status: 'completed' }, (task) => {
        task.messages.append({ role: 'user', content: 'x'.repeat(1000) });
        task.tools.add({ tool: 't', args: {}, result: 'r', status: 'success', duration_ms: 1 });
        seenOnDisk = fs.statSync(path.join(task.dir, 'messages.jsonl')).size;
        // The disk fills up before the held lines are written.
        (fs as unknown as { writeSync: unknown }).writeSync = () => {
          throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
        };
        return { llm_calls: 0 };
      }).finally(() => {
        (fs as unknown as { writeSync: typeof real }).writeSync = real;
      }),
    ).rejects.toThrow(/ENOSPC/);
    expect(seenOnDisk).toBe(0);
    expect(store.listTasks().total).toBe(0);
    expect(fs.readdirSync(path.join(store.root, 'running'))).toEqual([]);
    store.close();
  });
});

describe('restoreTask', () => {
  it('restores a row verbatim, and on a uuid clash keeps both or replaces as asked', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const original = store.createTask({ title: 'original' });
    original.addMessage({ role: 'user', content: 'one' });
    await original.complete();
    const row = store.requireTask(original.uuid);
    const fill = async (dir: string): Promise<void> => {
      fs.writeFileSync(path.join(dir, 'messages.jsonl'), '{"seq":1}\n');
    };

    const kept = await restoreTask(store, { ...row, title: 'copy' }, fill, {
      onConflict: 'keep-both',
    });
    expect(kept).not.toBe(row.uuid);
    expect(store.requireTask(kept)).toMatchObject({
      title: 'copy',
      status: 'completed',
      total_messages: 1,
    });
    expect(store.requireTask(row.uuid).title).toBe('original');

    const replaced = await restoreTask(store, { ...row, title: 'replacement' }, fill, {
      onConflict: 'replace',
    });
    expect(replaced).toBe(row.uuid);
    expect(store.requireTask(row.uuid).title).toBe('replacement');
    expect(
      fs.readFileSync(path.join(store.root, 'completed', row.uuid, 'messages.jsonl'), 'utf8'),
    ).toBe('{"seq":1}\n');
    expect(store.listTasks().total).toBe(2);
    expect(fs.readdirSync(path.join(store.root, '.staging'))).toEqual([]);
    store.close();
  });
});
