/**
 * Compaction keeps the evidence (DESIGN.md §10), on real transcripts of other agents and a
 * real OpenAI-compatible server on 127.0.0.1:
 *
 * - the default offline pipeline keeps the salient facts of the span it replaces while
 *   saving most of its tokens (the quality goal, checked as behaviour, not timed);
 * - a model's terse summary gets the facts it dropped appended, with no second call;
 * - a summary of a summary has one ledger, with the first one's facts merged into it;
 * - odd spans (no facts, a huge output, binary, Japanese) still give a valid summary.
 */
import { LEDGER_DEFAULTS } from '../src/core/facts/fact-ledger-budget';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importPaths } from '../src/core/import';
import { defaultConfig } from '../src/core/config/app-config';
import { compactTask } from '../src/core/compaction/task-compaction';
import { buildPipeline } from '../src/core/compaction/pipeline';
import { runCompaction } from '../src/core/compaction/compaction-engine';
import { llmSummarizer } from '../src/core/compaction/llm-summarizer';
import { readView } from '../src/core/compaction/read-view';
import { createLlmClient } from '../src/core/llm';
import { LEDGER_HEADING, splitLedger } from '../src/core/facts/fact-ledger-text';
import { RECALL_TOOL_NAME } from '../src/core/tools/history-recall-tool';
import { keptShare, type CompactionQualityInfo } from '../src/shared/fact-kinds';
import { startScriptedLlm, type ScriptedLlm } from './support/scripted-llm-server';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir('cwb-evidence-');

const SESSIONS = [
  realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
  realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'),
  realFixture('codex', 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl'),
  realFixture('swe-agent', 'pydicom__pydicom-1458.traj'),
  realFixture('swe-agent', 'function_calling_simple.traj'),
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

describe('the default offline pipeline on real sessions of Claude Code, Codex and SWE-agent', () => {
  it('keeps at least 85 % of the salient facts while saving at least 90 % of the span (medians)', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const imported = await importPaths(store, SESSIONS);
    const qualities: CompactionQualityInfo[] = [];
    for (const task of imported.results.flatMap((r) => r.tasks)) {
      const out = await compactTask(store, defaultConfig(), task.uuid, {
        dryRun: true,
        offline: true,
      });
      if (out.kind === 'ran' && out.run.quality) qualities.push(out.run.quality);
    }
    store.close();
    // Sub-agent threads too short to compact do not count; the sessions themselves do.
    expect(qualities.length).toBeGreaterThanOrEqual(8);
    expect(median(qualities.map((q) => keptShare(q.facts.salient)))).toBeGreaterThanOrEqual(0.85);
    expect(median(qualities.map((q) => q.savedShare))).toBeGreaterThanOrEqual(0.9);
    // Every kind is counted, and the span is real work, not a handful of messages.
    const pooled = (kind: 'path' | 'command' | 'error' | 'number' | 'identifier'): number =>
      qualities.reduce((n, q) => n + q.facts.byKind[kind].total, 0);
    for (const kind of ['path', 'command', 'error', 'number', 'identifier'] as const) {
      expect(pooled(kind), kind).toBeGreaterThan(0);
    }
  });
});

describe('a model summary checked against its span', () => {
  let llm: ScriptedLlm;
  const replies: string[] = [];
  beforeAll(async () => {
    llm = await startScriptedLlm({
      flavor: 'openai',
      script: () => ({
        content: replies.shift() ?? 'The agent worked on the task.',
        usage: { prompt_tokens: 1000, completion_tokens: 20 },
      }),
    });
  });
  afterAll(async () => {
    await llm.close();
  });

  function modelConfig(): ReturnType<typeof defaultConfig> {
    const config = defaultConfig();
    config.llm.provider = 'openai';
    config.llm.openai = { model: 'gpt-4o-mini', base_url: llm.url, api_key: 'sk-test' };
    return config;
  }

  it('appends what the summary dropped, in one call; a second summary keeps one ledger', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const [result] = (
      await importPaths(store, [realFixture('swe-agent', 'pydicom__pydicom-1458.traj')])
    ).results;
    const uuid = result!.tasks[0]!.uuid;
    const config = modelConfig();
    const summarizer = llmSummarizer(createLlmClient(config.llm));
    const task = store.openForMaintenance(uuid);
    const run = async (): Promise<string> => {
      const before = llm.chatRequests().length;
      const out = await runCompaction(task, {
        steps: buildPipeline(config, 128_000, ['summarize'], {
          // What the ledger holds beside the two kept messages; the cap on the whole new
          // context (which would keep fewer on this short trajectory) has its own test.
          summarize: {
            keep_recent_messages: 2,
            min_to_compress: 1,
            fact_ledger: { ...LEDGER_DEFAULTS, context_share: 0 },
          },
        }),
        reason: 'manual',
        dryRun: false,
        summarizer,
        contextWindow: 128_000,
        maxOutputTokens: 4000,
      });
      expect(llm.chatRequests().length - before, 'one model call per summary').toBe(1);
      expect(out.steps[0]!.applied).toBe(true);
      return out.steps[0]!.created[0]!.content!;
    };
    try {
      replies.push('The agent reproduced the bug and edited the NumPy handler.');
      const first = await run();
      expect(first.startsWith('The agent reproduced the bug and edited the NumPy handler.')).toBe(
        true,
      );
      const ledger = splitLedger(first).ledger.map((f) => f.text);
      expect(ledger).toEqual(
        expect.arrayContaining([
          'python reproduce_bug.py',
          'AttributeError: Unable to convert the pixel data as the following required elements are missing from the dataset: PixelRepresentation',
        ]),
      );
      // The file it edited is named by the newest messages kept after the summary: the
      // ledger does not repeat what the context states already.
      const edited = '/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py';
      expect(first).not.toContain(edited);
      const kept = readView(task.dir).view.filter((e) => e.message.content !== first);
      expect(kept.some((e) => JSON.stringify(e.message).includes(edited))).toBe(true);
      expect(first).toContain(RECALL_TOOL_NAME);
      // What the model wrote and the ledger are what the context holds now.
      const view = readView(task.dir).view;
      expect(view.some((e) => e.message.content === first)).toBe(true);

      // Add work after the summary, then summarize the summary: the model echoes the old
      // ledger (models do), and the result still has one ledger holding both spans' facts.
      // (The trajectory ends with `submit`: a user message right after it would read as its output.)
      task.addMessage({ role: 'assistant', content: 'The fix is submitted.' });
      task.addMessage({
        role: 'user',
        content: 'Now run the test suite: pytest tests/test_numpy_pixel_data.py',
      });
      task.addMessage({ role: 'assistant', content: 'Running it.' });
      task.addMessage({ role: 'user', content: 'It printed 3 failed, 120 passed in 4.2s' });
      task.addMessage({ role: 'assistant', content: 'I will look at the failures.' });
      replies.push(
        `Earlier: the handler was fixed.\n\n${first.slice(first.indexOf(LEDGER_HEADING))}`,
      );
      const second = await run();
      expect(second.split(LEDGER_HEADING)).toHaveLength(2);
      const merged = splitLedger(second).ledger.map((f) => f.text);
      // The first ledger's facts and the new request (with its test file) in one ledger.
      expect(merged).toEqual(
        expect.arrayContaining([
          'python reproduce_bug.py',
          'Now run the test suite: pytest tests/test_numpy_pixel_data.py',
        ]),
      );
    } finally {
      task.close();
      store.close();
    }
  });
});

