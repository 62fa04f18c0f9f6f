import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importPaths } from '../import';
import { compactTask } from '../compaction/task-compaction';
import { defaultConfig } from '../config';
import { apportion, contextBreakdown } from './context-breakdown';
import { contextUsage } from './context-usage';
import { UsageFiguresCache } from './usage-cache';
import { useTempDir } from '../../../test/support/temp-dir';
import { realFixture } from '../../../test/support/real-fixtures';

const tempDir = useTempDir();

function sum(parts: { tokens: number }[]): number {
  return parts.reduce((s, p) => s + p.tokens, 0);
}

async function ownTask(store: ContextStore, exchanges = 0): Promise<string> {
  const t = store.createTask({ title: 'fix the build', model: 'gpt-4o' });
  t.addMessage({ role: 'system', content: 'You are a careful coding agent.' });
  t.addMessage({ role: 'user', content: 'The build fails in src/app.ts, please fix it.' });
  t.addMessage({
    role: 'assistant',
    content: 'Reading the file first.',
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: { name: 'read_file', arguments: JSON.stringify({ path: 'src/app.ts' }) },
      },
    ],
  });
  t.addMessage({
    role: 'tool',
    content: 'export const x: number = "one";\n'.repeat(40),
    tool_name: 'read_file',
    tool_call_id: 'c1',
  });
  t.addMessage({
    role: 'assistant',
    content: 'thinking about types',
    name: 'reasoning',
    historyOnly: true,
  });
  t.addMessage({ role: 'assistant', content: 'The constant has the wrong type; fixing.' });
  for (let i = 0; i < exchanges; i++) {
    t.addMessage({
      role: 'user',
      content: `Step ${i}: now check module ${i} for the same mistake.`,
    });
    t.addMessage({ role: 'assistant', content: `Module ${i} had it too; fixed in src/m${i}.ts.` });
  }
  const uuid = t.uuid;
  // Ended, so that compaction on demand runs here rather than asking a task process.
  await t.complete();
  return uuid;
}

describe('contextBreakdown', () => {
  it('splits a context into parts that add up to its total, tool outputs by tool', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const uuid = await ownTask(store);
    const dir = store.taskPath(store.requireTask(uuid));
    const b = contextBreakdown(dir, { toolDefinitions: '{"name":"read_file"}' });
    expect(sum(b.parts)).toBe(b.total_tokens);
    const kinds = b.parts.map((p) => (p.tool ? `${p.kind}:${p.tool}` : p.kind));
    expect(kinds).toEqual([
      'system',
      'tool-definitions',
      'user',
      'assistant',
      'tool-calls',
      'tool-output:read_file',
    ]);
    // Reasoning is history only: never in the context, so not in the split.
    expect(kinds).not.toContain('thinking');
    const output = b.parts.find((p) => p.kind === 'tool-output')!;
    expect(output.biggest).toEqual([
      { seq: 4, tokens: output.tokens, preview: expect.stringMatching(/^export const x/) },
    ]);
    // The assistant message with a call is split between its text and its call.
    const assistant = b.parts.find((p) => p.kind === 'assistant')!;
    expect(assistant.messages).toBe(2);
    expect(b.parts.find((p) => p.kind === 'tool-calls')!.biggest[0]!.seq).toBe(3);
    expect(b.at_seq).toBeNull();
    expect(b.reported).toBeNull();
    store.close();
  });

  it('at a past point, before a compaction: what was in the context then', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const uuid = await ownTask(store, 12);
    const dir = store.taskPath(store.requireTask(uuid));
    await compactTask(store, defaultConfig(), uuid, {
      dryRun: false,
      offline: true,
      pipeline: ['summarize'],
    });
    const now = contextBreakdown(dir);
    expect(now.parts.map((p) => p.kind)).toContain('summary');
    expect(sum(now.parts)).toBe(now.total_tokens);
    const before = contextBreakdown(dir, { at: 4 });
    expect(before.at_seq).toBe(4);
    expect(before.parts.map((p) => p.kind)).not.toContain('summary');
    expect(before.parts.find((p) => p.kind === 'tool-output')!.biggest[0]!.seq).toBe(4);
    expect(before.total_tokens).toBeGreaterThan(now.total_tokens);
    store.close();
  });

  it("a real Claude Code session: the parts add up to the usage chart's figure, the unrecorded rest included", async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const run = await importPaths(store, [
      realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'),
    ]);
    const main = run.results[0]!.tasks.find((t) => t.parent_uuid === null)!.uuid;
    const dir = store.taskPath(store.requireTask(main));
    const b = contextBreakdown(dir);
    const chart = await contextUsage(
      dir,
      { contextWindow: 200_000, thresholdRatio: 0.8, thresholdTokens: null },
      1000,
      new UsageFiguresCache(),
    );
    expect(sum(b.parts)).toBe(b.total_tokens);
    expect(Math.abs(b.total_tokens - chart.current) / chart.current).toBeLessThan(0.02);
    // Claude Code's system prompt and tools are counted by the provider, not in the file.
    const unrecorded = b.parts.find((p) => p.kind === 'unrecorded')!;
    expect(unrecorded.tokens).toBeGreaterThan(10_000);
    expect(b.reported!.tokens).toBeGreaterThan(unrecorded.tokens);
    expect(b.parts.filter((p) => p.kind === 'tool-output').map((p) => p.tool)).toContain('Task');
    store.close();
  });
});

describe('apportion', () => {
  it('splits a whole number in proportion, adding up exactly', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(7, [0, 0])).toEqual([7, 0]);
    expect(apportion(0, [5, 5])).toEqual([0, 0]);
    const shares = apportion(1001, [3, 7, 11, 13]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(1001);
  });
});
