/**
 * GitHub Copilot CLI writes a sub-agent's events into its session's own events.jsonl: a
 * sub-agent is a task of its own under the session's task, on `cwb import` and in a live
 * sync alike — whether its events name the call that started it (`parentToolCallId`, older
 * releases) or only the sub-agent's instance (`agentId`, as the SDK defines it now), and with
 * two sub-agents running at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { sourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const SESSION = '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31';

function sessionFile(root: string, text: string): string {
  const file = path.join(root, 'home', '.copilot', 'session-state', SESSION, 'events.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/** The sub-agents by title, then the session's task. */
function byTitle(store: ContextStore): TaskRow[] {
  const order = (r: TaskRow): string => `${r.task_type === '' ? 1 : 0}${r.title}`;
  return store.listTasks({ limit: 20 }).rows.sort((a, b) => order(a).localeCompare(order(b)));
}

function view(store: ContextStore, row: TaskRow): Record<string, unknown> {
  const dir = store.taskPath(row);
  return {
    title: row.title,
    input_tokens: row.input_tokens,
    cache_read_tokens: row.cache_read_tokens,
    task_type: row.task_type,
    model: row.model,
    llm_call_count: row.llm_call_count,
    output_tokens: row.output_tokens,
    created_at: row.created_at,
    completed_at: row.completed_at,
    messages: lines(path.join(dir, 'messages.jsonl')).map((m) => [m.role, m.content]),
    tools: lines(path.join(dir, 'tools.jsonl')).map((t) => [t.tool_call_id, t.status]),
  };
}

const usage = (input: number, output: number, cacheRead: number): Record<string, number> => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
});

/**
 * Two sub-agents at once, their events naming only their instance (`agentId`); a reply in
 * two parts; the shutdown's usage per agent (`agentMetrics`).
 */
function parallelSession(): string {
  let n = 0;
  const event = (type: string, data: Record<string, unknown>, agentId?: string): string =>
    JSON.stringify({
      type,
      data,
      id: `e-${++n}`,
      timestamp: `2026-11-02T10:00:${String(n).padStart(2, '0')}.000Z`,
      parentId: n > 1 ? `e-${n - 1}` : null,
      ...(agentId !== undefined && { agentId }),
    });
  const ask = (id: string, description: string, prompt: string): Record<string, unknown> => ({
    toolCallId: id,
    name: 'task',
    arguments: { agent_type: 'explore', description, prompt },
    type: 'function',
  });
  return (
    [
      event('session.start', {
        sessionId: SESSION,
        version: 1,
        producer: 'copilot-agent',
        copilotVersion: '1.0.80',
        startTime: '2026-11-02T10:00:01.000Z',
        context: { cwd: '/home/dev/src/shop' },
      }),
      event('user.message', { content: 'Check the cart and the checkout for rounding.' }),
      event('assistant.message', {
        messageId: 'm-1',
        content: '',
        toolRequests: [
          ask('call_cart', 'Cart rounding', 'Find where the cart rounds prices.'),
          ask('call_pay', 'Checkout rounding', 'Find where the checkout rounds totals.'),
        ],
        model: 'gpt-5.4',
        outputTokens: 40,
      }),
      event('subagent.started', { toolCallId: 'call_cart', agentName: 'explore' }, 'ag-1'),
      event('subagent.started', { toolCallId: 'call_pay', agentName: 'explore' }, 'ag-2'),
      event(
        'assistant.message',
        {
          messageId: 's-1',
          content: '',
          toolRequests: [{ toolCallId: 'c1', name: 'grep', arguments: { pattern: 'round' } }],
          model: 'gpt-5-mini',
          outputTokens: 11,
        },
        'ag-1',
      ),
      event(
        'assistant.message',
        { messageId: 's-2', content: 'Checkout: src/pay.ts:4.', model: 'gpt-5-mini' },
        'ag-2',
      ),
      event(
        'tool.execution_complete',
        { toolCallId: 'c1', success: true, result: { content: 'src/cart.ts:9' } },
        'ag-1',
      ),
      event('subagent.completed', { toolCallId: 'call_pay', agentName: 'explore' }, 'ag-2'),
      event(
        'assistant.message',
        { messageId: 's-3', content: 'Cart: src/cart.ts:9.', model: 'gpt-5-mini' },
        'ag-1',
      ),
      event('subagent.completed', { toolCallId: 'call_cart', agentName: 'explore' }, 'ag-1'),
      event('tool.execution_complete', {
        toolCallId: 'call_cart',
        success: true,
        result: { content: 'Cart: src/cart.ts:9.' },
      }),
      event('tool.execution_complete', {
        toolCallId: 'call_pay',
        success: true,
        result: { content: 'Checkout: src/pay.ts:4.' },
      }),
      // One response in two parts (split at a reasoning boundary): one LLM call.
      event('assistant.message', {
        messageId: 'm-2',
        content: 'Both sub-agents answered.',
        model: 'gpt-5.4',
        apiCallId: 'resp-2',
        chunkIndex: 0,
        chunkCount: 2,
        outputTokens: 20,
      }),
      event('assistant.message', {
        messageId: 'm-3',
        content: 'The cart rounds at src/cart.ts:9, the checkout at src/pay.ts:4.',
        model: 'gpt-5.4',
        apiCallId: 'resp-2',
        chunkIndex: 1,
        chunkCount: 2,
        outputTokens: 20,
      }),
      event('session.shutdown', {
        shutdownType: 'routine',
        sessionStartTime: 1793613601000,
        totalApiDurationMs: 9000,
        codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
        modelMetrics: {
          'gpt-5.4': { requests: { count: 2, cost: 2 }, usage: usage(9000, 60, 4000) },
          'gpt-5-mini': { requests: { count: 3, cost: 0 }, usage: usage(3000, 26, 0) },
        },
        agentMetrics: {
          main: { modelMetrics: { 'gpt-5.4': { usage: usage(9000, 60, 4000) } } },
          'ag-1': { modelMetrics: { 'gpt-5-mini': { usage: usage(2000, 16, 0) } } },
          'ag-2': { modelMetrics: { 'gpt-5-mini': { usage: usage(1000, 10, 0) } } },
        },
      }),
    ].join('\n') + '\n'
  );
}

