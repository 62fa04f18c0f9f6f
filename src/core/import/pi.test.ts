import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { sniffFile } from './detect-format';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture(
  'pi',
  '--Users-badlogic-workspaces-pi-mono--',
  '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl',
);

function lines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Pi sessions', () => {
  it('are detected as Pi, and as OpenClaw below ~/.openclaw', async () => {
    expect(await sniffFile(FILE)).toEqual({ kind: 'jsonl', format: 'pi' });
    const claw = path.join(tempDir(), '.openclaw', 'agents', 'main', 'sessions', 'x.jsonl');
    fs.mkdirSync(path.dirname(claw), { recursive: true });
    fs.copyFileSync(FILE, claw);
    expect(await sniffFile(claw)).toEqual({ kind: 'jsonl', format: 'openclaw' });
  });

  it('import every message, tool call and result, with the model, usage and first real request', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.format).toBe('pi');
    expect(result.skipped).toEqual([]);
    const [task] = result.tasks;
    const entries = lines(FILE).filter((l) => l.type === 'message');
    const roles = entries.map((e) => (e.message as { role: string }).role);
    const calls = entries.flatMap((e) => {
      const content = (e.message as { content: unknown }).content;
      return Array.isArray(content)
        ? content.filter((b: { type?: string }) => b.type === 'toolCall')
        : [];
    });
    expect(calls.length).toBeGreaterThan(20);
    expect(task).toMatchObject({
      messages: roles.length,
      tool_calls: calls.length,
      llm_calls: roles.filter((r) => r === 'assistant').length,
    });
    const row = store.requireTask(task!.uuid);
    // "/mode" comes first: a slash command is no request.
    expect(row.title).toMatch(/^read packages\/coding-agent\/docs\/theme\.md in full/);
    expect(row).toMatchObject({
      agent: 'pi',
      task_id: 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617',
      model: 'claude-sonnet-4-5',
      workdir: '/Users/badlogic/workspaces/pi-mono',
    });
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.cache_read_tokens).toBeGreaterThan(0);
    const tools = fs
      .readFileSync(path.join(store.taskPath(row), 'tools.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(tools).toHaveLength(calls.length);
    store.close();
  });

  it("a compaction entry is the agent's own compaction record: its summary the new context", async () => {
    // The real session's first 20 lines, then Pi's compaction entry (session-manager.ts's
    // appendCompaction) and one more request.
    const head = fs.readFileSync(FILE, 'utf8').split('\n').slice(0, 20);
    const file = path.join(tempDir(), 'compacted.jsonl');
    const entry = (fields: Record<string, unknown>): string => JSON.stringify(fields);
    fs.writeFileSync(
      file,
      [
        ...head,
        entry({
          type: 'compaction',
          id: 'c0mp4ct1',
          parentId: null,
          timestamp: '2025-11-21T00:10:00.000Z',
          summary: 'The user is reworking the TUI; src/tui.ts was edited and the tests pass.',
          firstKeptEntryId: 'k33p0001',
          tokensBefore: 91234,
        }),
        entry({
          type: 'message',
          timestamp: '2025-11-21T00:10:05.000Z',
          message: { role: 'user', content: [{ type: 'text', text: 'now the footer' }] },
        }),
      ].join('\n') + '\n',
    );
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const [task] = (await importFile(store, file)).tasks;
    const dir = store.taskPath(store.requireTask(task!.uuid));
    const [record, ...more] = lines(path.join(dir, 'summaries.jsonl'));
    expect(more).toEqual([]);
    const messages = lines(path.join(dir, 'messages.jsonl'));
    const summary = messages.find((m) => m.kind === 'summary')!;
    expect(summary).toMatchObject({ role: 'user', timestamp: '2025-11-21T00:10:00.000Z' });
    expect(record).toMatchObject({
      strategy: 'pi-compact',
      start_seq: 1,
      end_seq: (summary.seq as number) - 1,
      agent_compaction: true,
      agent_tokens_before: 91234,
      first_kept_entry_id: 'k33p0001',
      created_seqs: [summary.seq],
    });
    expect(messages.at(-1)).toMatchObject({ content: 'now the footer' });
    expect(messages.at(-1)!.history_only).toBeUndefined();
    expect(
      messages
        .filter((m) => (m.seq as number) < (summary.seq as number))
        .every((m) => m.history_only),
    ).toBe(true);
    store.close();
  });
});
