import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { useTempDir } from '../../../test/support/temp-dir';
import { runCompaction, type PipelineStep } from './compaction-engine';
import { summarize, type SummarizeParams } from './summarize';
import { undoCompaction, rewindTo } from './undo';
import { readView } from './read-view';
import { allRecords } from './compaction-record';
import type { Strategy, Summarizer } from './strategy';
import { SUMMARY_PROMPT_JA } from '../config/summary-prompt';
import type { CurrentMessage } from '../../shared/task-types';

const tempDir = useTempDir();

const PARAMS: SummarizeParams = {
  keep_recent_messages: 3,
  min_to_compress: 2,
  summary_prompt: 'Summarize:\n{messages}\nOnly the summary.',
  compression_threshold: 0.7,
  token_threshold: null,
  summary_role: 'assistant',
  // The engine's mechanics, not the ledger (tested in summary-ledger.test.ts).
  fact_ledger: { max_tokens: 0, share: 0.08 },
};

function fakeSummarizer(text = 'SUMMARY'): Summarizer & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    kind: 'llm',
    prompts,
    async summarize(entries, prompt) {
      prompts.push(
        prompt.replace(
          '{messages}',
          entries.map((e) => `[${e.message.role}]: ${e.message.content}`).join('\n'),
        ),
      );
      return `${text} of ${entries.length}`;
    },
  };
}

