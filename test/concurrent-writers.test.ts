import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { spawnTs, waitForExit } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();

describe('tasks.db shared by several processes', () => {
  it('4 real processes writing at once never fail with SQLITE_BUSY and every counter is exact', async () => {
    const root = path.join(tempDir(), 'contexts');
    const WORKERS = 4;
    const TASKS = 5;
    const UPDATES = 40;
    const children = Array.from({ length: WORKERS }, (_, i) =>
      spawnTs('test/support/concurrent-writer.ts', [
        root,
        String(i),
        String(TASKS),
        String(UPDATES),
      ]),
    );
    const results = await Promise.all(children.map(waitForExit));
    for (const r of results) {
      expect(r.stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
      expect(r.code).toBe(0);
    }

    const store = ContextStore.open(root);
    const { rows, total } = store.listTasks({ limit: 1000 });
    expect(total).toBe(WORKERS * TASKS);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'completed',
        total_messages: UPDATES,
        llm_call_count: UPDATES,
        tool_call_count: UPDATES,
        total_tool_calls: UPDATES,
        input_tokens: 3 * UPDATES,
        output_tokens: 2 * UPDATES,
        total_tokens: 5 * UPDATES,
        final_message_count: UPDATES,
      });
      expect(fs.existsSync(path.join(root, 'completed', row.uuid, 'final_summary.txt'))).toBe(true);
    }
    for (let i = 0; i < WORKERS; i++) expect(store.listTasks({ user: `w${i}` }).total).toBe(TASKS);
    store.close();
  });
});
