import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('TaskReader', () => {
  it('follows the task when its folder moves after the reader was made (status changes)', async () => {
    const root = path.join(tempDir(), 'contexts');
    const writer = ContextStore.open(root);
    const task = writer.createTask({ title: 'moving' });
    task.addMessage({ role: 'user', content: 'hello' });
    task.recordToolCall({
      tool: 'read_file',
      args: {},
      result: 'ok',
      status: 'success',
      duration_ms: 1,
    });
    const other = ContextStore.open(root, { recover: false });
    const reader = other.readTask(task.uuid);
    expect(reader.dir).toBe(path.join(root, 'running', task.uuid));
    await task.stop();
    expect(reader.messages(1, 5).messages.map((m) => m.content)).toEqual(['hello']);
    expect(reader.current(1, 5).messages.map((m) => m.content)).toEqual(['hello']);
    expect(reader.tools().records).toHaveLength(1);
    expect(reader.metadata()?.title).toBe('moving');
    expect(reader.dir).toBe(path.join(root, 'paused', task.uuid));
    const resumed = writer.resumeTask(task.uuid);
    await resumed.complete();
    expect(reader.finalSummary()).toBeDefined();
    expect(reader.dir).toBe(path.join(root, 'completed', task.uuid));
    other.close();
    writer.close();
  });
});
