import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { sniffFile } from './detect-format';
import { sourceKind } from '../sources/source-kinds';
import { syncFile } from '../sources/sync-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture(
  'qwen-code',
  '-home-dev-src-weather-cli',
  'chats',
  '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36.jsonl',
);

function stored(store: ContextStore, uuid: string, name: string): Record<string, unknown>[] {
  const dir = store.taskPath(store.requireTask(uuid));
  return fs
    .readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Qwen Code chats', () => {
  it('are told from Claude Code sessions, whose records also carry uuid, sessionId and cwd', async () => {
    expect(await sniffFile(FILE)).toEqual({ kind: 'jsonl', format: 'qwen-code' });
  });

  it('import every message, call and result, the compression summary, the custom title and Gemini-style usage', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.skipped).toEqual([]);
    expect(result.ignored).toEqual({ 'qwen ui_telemetry': 1, 'qwen slash_command': 1 });
    const [task] = result.tasks;
    const messages = stored(store, task!.uuid, 'messages.jsonl');
    const roles = messages.map((m) => `${m.role}${m.name === 'reasoning' ? ':reasoning' : ''}`);
    expect(roles).toEqual([
      'user',
      'assistant:reasoning',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user', // the compression: its summary
      'assistant', // and the model's acknowledgement, the new context
      'user',
      'assistant',
    ]);
    const tools = stored(store, task!.uuid, 'tools.jsonl');
    // six calls: five answered (one failed), the last one never answered
    expect(tools).toHaveLength(6);
    expect(tools.filter((t) => t.status === 'error')).toHaveLength(2);
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'qwen-code',
      title: 'Forecast in Celsius with a Fahrenheit flag',
      task_id: '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36',
      model: 'qwen3-coder-plus',
      workdir: '/home/dev/src/weather-cli',
      git_branch: 'main',
      llm_call_count: 6,
      cache_read_tokens: 8960 + 9280 + 9600 + 9760,
      total_summaries: 1,
    });
    const [record] = stored(store, task!.uuid, 'summaries.jsonl');
    expect(record).toMatchObject({
      strategy: 'qwen-compress',
      start_seq: 1,
      end_seq: 12,
      agent_compaction: true,
      agent_tokens_before: 10053,
      agent_tokens_after: 812,
      created_seqs: [13, 14],
      plan: [{ seq: 13 }, { seq: 14 }],
    });
    expect(String(record!.summary)).toMatch(/^<state_snapshot>/);
    expect(messages.slice(0, 12).every((m) => m.history_only === true)).toBe(true);
    expect(messages[12]).toMatchObject({ kind: 'summary' });
    store.close();
  });

  it("a sub-agent's records (isSidechain, agentId) are its own task under the session; a spawned session hangs under its parent", async () => {
    const root = tempDir();
    const session = '5d2e9a41-7c3b-4f10-8e6a-0b9c1d2e3f4a';
    let n = 0;
    const record = (fields: Record<string, unknown>): string =>
      JSON.stringify({
        uuid: `u-${++n}`,
        parentUuid: n > 1 ? `u-${n - 1}` : null,
        sessionId: session,
        timestamp: `2026-11-20T09:00:${String(n).padStart(2, '0')}.000Z`,
        cwd: '/home/dev/src/weather-cli',
        version: '0.18.0',
        gitBranch: 'main',
        ...fields,
      });
    const sub = { isSidechain: true, agentId: 'explore-7f3c', agentName: 'Explore' };
    const lines = [
      record({
        type: 'system',
        subtype: 'parent_session',
        systemPayload: { parentSessionId: 'a0a0a0a0-0000-4000-8000-000000000001' },
      }),
      record({ type: 'user', message: { role: 'user', parts: [{ text: 'Where is the cache?' }] } }),
      record({
        type: 'assistant',
        model: 'qwen3-coder-plus',
        message: {
          role: 'model',
          parts: [{ functionCall: { id: 'call_a', name: 'agent', args: { prompt: 'find it' } } }],
        },
      }),
      record({ ...sub, type: 'user', message: { role: 'user', parts: [{ text: 'find it' }] } }),
      record({
        ...sub,
        type: 'assistant',
        model: 'qwen3-coder-flash',
        message: {
          role: 'model',
          parts: [{ functionCall: { id: 'call_s', name: 'glob', args: { pattern: '**/cache*' } } }],
        },
      }),
      record({
        ...sub,
        type: 'tool_result',
        message: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'call_s',
                name: 'glob',
                response: { output: 'src/cache.ts' },
              },
            },
          ],
        },
      }),
      record({
        ...sub,
        type: 'assistant',
        model: 'qwen3-coder-flash',
        message: { role: 'model', parts: [{ text: 'src/cache.ts' }] },
      }),
      record({
        type: 'tool_result',
        message: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'call_a',
                name: 'agent',
                response: { output: 'src/cache.ts' },
              },
            },
          ],
        },
      }),
      record({
        type: 'assistant',
        model: 'qwen3-coder-plus',
        message: { role: 'model', parts: [{ text: 'It is in src/cache.ts.' }] },
      }),
    ];
    const file = path.join(root, 'chats', `${session}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const store = ContextStore.open(path.join(root, 'store'));
    const result = await importFile(store, file);
    expect(result.skipped).toEqual([]);
    const [main, agent] = result.tasks;
    expect(store.requireTask(main!.uuid)).toMatchObject({
      task_type: 'subagent',
      title: 'Subagent: Where is the cache?',
      model: 'qwen3-coder-plus',
      llm_call_count: 2,
    });
    expect(stored(store, main!.uuid, 'messages.jsonl').map((m) => m.content)).toEqual([
      'Where is the cache?',
      '',
      'src/cache.ts',
      'It is in src/cache.ts.',
    ]);
    expect(store.requireTask(agent!.uuid)).toMatchObject({
      parent_uuid: main!.uuid,
      task_type: 'subagent',
      title: 'Subagent: Explore',
      model: 'qwen3-coder-flash',
      llm_call_count: 2,
    });
    expect(stored(store, agent!.uuid, 'messages.jsonl').map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(stored(store, agent!.uuid, 'tools.jsonl')).toMatchObject([
      { tool: 'glob', tool_call_id: 'call_s', status: 'success' },
    ]);
    // A live sync of the same file: the same two tasks, the sub-agent under the session.
    const live = ContextStore.open(path.join(root, 'live'));
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    await syncFile(live, sourceKind('qwen-code')!, file);
    const view = (s: ContextStore): unknown[] =>
      s
        .listTasks({ limit: 10 })
        .rows.sort((a, b) => a.created_at.localeCompare(b.created_at))
        .map((r) => ({
          title: r.title,
          task_type: r.task_type,
          model: r.model,
          llm_call_count: r.llm_call_count,
          parent: r.parent_uuid === null ? null : s.requireTask(r.parent_uuid).title,
          messages: stored(s, r.uuid, 'messages.jsonl').map((m) => [m.role, m.content]),
        }));
    expect(view(live)).toEqual(view(store));
    live.close();
    store.close();
  });
});
