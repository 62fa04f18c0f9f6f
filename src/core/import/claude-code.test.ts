import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importClaudeCode } from './claude-code';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

const base = { sessionId: 's-1', cwd: '/repo', version: '2.0.0', gitBranch: 'main' };
let n = 0;
const ts = (): string => new Date(Date.UTC(2025, 0, 1, 0, 0, n++)).toISOString();

function user(
  uuid: string,
  parentUuid: string | null,
  content: unknown,
  extra: object = {},
): object {
  return {
    ...base,
    type: 'user',
    uuid,
    parentUuid,
    isSidechain: false,
    timestamp: ts(),
    message: { role: 'user', content },
    ...extra,
  };
}

function assistant(
  uuid: string,
  parentUuid: string,
  id: string,
  content: unknown[],
  extra: object = {},
): object {
  return {
    ...base,
    type: 'assistant',
    uuid,
    parentUuid,
    isSidechain: false,
    timestamp: ts(),
    message: {
      id,
      role: 'assistant',
      model: 'claude-sonnet-4',
      content,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
      },
    },
    ...extra,
  };
}

function write(lines: (object | string)[]): string {
  const file = path.join(tempDir(), 'session.jsonl');
  fs.writeFileSync(
    file,
    lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n',
  );
  return file;
}

function openStore(): ContextStore {
  return ContextStore.open(path.join(tempDir(), 'contexts'));
}

