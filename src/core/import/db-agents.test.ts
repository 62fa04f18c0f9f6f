import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { detectFormat } from './detect-format';
import { readJsonDocument } from './json-document';
import Database from 'better-sqlite3';
import { crushDb, gooseDb, insertRow, zedDb } from '../../../test/support/agent-dbs';
import { useTempDir } from '../../../test/support/temp-dir';
import { allRecords } from '../compaction/compaction-record';

const tempDir = useTempDir();

async function imported(file: string) {
  const store = ContextStore.open(tempDir());
  const result = await importFile(store, file);
  const row = store.requireTask(result.tasks[0]!.uuid);
  const messages = fs
    .readFileSync(path.join(store.taskPath(row), 'messages.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          role: string;
          content: string | null;
          name?: string;
          tool_name?: string;
        },
    );
  store.close();
  return { result, row, messages };
}

describe('Goose, Crush and Zed session databases', () => {
  it('Goose sessions.db: calls and results paired, failed calls and notices accounted for', async () => {
    const file = gooseDb(path.join(tempDir(), 'sessions.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('goose');
    const { result, row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'goose',
      task_id: '20251120_3',
      title: 'Add retry to the webhook sender',
      workdir: '/home/dev/projects/hooks',
      llm_call_count: 4,
      tool_call_count: 3,
    });
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_name)).toEqual([
      'developer__shell',
      'developer__text_editor',
      'developer__shell',
    ]);
    expect(result.skipped.map((s) => s.error)).toEqual([
      expect.stringContaining('a tool call Goose could not read: Could not interpret'),
    ]);
    expect(result.ignored).toMatchObject({ 'goose systemNotification': 1 });
    expect(messages.find((m) => m.name === 'reasoning')?.content).toBe('Find the sender first.');
  });

  it('Crush crush.db: plain and zstd-compressed parts, the project as working directory', async () => {
    const file = crushDb(path.join(tempDir(), 'api', '.crush', 'crush.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('crush');
    const { row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'crush',
      title: 'CI lint failure',
      workdir: path.dirname(path.dirname(file)),
      model: 'gpt-5',
      llm_call_count: 3,
      tool_call_count: 2,
    });
    expect(messages.at(-1)?.content).toMatch(/^CI installs golangci-lint v2/);
    expect(
      messages.find((m) => m.role === 'tool' && m.content?.includes('not found')),
    ).toBeTruthy();
  });

  it('Zed threads.db: a zstd thread, usage per request, the resume marker ignored', async () => {
    const file = zedDb(path.join(tempDir(), 'threads.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('zed');
    const { result, row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'zed',
      title: 'Explain the borrow error in parser.rs',
      workdir: '/home/dev/projects/calc',
      model: 'claude-sonnet-4-5',
      llm_call_count: 3,
      tool_call_count: 2,
      input_tokens: 9120,
      output_tokens: 620,
    });
    expect(result.ignored).toMatchObject({ 'zed resume marker': 1 });
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      expect.stringContaining('cannot borrow'),
      'Make peek return by value.\n[src/parser.rs]',
    ]);
  });

  it('Crush: the agent tool’s session is a sub-agent task under its parent; a summary is Crush’s own compaction', async () => {
    const file = crushDb(path.join(tempDir(), 'api', '.crush', 'crush.db'));
    const parent = 'b2c7e0f4-5d1a-4c8e-9a41-0f3e6d2c9a17';
    const db = new Database(file);
    const text = (t: string, finish = 'end_turn'): string =>
      JSON.stringify([
        { type: 'text', data: { text: t } },
        { type: 'finish', data: { reason: finish, time: 1763650030 } },
      ]);
    const message = (id: string, session: string, role: string, parts: string, at: number) => ({
      id,
      session_id: session,
      role,
      parts,
      model: role === 'assistant' ? 'gpt-5' : null,
      created_at: at,
      updated_at: at,
    });
    // As coordinator.go names it: `<message id>$$<tool call id>`, created after its parent.
    const child = '7f1e2a30-0006-4b6a-8c1e-666666666666$$call_a3';
    insertRow(db, 'sessions', {
      id: child,
      parent_session_id: parent,
      title: 'New Agent Session',
      updated_at: 1763650020,
      created_at: 1763650009,
    });
    const prompt = JSON.stringify([
      { type: 'text', data: { text: 'Find where CI installs golangci-lint.' } },
    ]);
    insertRow(db, 'messages', message('c-1', child, 'user', prompt, 1763650010));
    insertRow(db, 'messages', message('c-2', child, 'assistant', text('In ci.yml.'), 1763650011));
    // Summarize: a summary row, then the conversation goes on from it.
    insertRow(db, 'messages', {
      ...message('s-1', parent, 'assistant', text('Summary: CI lacks golangci-lint.'), 1763650040),
      is_summary_message: 1,
    });
    const failed = text('Summ', 'error');
    insertRow(db, 'messages', {
      ...message('s-0', parent, 'assistant', failed, 1763650039),
      is_summary_message: 1,
    });
    const next = JSON.stringify([{ type: 'text', data: { text: 'Pin it in ci.yml.' } }]);
    insertRow(db, 'messages', message('p-7', parent, 'user', next, 1763650041));
    insertRow(db, 'messages', message('p-8', parent, 'assistant', text('Pinned.'), 1763650042));
    db.close();

    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, file);
      expect(result.tasks).toHaveLength(2);
      const [main, sub] = result.tasks.map((t) => store.requireTask(t.uuid));
      expect(main).toMatchObject({ task_id: parent, parent_uuid: null, task_type: '' });
      expect(sub).toMatchObject({
        task_id: child,
        parent_uuid: main!.uuid,
        task_type: 'subagent',
        title: 'Subagent: Find where CI installs golangci-lint.',
      });
      expect(result.skipped.map((s) => s.error)).toEqual([
        expect.stringContaining('a summary whose model call failed'),
      ]);
      const [record, ...more] = allRecords(store.taskPath(main!));
      expect(more).toEqual([]);
      const all = store.readTask(main!.uuid).messages(1, 1000).messages;
      const summary = all.find((m) => m.kind === 'summary')!;
      expect(summary).toMatchObject({ role: 'user', content: 'Summary: CI lacks golangci-lint.' });
      expect(record).toMatchObject({
        strategy: 'crush-compact',
        agent_compaction: true,
        model: 'gpt-5',
        timestamp: '2025-11-20T14:47:20.000Z',
      });
      expect(all.filter((m) => m.seq < summary.seq).every((m) => m.history_only)).toBe(true);
      expect(all.at(-1)).toMatchObject({ role: 'assistant', content: 'Pinned.' });
    } finally {
      store.close();
    }
  });

  it('Zed: a sub-agent’s thread is a sub-agent task under its parent; redacted thinking accounted for', async () => {
    const file = zedDb(path.join(tempDir(), 'threads.db'));
    const parent = '0b8f6f0e-3c2a-4e59-b7f1-2a9d4c6e8b10';
    const thread = {
      version: '0.3.0',
      title: 'Find callers of peek',
      updated_at: '2025-11-21T09:20:00Z',
      subagent_context: { parent_thread_id: parent, tool_use_id: 'toolu_09', depth: 1 },
      messages: [
        { User: { id: 'u-1', content: [{ Text: 'List the callers of Parser::peek.' }] } },
        {
          Agent: {
            content: [{ RedactedThinking: 'b64...' }, { Text: 'Two: parse_expr and parse_term.' }],
            tool_results: {},
          },
        },
      ],
    };
    const db = new Database(file);
    insertRow(db, 'threads', {
      id: 'a41c2d7e-7b3f-4f0e-8d11-5e6a9c0b2f44',
      parent_id: parent,
      summary: thread.title,
      updated_at: thread.updated_at,
      created_at: '2025-11-21T09:15:00Z',
      folder_paths: '/home/dev/projects/calc',
      data_type: 'json',
      data: Buffer.from(JSON.stringify(thread)),
    });
    db.close();
    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, file);
      const [main, sub] = result.tasks.map((t) => store.requireTask(t.uuid));
      expect(main).toMatchObject({ task_id: parent, parent_uuid: null });
      expect(sub).toMatchObject({
        parent_uuid: main!.uuid,
        task_type: 'subagent',
        title: 'Subagent: List the callers of Parser::peek.',
        llm_call_count: 1,
      });
      expect(result.ignored).toMatchObject({ 'zed redacted thinking': 1 });
    } finally {
      store.close();
    }
  });
});
