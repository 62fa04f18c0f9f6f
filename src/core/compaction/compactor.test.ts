import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { useTempDir } from '../../../test/support/temp-dir';
import type { PipelineStep } from './compaction-engine';
import { createCompactor, type CompactorOptions } from './compactor';
import { summarize, type SummarizeParams } from './summarize';
import type { Strategy, Summarizer } from './strategy';

const tempDir = useTempDir();

const PARAMS: SummarizeParams = {
  keep_recent_messages: 2,
  min_to_compress: 2,
  summary_prompt: 'Summarize:\n{messages}',
  compression_threshold: 0.5,
  token_threshold: null,
  summary_role: 'assistant',
  fact_ledger: { max_tokens: 0, share: 0.08 },
};

const summarizer: Summarizer = {
  kind: 'llm',
  summarize: async (entries) => `SUMMARY of ${entries.length}`,
};

function taskWithHistory(): TaskContextManager {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({ title: 'compactor' });
  task.addMessage({ role: 'system', content: 'You are an agent.' });
  for (let i = 0; i < 6; i++) {
    task.addMessage({ role: 'user', content: `question ${i} `.repeat(50) });
    task.addMessage({ role: 'assistant', content: `answer ${i} `.repeat(50) });
  }
  return task;
}

/** A compactor whose pipeline is the summarize strategy, counting how often it is asked for. */
function compactorFor(
  task: TaskContextManager,
  options: Partial<CompactorOptions>,
): { loads: () => number; compactor: ReturnType<typeof createCompactor> } {
  let loads = 0;
  const steps = async (): Promise<readonly PipelineStep[]> => {
    loads++;
    return [{ strategy: summarize as Strategy<never>, params: PARAMS }];
  };
  const compactor = createCompactor({
    task,
    steps,
    enabled: true,
    auto: true,
    summarizer,
    contextWindow: 2_000,
    maxOutputTokens: 100,
    ...options,
  });
  return { loads: () => loads, compactor };
}

describe('createCompactor', () => {
  it('never asks for the pipeline when compaction is off (the strategies stay unloaded)', async () => {
    const task = taskWithHistory();
    const { loads, compactor } = compactorFor(task, { enabled: false });
    for (const reason of ['after-llm', 'after-tools', 'final', 'requested'] as const) {
      expect((await compactor.maybeCompact(reason)).compacted).toBe(false);
    }
    expect(loads()).toBe(0);
  });

  it('asks for the pipeline once, when compaction is first considered, and compacts with it', async () => {
    const task = taskWithHistory();
    const { loads, compactor } = compactorFor(task, {});
    expect(loads()).toBe(0);
    const first = await compactor.maybeCompact('after-llm');
    expect(first.compacted).toBe(true);
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
    await compactor.maybeCompact('after-tools');
    await compactor.maybeCompact('requested');
    expect(loads()).toBe(1);
  });

  it('does not load the pipeline for automatic checks when only manual compaction is on', async () => {
    const task = taskWithHistory();
    const { loads, compactor } = compactorFor(task, { auto: false });
    expect((await compactor.maybeCompact('after-tools')).compacted).toBe(false);
    expect(loads()).toBe(0);
    expect((await compactor.maybeCompact('requested')).compacted).toBe(true);
    expect(loads()).toBe(1);
  });
});
