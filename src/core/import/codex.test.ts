import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importCodex } from './codex';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
let n = 0;
const line = (type: string, payload: object): object => ({
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n++)).toISOString(),
  type,
  payload,
});
const item = (payload: object): object => line('response_item', payload);
const text = (role: string, t: string): object =>
  item({
    type: 'message',
    role,
    content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: t }],
  });

function write(lines: (object | string)[]): string {
  const file = path.join(tempDir(), 'rollout.jsonl');
  fs.writeFileSync(
    file,
    lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n',
  );
  return file;
}

describe('importCodex', () => {
  it('uses user items over their duplicate events, groups calls, pairs outputs, takes usage from token_count', async () => {
    const file = write([
      line('session_meta', {
        id: 'sess-1',
        cwd: '/w',
        model_provider: 'openai',
        cli_version: '0.50.0',
        base_instructions: { text: 'You are Codex.' },
      }),
      line('turn_context', { model: 'gpt-5-codex', cwd: '/w' }),
      text('user', '<environment_context>cwd /w</environment_context>'),
      text('user', 'list the files'),
      line('event_msg', { type: 'user_message', message: 'list the files' }),
      item({
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'I will run ls.' }],
        encrypted_content: 'zzz',
      }),
      text('assistant', 'Running two commands.'),
      item({
        type: 'function_call',
        name: 'shell',
        arguments: '{"command":["ls"]}',
        call_id: 'c1',
      }),
      item({
        type: 'function_call',
        name: 'js',
        namespace: 'mcp__node__',
        arguments: '{}',
        call_id: 'c2',
      }),
      item({ type: 'function_call_output', call_id: 'c1', output: 'a.ts\nb.ts' }),
      item({
        type: 'function_call_output',
        call_id: 'c2',
        output: { content: 'failed', success: false },
      }),
      line('event_msg', {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: 1000,
            cached_input_tokens: 800,
            output_tokens: 50,
            total_tokens: 1050,
          },
        },
      }),
      line('event_msg', { type: 'agent_message', message: 'Two files.' }),
      text('assistant', 'Two files.'),
      line('event_msg', {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: 2000,
            cached_input_tokens: 1500,
            output_tokens: 80,
            total_tokens: 2080,
          },
        },
      }),
    ]);
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const { rows, report } = await importCodex(store, file);
    const row = rows[0]!;
    // system, 2 users, reasoning, assistant(text+2 calls), 2 outputs, assistant
    expect(row).toMatchObject({
      total_messages: 8,
      tool_call_count: 2,
      llm_call_count: 2,
      model: 'gpt-5-codex',
      workdir: '/w',
      title: 'list the files',
      input_tokens: 500,
      cache_read_tokens: 1500,
      output_tokens: 80,
      total_tokens: 2080,
    });
    const messages = store.readTask(row.uuid).messages(1, 20).messages;
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(messages[3]).toMatchObject({ name: 'reasoning', content: 'I will run ls.' });
    expect(messages[4]!.tool_calls!.map((c) => c.function.name)).toEqual([
      'shell',
      'mcp__node__js',
    ]);
    expect(messages[6]).toMatchObject({
      tool_call_id: 'c2',
      tool_name: 'mcp__node__js',
      content: 'failed',
    });
    const tools = store.readTask(row.uuid).tools().records;
    expect(tools.map((t) => [t.tool, t.status])).toEqual([
      ['shell', 'success'],
      ['mcp__node__js', 'error'],
    ]);
    expect(tools[0]!.args).toEqual({ command: ['ls'] });
    expect(report.ignored).toEqual({ 'event_msg:user_message': 1, 'event_msg:agent_message': 1 });
    store.close();
  });

  it('maps a compacted entry to a summary record and its replacement history to the current context', async () => {
    const summary = 'The user wants a CLI; files a.ts and b.ts exist.';
    const file = write([
      line('session_meta', { id: 'sess-2', cwd: '/w' }),
      line('event_msg', { type: 'user_message', message: 'build a CLI' }),
      item({ type: 'reasoning', summary: [], encrypted_content: 'abcdef' }),
      text('assistant', 'Working on it.'),
      line('compacted', {
        message: summary,
        replacement_history: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build a CLI' }] },
          {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: `Summary of earlier work:\n${summary}` }],
          },
          { type: 'function_call', name: 'ignored', arguments: '{}', call_id: 'x' },
        ],
      }),
      line('event_msg', { type: 'user_message', message: 'continue' }),
      text('assistant', 'Continuing.'),
      '{"broken',
    ]);
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const { rows, report } = await importCodex(store, file);
    const row = rows[0]!;
    expect(row).toMatchObject({
      total_messages: 7,
      total_summaries: 1,
      compression_count: 1,
      llm_call_count: 2,
    });
    const reader = store.readTask(row.uuid);
    expect(reader.summaries().records[0]).toMatchObject({
      strategy: 'codex-compact',
      start_seq: 1,
      end_seq: 3,
      summary,
      replacement_items: 3,
    });
    expect(reader.messages(2, 1).messages[0]!.content).toBe('[encrypted reasoning, 6 characters]');
    expect(reader.messages(5, 1).messages[0]).toMatchObject({ kind: 'summary', role: 'user' });
    expect(reader.current(1, 10).messages.map((m) => m.content)).toEqual([
      'build a CLI',
      `Summary of earlier work:\n${summary}`,
      'continue',
      'Continuing.',
    ]);
    expect(report.skipped).toEqual([
      expect.objectContaining({ line: 8, error: expect.stringMatching(/malformed JSON/) }),
    ]);
    expect(report.ignored).toEqual({ 'compacted:replacement_item': 1 });
    store.close();
  });

  it('reads the older rollout layout (bare session line and items)', async () => {
    const file = write([
      { id: 'old-1', timestamp: '2025-05-01T10:00:00Z', instructions: 'Be brief.' },
      { record_type: 'state' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
    ]);
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const { rows, report } = await importCodex(store, file);
    expect(rows[0]).toMatchObject({
      total_messages: 3,
      created_at: '2025-05-01T10:00:00.000Z',
      task_id: 'old-1',
    });
    expect(report.ignored).toEqual({ 'record_type:state': 1 });
    store.close();
  });
});
