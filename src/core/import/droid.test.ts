import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture(
  'droid',
  '-home-dev-src-ledger-api',
  '4d9a7c31-2e6b-4f08-b5d1-8c3e0a7f6b94.jsonl',
);

describe('Factory Droid sessions', () => {
  it('import every message, tool call and result, titled by the session, the model from its settings', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result).toMatchObject({
      format: 'droid',
      skipped: [],
      ignored: { 'droid todo_state': 1 },
    });
    const [task] = result.tasks;
    // 1 request, 6 replies (+1 reasoning), 6 results
    expect(task).toMatchObject({ messages: 14, tool_calls: 6, llm_calls: 6 });
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'droid',
      title: 'Paginate the entries endpoint',
      task_id: '4d9a7c31-2e6b-4f08-b5d1-8c3e0a7f6b94',
      model: 'claude-sonnet-4-5-20250929',
      workdir: '/home/dev/src/ledger-api',
      created_at: '2026-08-19T09:30:05.000Z',
    });
    const tools = fs
      .readFileSync(path.join(store.taskPath(row), 'tools.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { status: string });
    expect(tools.map((t) => t.status).filter((s) => s === 'error')).toHaveLength(1);
    store.close();
  });
});
