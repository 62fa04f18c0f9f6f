import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { MessageStore } from '../store/message-store';
import { startPostgres, type PostgresCluster } from '../../../test/support/postgres';
import { useTempDir } from '../../../test/support/temp-dir';
import { sourceKind } from './source-kinds';
import { syncFile } from './sync-file';
import { SyncStateRepository } from './sync-state';

const tempDir = useTempDir();
const claude = sourceKind('claude-code')!;

let cluster: PostgresCluster | undefined;
// Started before the tests and given long: initdb on a loaded 2-core machine takes a while.
beforeAll(async () => {
  cluster = await startPostgres();
}, 300_000);
afterAll(() => cluster?.stop());

/** A user turn of a Claude Code session: one message each, written by the sync at once. */
function userLine(i: number): string {
  return `${JSON.stringify({
    type: 'user',
    uuid: `u-${i}`,
    sessionId: 'handover',
    timestamp: new Date(Date.UTC(2026, 10, 28, 9, 0, i)).toISOString(),
    cwd: '/w',
    isSidechain: false,
    message: { role: 'user', content: `line ${i}` },
  })}\n`;
}

/**
 * Two syncs of one file back to back, as two `cwb serve` of one contexts folder run them: the
 * second takes the file the moment the first gives its lease back. Everything the first wrote
 * to the task must be on disk by then — the offset index of messages.jsonl too, whose
 * entries a task keeps in memory until it is closed — or the second indexes the same lines
 * again and the task counts them twice from then on (the soak's 564 messages for 550 lines).
 */
describe.each([
  { index: 'tasks.db', url: async (): Promise<string | undefined> => undefined },
  {
    index: 'a PostgreSQL index',
    url: (): Promise<string | undefined> => cluster!.createDatabase(),
  },
])('a source file handed from one sync to the next on $index', ({ url }) => {
  it('a sync that takes the file as soon as the last one gave it back finds its messages indexed; the task counts each line once', async () => {
    const index = await url();
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const file = path.join(dir, 'session.jsonl');
    let written = 0;
    const append = (n: number): void => {
      let text = '';
      for (const end = written + n; written < end;) text += userLine(written++);
      fs.appendFileSync(file, text);
    };
    const store = ContextStore.open(root, index ? { index } : {});
    try {
      append(5);
      expect((await syncFile(store, claude, file)).messages).toBe(5);
      append(4);
      let handedOver = false;
      const first = await syncFile(store, claude, file, {
        afterCommit: async () => {
          if (handedOver) return;
          handedOver = true;
          // Another process's sync: the agent wrote more, and the file is free again.
          append(3);
          const other = ContextStore.open(root, index ? { index } : {});
          try {
            expect((await syncFile(other, claude, file)).messages).toBe(3);
          } finally {
            other.close();
          }
        },
      });
      expect(handedOver).toBe(true);
      expect(first.messages).toBe(4);
      append(2);
      expect((await syncFile(store, claude, file)).messages).toBe(2);

      const rows = store.listTasks({ limit: 10 }).rows;
      expect(rows).toHaveLength(1);
      const task = rows[0]!;
      const messages = fs
        .readFileSync(path.join(store.taskPath(task), 'messages.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { seq: number; content: string });
      expect(messages.map((m) => m.content)).toEqual(
        Array.from({ length: 14 }, (_, i) => `line ${i}`),
      );
      // Each line once: the seqs run 1..14, and the task, its row and the sync state say 14.
      expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
      const reader = MessageStore.open(store.taskPath(task), { readonly: true });
      try {
        expect(reader.count).toBe(14);
      } finally {
        reader.close();
      }
      expect(task.total_messages).toBe(14);
      expect(new SyncStateRepository(store.sourcesDb).get(file)).toMatchObject({
        messages: 14,
        line_no: 14,
        pending: null,
      });
    } finally {
      store.close();
    }
  }, 300_000);
});
