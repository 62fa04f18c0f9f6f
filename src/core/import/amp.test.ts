import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('amp', 'T-0199e4c2-7a1b-7d3e-9f20-4b6c8a1e5d37.json');

describe('Amp threads', () => {
  it('import every message, tool call and result (rejected and failed runs too), the summary, usage and repository', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result).toMatchObject({ format: 'amp', skipped: [] });
    const [task] = result.tasks;
    // 2 requests, 1 summary, 6 replies (+1 thinking), 5 results
    expect(task).toMatchObject({ messages: 15, tool_calls: 5, llm_calls: 6 });
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'amp',
      title: 'Fix CSV export dropping multiline notes',
      task_id: 'T-0199e4c2-7a1b-7d3e-9f20-4b6c8a1e5d37',
      model: 'claude-sonnet-4-5-20250929',
      workdir: '/home/dev/src/ledger',
      owner: 'acme',
      repo: 'ledger',
      git_branch: 'main',
      created_at: new Date(1790581200000).toISOString(),
      output_tokens: 88 + 141 + 39 + 31 + 96 + 40,
    });
    const tools = fs
      .readFileSync(path.join(store.taskPath(row), 'tools.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { status: string });
    expect(tools.filter((t) => t.status === 'error')).toHaveLength(2);
    // Amp's summary is its compaction: a record whose new context it is.
    const read = (name: string): Record<string, unknown>[] =>
      fs
        .readFileSync(path.join(store.taskPath(row), name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = read('messages.jsonl').find((m) => m.kind === 'summary')!;
    expect(read('summaries.jsonl')).toEqual([
      expect.objectContaining({
        strategy: 'amp-compact',
        start_seq: 1,
        end_seq: (summary.seq as number) - 1,
        agent_compaction: true,
        created_seqs: [summary.seq],
      }),
    ]);
    store.close();
  });
});
