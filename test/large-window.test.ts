import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const PROC_IO = '/proc/self/io';

/** Bytes this process has read through read(2) so far (Linux). */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(fs.readFileSync(PROC_IO, 'utf8'))![1]);
}

/** A task with ~64 MB of messages, written line by line as the store would write them. */
function bigTask(root: string): { uuid: string; count: number; size: number } {
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'big' });
  task.close();
  const file = path.join(task.dir, 'messages.jsonl');
  const fd = fs.openSync(file, 'a');
  const body = 'lorem ipsum '.repeat(1000);
  let count = 0;
  for (; count < 5000;) {
    count++;
    fs.writeSync(
      fd,
      `${JSON.stringify({ seq: count, role: count % 2 ? 'user' : 'assistant', content: `${count} ${body}`, timestamp: '2026-01-01T00:00:00.000Z', tokens: 3000, tokens_o200k: 2000 })}\n`,
    );
  }
  fs.closeSync(fd);
  store.close();
  return { uuid: task.uuid, count, size: fs.statSync(file).size };
}

describe.skipIf(!fs.existsSync(PROC_IO))('reading a window of a large task', () => {
  it('reads only the window, not the whole messages.jsonl', () => {
    const root = path.join(tempDir(), 'contexts');
    const { uuid, count, size } = bigTask(root);
    expect(size).toBeGreaterThan(50_000_000);
    const store = ContextStore.open(root, { recover: false });
    // The first open of the task builds the offset index (one pass); later reads use it.
    const owner = store.openTask(uuid);
    owner.close();

    const before = bytesRead();
    const window = store.readTask(uuid).messages(2500, 10);
    const read = bytesRead() - before;
    expect(window.messages.map((m) => m.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => 2500 + i),
    );
    expect(window.total).toBe(count);
    // 10 messages are ~120 KB; the whole file is over 50 MB.
    expect(read).toBeLessThan(1_000_000);
    store.close();
  });

  it('cwb messages answers from the middle of the large task', () => {
    const root = path.join(tempDir(), 'contexts');
    const { uuid } = bigTask(root);
    const r = runCwb([
      '--contexts',
      root,
      'messages',
      uuid,
      '--from',
      '4000',
      '--limit',
      '2',
      '--json',
    ]);
    expect(r.status).toBe(0);
    expect(
      (JSON.parse(r.stdout) as { messages: { seq: number }[] }).messages.map((m) => m.seq),
    ).toEqual([4000, 4001]);
  });
});
