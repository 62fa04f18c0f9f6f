import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { readJsonDocument } from './json-document';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

function write(name: string, value: unknown): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

const chat = [
  { role: 'developer', content: 'Be exact.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is 2+2?' },
      { type: 'image_url', image_url: { url: 'x' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'calc', arguments: { expr: '2+2' } } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', name: 'calc', content: '4' },
  { role: 'assistant', content: '4' },
];

describe('OpenAI chat import', () => {
  it('a message list is one task; parts, developer role and object arguments are normalized', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const result = await importFile(store, write('chat.json', chat));
    expect(result.format).toBe('openai');
    expect(result.tasks).toEqual([
      expect.objectContaining({ messages: 5, tool_calls: 1, llm_calls: 2, title: 'What is 2+2?' }),
    ]);
    const messages = store.readTask(result.tasks[0]!.uuid).messages(1, 10).messages;
    expect(messages[0]).toMatchObject({ role: 'system', content: 'Be exact.' });
    expect(messages[1]!.content).toBe('What is 2+2?\n[image]');
    expect(messages[2]!.tool_calls![0]!.function.arguments).toBe('{"expr":"2+2"}');
    expect(messages[3]).toMatchObject({ role: 'tool', tool_name: 'calc', tool_call_id: 'c1' });
    store.close();
  });

  it('{"messages": [...]} (our own export) and a list of runs; entries that are not messages are skipped and reported', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const single = await importFile(
      store,
      write('export.json', { messages: [...chat, { role: 'wizard', content: 'x' }, 42] }),
    );
    expect(single.tasks[0]).toMatchObject({ messages: 5 });
    expect(single.skipped.map((s) => s.item)).toEqual(['document message 6', 'document message 7']);
    const runs = await importFile(
      store,
      write('runs.json', [
        { task_id: 7, trial: 1, reward: 1, info: { note: 'small' }, traj: chat },
        { task_id: 8, trial: 0, reward: 0, messages: chat.slice(0, 2) },
        { nothing: true },
      ]),
    );
    expect(runs.tasks.map((t) => [t.title, t.messages])).toEqual([
      ['runs.json · task 7, trial 1', 5],
      ['runs.json · task 8, trial 0', 2],
    ]);
    expect(runs.skipped).toEqual([expect.objectContaining({ item: 'run 3' })]);
    expect(store.readTask(runs.tasks[0]!.uuid).metadata()?.source).toMatchObject({
      format: 'openai',
      task_id: 7,
      trial: 1,
      reward: 1,
      run_index: 0,
      info: { note: 'small' },
    });
    expect(store.requireTask(runs.tasks[0]!.uuid).task_id).toBe('7');
    store.close();
  });

  it('refuses JSON documents over the size limit, and invalid JSON, with clear errors and nothing imported', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const big = write('big.json', chat);
    await expect(importFile(store, big, { maxJsonBytes: 100 })).rejects.toThrow(
      /big\.json is \d+ bytes read as one JSON document .*larger than 100 bytes is not imported/,
    );
    await expect(readJsonDocument(write('bad.json', '[{"role": "user",'))).rejects.toThrow(
      /bad\.json is not valid JSON/,
    );
    await expect(importFile(store, write('other.json', { hello: 'world' }))).rejects.toThrow(
      /cannot tell its format/,
    );
    expect(store.listTasks().total).toBe(0);
    store.close();
  });
});

describe('SWE-agent import', () => {
  it('without trajectory steps, history tool calls are the tool executions; a non-submitted exit fails the task', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const traj = {
      history: [
        { role: 'system', content: 'SETTING', agent: 'main' },
        { role: 'user', content: 'demo', is_demo: true },
        { role: 'user', content: [{ type: 'text', text: 'Fix issue 1' }] },
        {
          role: 'assistant',
          content: 'look',
          tool_calls: [
            {
              id: 't1',
              type: 'function',
              function: { name: 'bash', arguments: '{"command":"ls"}' },
            },
          ],
        },
        { role: 'tool', content: 'a.py', tool_call_ids: ['t1'] },
      ],
      info: {
        exit_status: 'exit_cost',
        model_stats: { tokens_sent: 100, tokens_received: 7, api_calls: 3, instance_cost: 0.1 },
      },
    };
    const result = await importFile(store, write('django__django-11099.traj', traj));
    expect(result.format).toBe('swe-agent');
    const row = store.requireTask(result.tasks[0]!.uuid);
    expect(row).toMatchObject({
      status: 'failed',
      error_message: 'SWE-agent exit status: exit_cost',
      total_messages: 5,
      tool_call_count: 1,
      llm_call_count: 3,
      input_tokens: 100,
      output_tokens: 7,
      owner: 'django',
      repo: 'django',
      task_id: 'django__django-11099',
      prompt: 'Fix issue 1',
    });
    expect(store.readTask(row.uuid).tools().records[0]).toMatchObject({
      tool: 'bash',
      result: 'a.py',
      tool_call_id: 't1',
    });
    store.close();
  });
});
