import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('continue', '6e1f3b7a-24c9-4d85-a0b2-9c7e5f1d3a68.json');

describe('Continue sessions', () => {
  it('import every history item, with tool results paired by call id and cached prompt tokens apart', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result).toMatchObject({ format: 'continue', skipped: [] });
    const [task] = result.tasks;
    expect(task).toMatchObject({ messages: 8, tool_calls: 2, llm_calls: 3 });
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'continue',
      title: 'Invalid dates roll over in parseDate',
      task_id: '6e1f3b7a-24c9-4d85-a0b2-9c7e5f1d3a68',
      model: 'Claude Sonnet 4.5',
      workdir: '/home/dev/src/calendar-kit',
      cache_read_tokens: 4800 + 5200 + 5390,
      input_tokens: 410 + 190 + 260,
    });
    store.close();
  });
});
