import fs from 'node:fs';
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
    // The call's state sits on the reply that made it: the one the user canceled failed.
    const tools = readLines(path.join(store.taskPath(row), 'tools.jsonl'));
    expect(tools.map((t) => [t.tool_call_id, t.status])).toEqual([
      ['call_c1', 'success'],
      ['call_c2', 'error'],
    ]);
    store.close();
  });

  it("a summary Continue wrote on an item is its own compaction: the items up to it leave the context, and a call's state on the tool message (older sessions) still counts", async () => {
    const root = tempDir();
    const item = (message: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
      message,
      contextItems: [],
      ...more,
    });
    const doc = {
      sessionId: '0c1d2e3f-4a5b-4c6d-8e7f-901234567890',
      title: 'Speed up the importer',
      workspaceDirectory: 'file:///home/dev/src/importer',
      history: [
        item({ role: 'user', content: 'Why is the import slow?' }),
        item({ role: 'assistant', content: 'It parses every row twice.' }),
        item(
          { role: 'user', content: 'Fix it.' },
          { conversationSummary: 'The import parsed every row twice; the user asked for a fix.' },
        ),
        item({
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
          ],
        }),
        item(
          { role: 'tool', content: 'denied', toolCallId: 'call_1' },
          { toolCallState: { toolCallId: 'call_1', status: 'errored' } },
        ),
        item({ role: 'assistant', content: 'I could not read the file.' }),
      ],
    };
    const file = path.join(root, `${doc.sessionId}.json`);
    fs.writeFileSync(file, JSON.stringify(doc));
    const store = ContextStore.open(path.join(root, 'store'));
    const [task] = (await importFile(store, file)).tasks;
    const dir = store.taskPath(store.requireTask(task!.uuid));
    const [record, ...more] = readLines(path.join(dir, 'summaries.jsonl'));
    expect(more).toEqual([]);
    const messages = readLines(path.join(dir, 'messages.jsonl'));
    const summary = messages.find((m) => m.kind === 'summary')!;
    expect(summary.content).toBe('The import parsed every row twice; the user asked for a fix.');
    expect(record).toMatchObject({
      strategy: 'continue-compact',
      agent_compaction: true,
      end_seq: (summary.seq as number) - 1,
    });
    // What came before the summary is history; what came after it is the context.
    expect(
      messages
        .filter((m) => (m.seq as number) < (summary.seq as number))
        .every((m) => m.history_only),
    ).toBe(true);
    expect(messages.at(-1)).toMatchObject({ content: 'I could not read the file.' });
    expect(readLines(path.join(dir, 'tools.jsonl'))).toMatchObject([
      { tool_call_id: 'call_1', status: 'error' },
    ]);
    store.close();
  });
});

function readLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