describe('Copilot CLI sub-agents', () => {
  it('the fixture, synced in two parts cut inside its sub-agent: the sub-agent task under the session, as imported', async () => {
    const root = tempDir();
    const text = fs.readFileSync(realFixture('copilot-cli', SESSION, 'events.jsonl'), 'utf8');
    const all = text.split('\n');
    // Cut after the sub-agent's first reply: its call and the session's task call both open.
    const cut = all.findIndex((l) => l.includes('"messageId":"s-1"')) + 1;
    const file = sessionFile(root, all.slice(0, cut).join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('copilot-cli')!;
    expect((await syncFile(live, kind, file)).status).toBe('synced');
    fs.writeFileSync(file, text);
    expect((await syncFile(live, kind, file)).status).toBe('synced');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    await syncFile(live, kind, file);

    const [sub, main] = byTitle(live);
    expect(main!.title).toMatch(/^The invoice totals/);
    expect(sub).toMatchObject({
      title: 'Subagent: Find money rounding',
      task_type: 'subagent',
      parent_uuid: main!.uuid,
      task_source: 'copilot-cli',
      task_id: SESSION,
    });
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    const [isub, imain] = byTitle(imported);
    expect(isub!.parent_uuid).toBe(imain!.uuid);
    expect([view(live, sub!), view(live, main!)]).toEqual([
      view(imported, isub!),
      view(imported, imain!),
    ]);
    live.close();
    imported.close();
  });

  it('two sub-agents at once, known by their agentId only: each its own task with its own calls', async () => {
    const root = tempDir();
    const file = sessionFile(root, parallelSession());
    const imported = ContextStore.open(path.join(root, 'imported'));
    const result = await importFile(imported, file);
    expect(result.skipped).toEqual([]);
    expect(result.tasks).toHaveLength(3);
    const [cart, pay, main] = byTitle(imported);
    expect(main!.title).toBe('Check the cart and the checkout for rounding.');
    expect(cart).toMatchObject({ input_tokens: 2000, output_tokens: 11 });
    expect(pay).toMatchObject({ input_tokens: 1000, output_tokens: 0 });
    expect(main).toMatchObject({ input_tokens: 9000, output_tokens: 60, cache_read_tokens: 4000 });
    expect(view(imported, cart!)).toMatchObject({
      title: 'Subagent: Cart rounding',
      task_type: 'subagent',
      model: 'gpt-5-mini',
      llm_call_count: 2,
      messages: [
        ['user', 'Find where the cart rounds prices.'],
        ['assistant', ''],
        ['tool', 'src/cart.ts:9'],
        ['assistant', 'Cart: src/cart.ts:9.'],
      ],
      tools: [['c1', 'success']],
    });
    expect(view(imported, pay!)).toMatchObject({
      title: 'Subagent: Checkout rounding',
      llm_call_count: 1,
      messages: [
        ['user', 'Find where the checkout rounds totals.'],
        ['assistant', 'Checkout: src/pay.ts:4.'],
      ],
      tools: [],
    });
    expect(view(imported, main!)).toMatchObject({
      llm_call_count: 2,
      output_tokens: 40 + 20,
      tools: [
        ['call_cart', 'success'],
        ['call_pay', 'success'],
      ],
    });
    for (const row of [cart, pay]) expect(row!.parent_uuid).toBe(main!.uuid);

    // Live, line by line in three syncs: the same tasks.
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('copilot-cli')!;
    const text = fs.readFileSync(file, 'utf8');
    const all = text.split('\n');
    for (const end of [6, 10]) {
      fs.writeFileSync(file, all.slice(0, end).join('\n') + '\n');
      await syncFile(live, kind, file);
    }
    fs.writeFileSync(file, text);
    await syncFile(live, kind, file);
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    await syncFile(live, kind, file);
    const synced = byTitle(live);
    expect(synced.map((r) => view(live, r))).toEqual(
      byTitle(imported).map((r) => view(imported, r)),
    );
    expect(synced[0]!.parent_uuid).toBe(synced[2]!.uuid);
    expect(synced[1]!.parent_uuid).toBe(synced[2]!.uuid);
    live.close();
    imported.close();
  });
});
