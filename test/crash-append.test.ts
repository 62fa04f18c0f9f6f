import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { spawnTs, waitForExit } from './support/run-ts';
import { useTempDir } from './support/temp-dir';
import type { MessageRecord } from '../src/shared/task-types';

const tempDir = useTempDir();

function waitForBytes(file: string, bytes: number, child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`child exited early with ${child.exitCode}`));
      }
      if (fs.existsSync(file) && fs.statSync(file).size >= bytes) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
}

function waitForLine(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => child.stdout!.once('data', () => resolve()));
}

/** Every message line parses, seqs run 1..n, and each content's checksum matches. */
function assertIntact(file: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  lines.forEach((line, i) => {
    const record = JSON.parse(line) as MessageRecord;
    expect(record.seq).toBe(i + 1);
    const body = JSON.parse(record.content!) as { pad: string; sha: string };
    expect(crypto.createHash('sha256').update(body.pad).digest('hex')).toBe(body.sha);
  });
  return lines.length;
}

describe('a task process killed while appending', () => {
  it('SIGKILL at random points: every complete line intact, the store consistent and resumable', async () => {
    for (let round = 0; round < 5; round++) {
      const root = path.join(tempDir(), 'contexts');
      const uuid = crypto.randomUUID();
      const child = spawnTs('test/support/crash-appender.ts', [root, uuid, 'loop']);
      const exit = waitForExit(child);
      await waitForLine(child);
      const file = path.join(root, 'running', uuid, 'messages.jsonl');
      await waitForBytes(file, (1 + round) * 1_500_000, child);
      child.kill('SIGKILL');
      expect((await exit).signal).toBe('SIGKILL');

      const store = ContextStore.open(root);
      expect(store.recovery!.interrupted).toEqual([uuid]);
      const kept = path.join(root, 'completed', uuid, 'messages.jsonl');
      const count = assertIntact(kept);
      for (const torn of store.recovery!.tornLines) {
        // whatever was cut off is kept aside, never silently dropped
        expect(fs.statSync(torn.corruptPath).size).toBeGreaterThanOrEqual(torn.bytes);
      }
      expect(store.requireTask(uuid)).toMatchObject({ status: 'failed', total_messages: count });
      const resumed = store.resumeTask(uuid);
      expect(resumed.messages.readTail(1).messages[0]?.seq).toBe(count);
      expect(
        resumed.addMessage({
          role: 'user',
          content:
            '{"pad":"","sha":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}',
        }).seq,
      ).toBe(count + 1);
      resumed.close();
      assertIntact(path.join(root, 'running', uuid, 'messages.jsonl'));
      store.close();
    }
  });

  it('a partial last line is reported and kept aside in messages.jsonl.corrupt', async () => {
    const root = path.join(tempDir(), 'contexts');
    const uuid = crypto.randomUUID();
    const child = spawnTs('test/support/crash-appender.ts', [root, uuid, 'torn']);
    const exit = waitForExit(child);
    await waitForLine(child);
    const file = path.join(root, 'running', uuid, 'messages.jsonl');
    const size = fs.statSync(file).size;
    const text = fs.readFileSync(file, 'utf8');
    const fragment = text.slice(text.lastIndexOf('\n') + 1);
    expect(fragment.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await exit;

    const store = ContextStore.open(root);
    const torn = store.recovery!.tornLines;
    expect(torn).toHaveLength(1);
    expect(torn[0]!.corruptPath).toBe(path.join(root, 'completed', uuid, 'messages.jsonl.corrupt'));
    expect(torn[0]!.bytes).toBe(Buffer.byteLength(fragment));
    expect(fs.readFileSync(torn[0]!.corruptPath, 'utf8')).toBe(`${fragment}\n`);
    expect(fs.statSync(path.join(root, 'completed', uuid, 'messages.jsonl')).size).toBe(
      size - Buffer.byteLength(fragment),
    );
    expect(assertIntact(path.join(root, 'completed', uuid, 'messages.jsonl'))).toBe(20);
    store.close();
  });
});
