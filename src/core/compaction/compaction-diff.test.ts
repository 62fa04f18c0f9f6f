import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { useTempDir } from '../../../test/support/temp-dir';
import { runCompaction, type PipelineStep } from './compaction-engine';
import { contextAroundRecord } from './compaction-diff';
import { readView } from './read-view';
import { previewRewind } from './rewind-preview';
import { summarize, type SummarizeParams } from './summarize';
import { rewindTo, undoCompaction } from './undo';
import type { Strategy, Summarizer } from './strategy';
import type { ViewEntry } from './view';

const tempDir = useTempDir();

const PARAMS: SummarizeParams = {
  keep_recent_messages: 3,
  min_to_compress: 2,
  summary_prompt: 'Summarize:\n{messages}',
  compression_threshold: 0.7,
  token_threshold: null,
  summary_role: 'assistant',
  // The engine's mechanics, not the ledger (tested in summary-ledger.test.ts).
  fact_ledger: { max_tokens: 0, share: 0.08 },
};
const steps: PipelineStep[] = [{ strategy: summarize as Strategy<never>, params: PARAMS }];
const base = { reason: 'manual' as const, contextWindow: 10_000, maxOutputTokens: 1000 };

function summarizer(text: string): Summarizer {
  return { kind: 'llm', summarize: async (entries) => `${text} of ${entries.length}` };
}

function newTask(): { store: ContextStore; task: TaskContextManager } {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({ title: 'diff' });
  task.addMessage({ role: 'system', content: 'You are an agent.' });
  task.addMessage({ role: 'user', content: 'Fix src/parser.ts' });
  for (let i = 1; i <= 6; i++)
    task.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `step ${i} `.repeat(30) });
  return { store, task };
}

const shown = (view: readonly ViewEntry[]): (string | null)[] => view.map((e) => e.message.content);

async function compact(task: TaskContextManager, text: string): Promise<void> {
  await runCompaction(task, { ...base, steps, dryRun: false, summarizer: summarizer(text) });
}

describe('contextAroundRecord', () => {
  it('gives the context a compaction started from and the one it produced, for chained records', async () => {
    const { store, task } = newTask();
    const first = readView(task.dir).view;
    await compact(task, 'FIRST');
    const afterFirst = readView(task.dir).view;
    task.addMessage({ role: 'user', content: 'and then tests/parser.test.ts' });
    for (let i = 0; i < 4; i++) task.addMessage({ role: 'assistant', content: `more ${i}` });
    const beforeSecond = readView(task.dir).view;
    await compact(task, 'SECOND');

    const one = contextAroundRecord(task.dir, 1);
    expect(one.previousId).toBeNull();
    expect(shown(one.before)).toEqual(shown(first));
    expect(shown(one.after)).toEqual(shown(afterFirst));

    const two = contextAroundRecord(task.dir, 2);
    expect(two.previousId).toBe(1);
    expect(shown(two.before)).toEqual(shown(beforeSecond));
    expect(shown(two.after)).toEqual(shown(readView(task.dir).view));
    expect(shown(two.after)[1]).toMatch(/^SECOND/);
    task.close();
    store.close();
  });

  it('still rebuilds both sides after the record is undone, and skips records undone before it', async () => {
    const { store, task } = newTask();
    await compact(task, 'FIRST');
    await undoCompaction(task, 1);
    const original = readView(task.dir).view;
    await compact(task, 'SECOND');
    const two = contextAroundRecord(task.dir, 2);
    expect(two.previousId).toBeNull();
    expect(shown(two.before)).toEqual(shown(original));
    await undoCompaction(task, 2);
    const again = contextAroundRecord(task.dir, 2);
    expect(again.record.undone).toBe(true);
    expect(shown(again.before)).toEqual(shown(original));
    expect(shown(again.after)[1]).toMatch(/^SECOND/);
    task.close();
    store.close();
  });

  it('for a rewind, the before side is the context the rewind started from, compactions included', async () => {
    const { store, task } = newTask();
    await compact(task, 'FIRST');
    const compacted = readView(task.dir).view;
    const rewind = await rewindTo(task, 3);
    const around = contextAroundRecord(task.dir, rewind.recordId);
    expect(around.previousId).toBe(1);
    expect(shown(around.before)).toEqual(shown(compacted));
    expect(around.after.map((e) => e.message.role)).toEqual(['system', 'user', 'assistant']);
    task.close();
    store.close();
  });

  it('refuses an unknown record', () => {
    const { store, task } = newTask();
    expect(() => contextAroundRecord(task.dir, 7)).toThrow(/no compaction 7/);
    task.close();
    store.close();
  });
});

describe('previewRewind', () => {
  it('agrees with the rewind it previews', async () => {
    const { store, task } = newTask();
    await compact(task, 'FIRST');
    const preview = previewRewind(task.dir, 3);
    const done = await rewindTo(task, 3);
    expect(preview.undone).toEqual(done.undone);
    expect(preview.hiddenCount).toBe(done.hiddenSeqs.length);
    expect(preview.firstHiddenSeq).toBe(Math.min(...done.hiddenSeqs));
    expect(preview.lastSeq).toBe(task.messages.count);
    task.close();
    store.close();
  });
});