describe('odd spans still give a valid summary and a correct report', () => {
  async function compactOffline(messages: { role: 'user' | 'assistant'; content: string }[]) {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const task = store.createTask({ title: 'odd', prompt: messages[0]!.content, model: 'm' });
    const uuid = task.uuid;
    for (const m of messages) task.addMessage(m);
    await task.complete();
    task.close();
    const config = defaultConfig();
    const out = await compactTask(store, config, uuid, {
      dryRun: false,
      offline: true,
      pipeline: ['extractive'],
      overrides: { extractive: { keep_recent_messages: 1, min_to_compress: 1 } },
    });
    store.close();
    if (out.kind !== 'ran') throw new Error('expected a run');
    return out.run;
  }

  it('a span with no facts', async () => {
    const chat = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content:
        i % 2
          ? 'Sounds good, happy to help with that whenever you are ready.'
          : 'thanks, that is lovely',
    }));
    const run = await compactOffline(chat);
    expect(run.steps[0]!.applied).toBe(true);
    expect(run.quality!.facts.salient).toEqual({ total: 0, kept: 0 });
    expect(run.steps[0]!.created[0]!.content).toMatch(/^Summary of earlier work/);
  });

  it('a huge single tool output, binary bytes and Japanese', async () => {
    const huge = `${'0123456789abcdef'.repeat(400_000)}\nError: disk quota exceeded after 6.4 GB\n`;
    const run = await compactOffline([
      { role: 'user', content: 'ビルドが失敗します。src/build/pack.ts を確認してください。' },
      { role: 'assistant', content: `Log:\n${huge}` },
      { role: 'user', content: `binary: \u0000\u0001\u0002\uFFFD\uFFFD\u001b[31mred\u001b[0m` },
      { role: 'assistant', content: 'I will check src/build/pack.ts for the 6.4 GB limit.' },
      { role: 'user', content: '了解です。次へ進んでください。' },
    ]);
    const step = run.steps[0]!;
    expect(step.applied).toBe(true);
    const summary = step.created[0]!.content!;
    expect(summary).toContain('src/build/pack.ts');
    expect(summary).toContain('ビルドが失敗します');
    expect(run.quality!.savedShare).toBeGreaterThan(0.9);
    expect(run.quality!.facts.byKind.path).toEqual({ total: 1, kept: 1 });
  });
});