/** system, user, then `pairs` × (assistant tool call + tool result), then a final assistant answer. */
function taskWithHistory(pairs: number): { store: ContextStore; task: TaskContextManager } {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({ title: 'compaction' });
  task.addMessage({ role: 'system', content: 'You are an agent.' });
  task.addMessage({ role: 'user', content: 'Fix the bug in parser.ts' });
  for (let i = 1; i <= pairs; i++) {
    task.addMessage({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"f${i}.ts"}` },
        },
      ],
    });
    task.addMessage({
      role: 'tool',
      content: `contents of f${i}.ts `.repeat(20),
      tool_call_id: `c${i}`,
      tool_name: 'read_file',
    });
  }
  task.addMessage({ role: 'assistant', content: 'I found it.' });
  return { store, task };
}

function current(task: TaskContextManager): CurrentMessage[] {
  return fs
    .readFileSync(task.messages.currentPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CurrentMessage);
}

function steps(params: Partial<SummarizeParams> = {}): PipelineStep[] {
  return [{ strategy: summarize as Strategy<never>, params: { ...PARAMS, ...params } }];
}

const base = { reason: 'manual' as const, contextWindow: 10_000, maxOutputTokens: 1000 };

describe('runCompaction with summarize', () => {
  it('keeps the system prompt, puts the summary first, keeps the newest messages and never splits a tool pair', async () => {
    const { store, task } = taskWithHistory(4);
    const summarizer = fakeSummarizer();
    const historyBefore = fs.readFileSync(task.messages.messagesPath);
    const run = await runCompaction(task, { ...base, steps: steps(), dryRun: false, summarizer });
    expect(run.steps[0]).toMatchObject({ strategy: 'summarize', applied: true, recordId: 1 });
    const ctx = current(task);
    expect(ctx[0]).toEqual({ role: 'system', content: 'You are an agent.' });
    expect(ctx[1]).toMatchObject({
      role: 'assistant',
      content: expect.stringMatching(/^SUMMARY of \d+$/),
    });
    // keep 3 → the cut moves back to the assistant call so its result stays with it
    expect(ctx.slice(2).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(ctx[2]!.tool_calls![0]!.id).toBe('c4');
    expect(ctx[3]!.tool_call_id).toBe('c4');
    expect(summarizer.prompts[0]).toContain('[user]: Fix the bug in parser.ts');
    expect(summarizer.prompts[0]).not.toContain('You are an agent.');

    // messages.jsonl only grew: the old bytes are untouched, the summary was appended
    const historyAfter = fs.readFileSync(task.messages.messagesPath);
    expect(historyAfter.subarray(0, historyBefore.length).equals(historyBefore)).toBe(true);
    const summaryMsg = task.messages.readTail(1).messages[0]!;
    expect(summaryMsg).toMatchObject({ kind: 'summary', compaction_id: 1, role: 'assistant' });

    const record = allRecords(task.dir)[0]!;
    expect(record).toMatchObject({
      id: 1,
      strategy: 'summarize',
      start_seq: 2,
      end_seq: 8,
      compressed_message_count: 7,
      through_seq: 12,
      created_seqs: [12],
    });
    expect(record.tokens_after).toBeLessThan(record.tokens_before);
    expect(store.requireTask(task.uuid)).toMatchObject({
      compression_count: 1,
      total_summaries: 1,
    });
    // a new message after the compaction appends to the rebuilt current.jsonl
    task.addMessage({ role: 'user', content: 'thanks' });
    expect(current(task).at(-1)).toEqual({ role: 'user', content: 'thanks' });
    expect(readView(task.dir).view.map((e) => e.message.content)).toEqual(
      current(task).map((m) => m.content),
    );
    task.close();
    store.close();
  });

  it('skips when fewer than min_to_compress messages would be summarized', async () => {
    const { store, task } = taskWithHistory(1);
    const run = await runCompaction(task, {
      ...base,
      steps: steps({ min_to_compress: 5 }),
      dryRun: false,
      summarizer: fakeSummarizer(),
    });
    expect(run.steps[0]).toMatchObject({
      applied: false,
      reason: expect.stringMatching(/min_to_compress is 5/),
    });
    expect(allRecords(task.dir)).toEqual([]);
    task.close();
    store.close();
  });

  it('a dry run returns the same plan, calls no LLM and writes nothing', async () => {
    const { store, task } = taskWithHistory(4);
    const summarizer = fakeSummarizer();
    const files = (): Record<string, number> =>
      Object.fromEntries(
        fs.readdirSync(task.dir).map((f) => [f, fs.statSync(path.join(task.dir, f)).size]),
      );
    const before = files();
    const dry = await runCompaction(task, { ...base, steps: steps(), dryRun: true, summarizer });
    expect(summarizer.prompts).toEqual([]);
    expect(files()).toEqual(before);
    expect(dry.steps[0]).toMatchObject({
      applied: true,
      estimated: true,
      replacedSeqs: [2, 3, 4, 5, 6, 7, 8],
    });
    const real = await runCompaction(task, { ...base, steps: steps(), dryRun: false, summarizer });
    expect(real.steps[0]!.replacedSeqs).toEqual(dry.steps[0]!.replacedSeqs);
    expect(real.view.map((e) => e.message.role)).toEqual(dry.view.map((e) => e.message.role));
    task.close();
    store.close();
  });

  it('the built-in Japanese prompt switches to English for an English conversation', async () => {
    const { store, task } = taskWithHistory(4);
    const summarizer = fakeSummarizer();
    await runCompaction(task, {
      ...base,
      steps: steps({ summary_prompt: SUMMARY_PROMPT_JA }),
      dryRun: false,
      summarizer,
    });
    expect(summarizer.prompts[0]).toMatch(/^You are an assistant that summarizes/);
    task.close();
    store.close();
  });
});

describe('undo and rewind', () => {
  it('undo restores the previous context; undoing an earlier compaction undoes the later ones built on it', async () => {
    const { store, task } = taskWithHistory(4);
    const original = current(task);
    await runCompaction(task, {
      ...base,
      steps: steps(),
      dryRun: false,
      summarizer: fakeSummarizer('FIRST'),
    });
    const afterFirst = current(task);
    for (let i = 0; i < 4; i++)
      task.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `more ${i}` });
    await runCompaction(task, {
      ...base,
      steps: steps(),
      dryRun: false,
      summarizer: fakeSummarizer('SECOND'),
    });
    expect(current(task)[1]!.content).toMatch(/^SECOND/);

    const undoSecond = await undoCompaction(task, 2);
    expect(undoSecond.undone).toEqual([2]);
    expect(current(task)).toEqual([
      ...afterFirst,
      ...['more 0', 'more 1', 'more 2', 'more 3'].map((c, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: c,
      })),
    ]);

    await runCompaction(task, {
      ...base,
      steps: steps(),
      dryRun: false,
      summarizer: fakeSummarizer('THIRD'),
    });
    const undoFirst = await undoCompaction(task, 1);
    expect(undoFirst.undone).toEqual([1, 3]);
    // back to the original context plus the messages added since
    expect(current(task).slice(0, original.length)).toEqual(original);
    expect(current(task)).toHaveLength(original.length + 4);
    await expect(undoCompaction(task, 1)).rejects.toThrow(/not in effect/);
    expect(allRecords(task.dir).map((r) => [r.id, r.undone])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    task.close();
    store.close();
  });

  it('rewind hides later messages, undoes compactions made after, and can itself be undone', async () => {
    const { store, task } = taskWithHistory(3);
    const full = current(task);
    const rewind = await rewindTo(task, 4); // user, assistant(call c1), tool(c1) kept after system
    expect(current(task).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(rewind.hiddenSeqs).toEqual([5, 6, 7, 8, 9]);
    await undoCompaction(task, rewind.recordId);
    expect(current(task)).toEqual(full);

    // rewinding into the middle of a pair: the call gets a synthetic result
    await rewindTo(task, 3);
    const ctx = current(task);
    expect(ctx.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'c1',
      content: expect.stringMatching(/not in this context/),
    });
    await expect(rewindTo(task, 999)).rejects.toThrow(/is not a message/);
    task.close();
    store.close();
  });
});

describe('runCompaction and the tool outputs a step copies aside', () => {
  it('makes the copies durable before the record naming them is appended', async () => {
    const { toolOutputTrim, TOOL_OUTPUT_TRIM_DEFAULTS } = await import('./tool-output-trim');
    const { task } = taskWithHistory(6);
    const summaries = path.join(task.dir, 'summaries.jsonl');
    const recordsAtSync: number[] = [];
    const sync = task.toolOutputs.sync.bind(task.toolOutputs);
    task.toolOutputs.sync = async () => {
      recordsAtSync.push(fs.existsSync(summaries) ? allRecords(task.dir).length : 0);
      await sync();
    };
    const run = await runCompaction(task, {
      ...base,
      dryRun: false,
      summarizer: fakeSummarizer(),
      steps: [
        {
          strategy: toolOutputTrim as Strategy<never>,
          params: { ...TOOL_OUTPUT_TRIM_DEFAULTS, context_budget_tokens: 100 } as never,
        },
      ],
    });
    expect(run.steps[0]?.applied).toBe(true);
    expect(fs.readdirSync(task.toolOutputs.dir).length).toBeGreaterThan(0);
    expect(recordsAtSync).toEqual([0]);
    expect(allRecords(task.dir)).toHaveLength(1);
  });
});
