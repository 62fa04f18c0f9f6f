import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('copilot-cli', '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31', 'events.jsonl');

function stored(store: ContextStore, uuid: string, name: string): Record<string, unknown>[] {
  const dir = store.taskPath(store.requireTask(uuid));
  return fs
    .readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('GitHub Copilot CLI sessions', () => {
  it('import every message and tool result of the main agent; its sub-agent is a task of its own', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.format).toBe('copilot-cli');
    expect(result.skipped).toEqual([]);
    expect(result.ignored).toEqual({
      'copilot subagent.started': 1,
      'copilot subagent.completed': 1,
      'copilot tool.execution_start': 6,
      'copilot assistant.turn_start': 3,
      'copilot assistant.turn_end': 3,
      'copilot session.compaction_start': 1,
    });
    expect(result.tasks).toHaveLength(2);
    const [task] = result.tasks;
    const messages = stored(store, task!.uuid, 'messages.jsonl');
    const roles = messages.map((m) => `${m.role}${m.name === 'reasoning' ? ':reasoning' : ''}`);
    // system prompt, 4 requests (one the compaction summary), 2 reasonings, 8 replies, 6 results
    expect(roles.filter((r) => r === 'system')).toHaveLength(1);
    expect(roles.filter((r) => r === 'user')).toHaveLength(4);
    expect(roles.filter((r) => r === 'assistant:reasoning')).toHaveLength(2);
    expect(roles.filter((r) => r === 'assistant')).toHaveLength(8);
    expect(roles.filter((r) => r === 'tool')).toHaveLength(6);
    expect(
      messages.find((m) => m.role === 'user' && String(m.content).includes('<overview>')),
    ).toBeDefined();
    const tools = stored(store, task!.uuid, 'tools.jsonl');
    expect(tools).toHaveLength(6);
    expect(tools.filter((t) => t.status === 'error')).toHaveLength(1);
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'copilot-cli',
      task_id: '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31',
      title: expect.stringMatching(/^The invoice totals are off by a cent/),
      model: 'claude-sonnet-4.5',
      workdir: '/home/dev/src/invoice-tool',
      owner: 'acme',
      repo: 'invoice-tool',
      git_branch: 'fix-rounding',
      llm_call_count: 8,
      output_tokens: 681,
      input_tokens: 61880 + 4900,
      cache_read_tokens: 48200,
    });
    store.close();
  });

  it('a sub-agent is a task under the session: asked by the task call, its own calls and replies', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const [main, sub] = (await importFile(store, FILE)).tasks;
    const row = store.requireTask(sub!.uuid);
    expect(row).toMatchObject({
      parent_uuid: main!.uuid,
      task_type: 'subagent',
      task_id: '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31',
      title: 'Subagent: Find money rounding',
      model: 'claude-haiku-4.5',
      workdir: '/home/dev/src/invoice-tool',
      git_branch: 'fix-rounding',
      llm_call_count: 2,
      output_tokens: 31 + 40,
    });
    const messages = stored(store, sub!.uuid, 'messages.jsonl');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages[0]).toMatchObject({
      content: expect.stringMatching(/^List every place in src\/ that rounds currency/),
      timestamp: '2026-10-14T08:14:26.200Z',
    });
    expect(messages[3]!.content).toMatch(/^Two places round/);
    const tools = stored(store, sub!.uuid, 'tools.jsonl');
    expect(tools).toMatchObject([{ tool: 'grep', tool_call_id: 'toolu_S1', status: 'success' }]);
    // The session's task call holds the sub-agent's answer, as before.
    const mainTools = stored(store, main!.uuid, 'tools.jsonl');
    expect(mainTools.find((t) => t.tool_call_id === 'toolu_02A')).toMatchObject({
      tool: 'task',
      status: 'success',
    });
    store.close();
  });

  it("a compaction is the agent's own compaction record: its summary the new context, its tokens and model call on it", async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const [task] = (await importFile(store, FILE)).tasks;
    const [record, ...more] = stored(store, task!.uuid, 'summaries.jsonl');
    expect(more).toEqual([]);
    const messages = stored(store, task!.uuid, 'messages.jsonl');
    const summary = messages.find((m) => m.kind === 'summary')!;
    expect(summary).toMatchObject({ role: 'user', timestamp: '2026-10-14T08:17:15.000Z' });
    expect(record).toMatchObject({
      strategy: 'copilot-compact',
      start_seq: 1,
      end_seq: (summary.seq as number) - 1,
      agent_compaction: true,
      agent_tokens_before: 18440,
      agent_tokens_after: 2310,
      trigger: 'manual',
      messages_removed: 20,
      model: 'claude-sonnet-4.5',
      llm_usage: { input_tokens: 15200, output_tokens: 410 },
      created_seqs: [summary.seq],
      note: expect.stringContaining('kept 4 of its 24 messages'),
    });
    // The system prompt stays in the context; what came before the summary left it.
    const system = messages.find((m) => m.role === 'system')!;
    expect(record!.plan).toEqual([{ seq: system.seq }, { seq: summary.seq }]);
    const before = messages.filter((m) => (m.seq as number) < (summary.seq as number));
    expect(before.filter((m) => m.role !== 'system').every((m) => m.history_only)).toBe(true);
    expect(system.history_only).toBeUndefined();
    store.close();
  });
});