describe('importClaudeCode', () => {
  it('Windows: a drive letter recorded in either case is one working directory; a /rename beats the ai-title', async () => {
    const store = openStore();
    const titles = (custom: boolean): object[] => [
      { type: 'ai-title', aiTitle: 'Claude title', sessionId: 's-1' },
      ...(custom ? [{ type: 'custom-title', customTitle: 'My title', sessionId: 's-1' }] : []),
      { type: 'ai-title', aiTitle: 'Later Claude title', sessionId: 's-1' },
    ];
    const lower = write([
      user('u1', null, 'Fix it', { cwd: 'c:\\Users\\dev\\acme' }),
      ...titles(true),
    ]);
    const upper = path.join(tempDir(), 'other.jsonl');
    fs.writeFileSync(
      upper,
      [user('u1', null, 'Fix it', { cwd: 'C:\\Users\\dev\\acme' }), ...titles(false)]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const [a] = (await importClaudeCode(store, lower)).rows;
    const [b] = (await importClaudeCode(store, upper)).rows;
    expect([a!.workdir, b!.workdir]).toEqual(['C:\\Users\\dev\\acme', 'C:\\Users\\dev\\acme']);
    expect([a!.repo, b!.repo]).toEqual(['acme', 'acme']);
    expect([a!.title, b!.title]).toEqual(['My title', 'Later Claude title']);
    store.close();
  });
  it('a reply by another model than the session began with (/model) names it; the task keeps the first', async () => {
    const opus = (e: object): object => {
      const entry = e as { message: object };
      return { ...entry, message: { ...entry.message, model: 'claude-opus-4-5' } };
    };
    const file = write([
      user('u1', null, 'Plan it'),
      assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'A plan.' }]),
      user('u2', 'a1', 'Now build it'),
      opus(
        assistant('a2', 'u2', 'msg_2', [
          { type: 'thinking', thinking: 'Building.', signature: 'x' },
        ]),
      ),
      opus(assistant('a3', 'a2', 'msg_2', [{ type: 'text', text: 'Built.' }])),
      user('u3', 'a3', 'Thanks'),
      assistant('a4', 'u3', 'msg_3', [{ type: 'text', text: 'Welcome.' }]),
    ]);
    const store = openStore();
    const [row] = (await importClaudeCode(store, file)).rows;
    expect(row!.model).toBe('claude-sonnet-4');
    const messages = store.readTask(row!.uuid).messages(1, 10).messages;
    expect(messages.map((m) => [m.role, m.content, m.model ?? null])).toEqual([
      ['user', 'Plan it', null],
      ['assistant', 'A plan.', null],
      ['user', 'Now build it', null],
      ['assistant', 'Building.', 'claude-opus-4-5'],
      ['assistant', 'Built.', 'claude-opus-4-5'],
      ['user', 'Thanks', null],
      ['assistant', 'Welcome.', null],
    ]);
    store.close();
  });

  it('merges a response split over entries, keeps thinking as history-only reasoning, pairs tools, counts usage once', async () => {
    const file = write([
      user('u1', null, 'Fix the bug'),
      assistant('a1', 'u1', 'msg_1', [
        { type: 'thinking', thinking: 'Let me look at the code.', signature: 'x' },
      ]),
      assistant('a2', 'a1', 'msg_1', [{ type: 'text', text: 'Reading the file.' }]),
      assistant('a3', 'a2', 'msg_1', [
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } },
      ]),
      assistant('a4', 'a3', 'msg_1', [
        { type: 'tool_use', id: 'toolu_2', name: 'Grep', input: { pattern: 'x' } },
      ]),
      user('u2', 'a4', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file body' }]),
      user('u3', 'u2', [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [{ type: 'text', text: 'no match' }],
          is_error: true,
        },
      ]),
      assistant('a5', 'u3', 'msg_2', [
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Done.' },
        { type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'ls' } },
      ]),
    ]);
    const store = openStore();
    const { rows, report } = await importClaudeCode(store, file);
    expect(report.skipped).toEqual([]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    // user, reasoning, assistant(text+2 calls), tool, tool, reasoning, assistant
    expect(row).toMatchObject({
      total_messages: 7,
      tool_call_count: 3,
      llm_call_count: 2,
      final_message_count: 5,
    });
    expect(row).toMatchObject({
      input_tokens: 20,
      output_tokens: 10,
      cache_creation_tokens: 200,
      cache_read_tokens: 2000,
      total_tokens: 2230,
    });
    const messages = store.readTask(row.uuid).messages(1, 10).messages;
    expect(messages.map((m) => [m.role, m.name ?? null])).toEqual([
      ['user', null],
      ['assistant', 'reasoning'],
      ['assistant', null],
      ['tool', null],
      ['tool', null],
      ['assistant', 'reasoning'],
      ['assistant', null],
    ]);
    expect(messages[1]!.content).toBe('Let me look at the code.');
    expect(messages[2]).toMatchObject({
      content: 'Reading the file.',
      usage: { total_tokens: 1115 },
    });
    expect(
      messages[2]!.tool_calls!.map((c) => [c.id, c.function.name, c.function.arguments]),
    ).toEqual([
      ['toolu_1', 'Read', '{"file_path":"a.ts"}'],
      ['toolu_2', 'Grep', '{"pattern":"x"}'],
    ]);
    expect(messages[3]).toMatchObject({
      role: 'tool',
      tool_call_id: 'toolu_1',
      tool_name: 'Read',
      content: 'file body',
    });
    expect(messages[5]!.content).toBe('[redacted thinking]');
    const tools = store.readTask(row.uuid).tools().records;
    expect(tools.map((t) => [t.tool, t.status, t.tool_call_id])).toEqual([
      ['Read', 'success', 'toolu_1'],
      ['Grep', 'error', 'toolu_2'],
      ['Bash', 'error', 'toolu_3'], // never answered
    ]);
    expect(tools[0]!.args).toEqual({ file_path: 'a.ts' });
    // When the transcript says the call ended, not when it was imported.
    expect(tools[0]!.timestamp).toBe(messages[3]!.timestamp);
    expect(tools.map((t) => t.timestamp.slice(0, 10))).toEqual(Array(3).fill('2025-01-01'));
    expect(tools[2]!.error).toBe('no result in the transcript');
    // reasoning stays out of what the model is shown
    const current = store.readTask(row.uuid).current(1, 10).messages;
    expect(current.some((m) => m.name === 'reasoning')).toBe(false);
    store.close();
  });

  it('turns compact boundaries and summaries into summaries.jsonl records; earlier messages leave current.jsonl', async () => {
    const file = write([
      user('u1', null, 'first request'),
      assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'first answer' }]),
      {
        ...base,
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b1',
        parentUuid: null,
        content: 'Conversation compacted',
        timestamp: ts(),
        compactMetadata: { trigger: 'manual', preTokens: 12345 },
      },
      user(
        'u2',
        'b1',
        'This session is being continued from a previous conversation. Summary: the user asked a first request.',
        { isCompactSummary: true, isVisibleInTranscriptOnly: true },
      ),
      user('u3', 'u2', 'second request'),
      assistant('a2', 'u3', 'msg_2', [{ type: 'text', text: 'second answer' }]),
      { type: 'summary', summary: 'Two requests', leafUuid: 'a2' },
    ]);
    const store = openStore();
    const { rows, report } = await importClaudeCode(store, file);
    const row = rows[0]!;
    expect(row).toMatchObject({
      title: 'Two requests',
      total_messages: 5,
      total_summaries: 1,
      compression_count: 1,
      final_message_count: 3,
    });
    const reader = store.readTask(row.uuid);
    const summary = reader.summaries().records[0]!;
    expect(summary).toMatchObject({
      strategy: 'claude-code-compact',
      start_seq: 1,
      end_seq: 2,
      compressed_message_count: 2,
      trigger: 'manual',
      pre_tokens: 12345,
      imported: true,
    });
    expect(reader.messages(3, 1).messages[0]).toMatchObject({ kind: 'summary', role: 'user' });
    expect(reader.current(1, 10).messages.map((m) => m.content)).toEqual([
      'This session is being continued from a previous conversation. Summary: the user asked a first request.',
      'second request',
      'second answer',
    ]);
    expect(reader.metadata()?.source).toMatchObject({
      titles: [{ summary: 'Two requests', leafUuid: 'a2' }],
    });
    expect(report.ignored).toEqual({});
    store.close();
  });

  it('keeps interleaved subagents apart: one task each, linked to the main task and its Task call', async () => {
    const side = (
      uuid: string,
      parentUuid: string | null,
      type: 'user' | 'assistant',
      content: unknown,
      id?: string,
    ): object => ({
      ...base,
      type,
      uuid,
      parentUuid,
      isSidechain: true,
      timestamp: ts(),
      message:
        type === 'user'
          ? { role: 'user', content }
          : { id, role: 'assistant', model: 'claude-haiku', content },
    });
    const file = write([
      user('u1', null, 'Do two things'),
      assistant('a1', 'u1', 'msg_1', [
        {
          type: 'tool_use',
          id: 'toolu_A',
          name: 'Task',
          input: { description: 'Thing A', prompt: 'Do A' },
        },
        {
          type: 'tool_use',
          id: 'toolu_B',
          name: 'Task',
          input: { description: 'Thing B', prompt: 'Do B' },
        },
      ]),
      side('sa1', null, 'user', 'Do A'),
      side('sb1', null, 'user', 'Do B'),
      side('sa2', 'sa1', 'assistant', [{ type: 'text', text: 'A done' }], 'msg_a'),
      side(
        'sb2',
        'sb1',
        'assistant',
        [{ type: 'tool_use', id: 'toolu_b1', name: 'Read', input: {} }],
        'msg_b',
      ),
      side('sb3', 'sb2', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_b1', content: 'x' }]),
      side('sb4', 'sb3', 'assistant', [{ type: 'text', text: 'B done' }], 'msg_b2'),
      user('u2', 'a1', [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'A done' }]),
      user('u3', 'u2', [{ type: 'tool_result', tool_use_id: 'toolu_B', content: 'B done' }]),
    ]);
    const store = openStore();
    const { rows } = await importClaudeCode(store, file);
    expect(rows).toHaveLength(3);
    const [main, ...subs] = rows;
    expect(main).toMatchObject({ parent_uuid: null, total_messages: 4, tool_call_count: 2 });
    const byTitle = Object.fromEntries(subs.map((r) => [r.title, r]));
    expect(byTitle['Subagent: Thing A']).toMatchObject({
      parent_uuid: main!.uuid,
      total_messages: 2,
      tool_call_count: 0,
      task_type: 'subagent',
      model: 'claude-haiku',
    });
    expect(byTitle['Subagent: Thing B']).toMatchObject({
      parent_uuid: main!.uuid,
      total_messages: 4,
      tool_call_count: 1,
    });
    expect(store.readTask(byTitle['Subagent: Thing B']!.uuid).metadata()?.source).toMatchObject({
      relation: 'subagent',
      parent_tool_use_id: 'toolu_B',
      thread: 'root:sb1',
    });
    store.close();
  });

  it('reports malformed and over-long lines with their line numbers and imports the rest', async () => {
    const file = write([
      user('u1', null, 'hello'),
      '{"type": "assistant", broken',
      JSON.stringify(user('u2', 'u1', 'x'.repeat(5000))),
      '[1, 2, 3]',
      assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'hi' }]),
    ]);
    const store = openStore();
    const { rows, report } = await importClaudeCode(store, file, { maxLineBytes: 1024 });
    expect(rows[0]).toMatchObject({ total_messages: 2 });
    expect(report.skipped.map((s) => [s.file, s.line])).toEqual([
      ['session.jsonl', 2],
      ['session.jsonl', 3],
      ['session.jsonl', 4],
    ]);
    expect(report.skipped[0]!.error).toMatch(/malformed JSON/);
    expect(report.skipped[1]!.error).toMatch(/longer than 1024 bytes/);
    expect(report.skipped[2]!.error).toMatch(/not a Claude Code entry/);
    store.close();
  });

  it('refuses a file without conversation entries and leaves nothing behind', async () => {
    const file = write([{ type: 'summary', summary: 'only a title', leafUuid: 'x' }]);
    const store = openStore();
    await expect(importClaudeCode(store, file)).rejects.toThrow(
      /no Claude Code user or assistant entries/,
    );
    expect(store.listTasks().total).toBe(0);
    store.close();
  });
});
