import fs from 'node:fs';
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

  it('writes a tool output once: tools.jsonl refers to the message, the reader fills the result back in', () => {
    const root = path.join(tempDir(), 'contexts');
    const store = ContextStore.open(root);
    const task = store.createTask({ title: 'refs' });
    const output = 'line one\nline two '.repeat(200);
    const message = task.addMessage({ role: 'tool', content: output, tool_call_id: 'c1' });
    task.recordToolCall({
      tool: 'read_file',
      args: { path: 'a' },
      result: output,
      result_seq: message.seq,
      status: 'success',
      duration_ms: 1,
      tool_call_id: 'c1',
    });
    // An older record holds its result itself and stays readable as it is.
    task.recordToolCall({
      tool: 'grep',
      args: {},
      result: 'inline',
      status: 'success',
      duration_ms: 1,
    });
    const raw = fs.readFileSync(path.join(task.dir, 'tools.jsonl'), 'utf8');
    expect(raw).not.toContain('line two');
    expect(raw.split('\n')[0]).toContain(`"result_seq":${message.seq}`);
    const records = store.readTask(task.uuid).tools().records;
    expect(records.map((r) => r.result)).toEqual([output, 'inline']);
    store.close();
  });
});
