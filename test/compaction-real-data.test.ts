import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importPaths } from '../src/core/import';
import { defaultConfig } from '../src/core/config/app-config';
import { STRATEGY_NAMES } from '../src/shared/strategy-names';
import { buildPipeline } from '../src/core/compaction/pipeline';
import { runCompaction } from '../src/core/compaction/compaction-engine';
import { undoCompaction } from '../src/core/compaction/undo';
import { readView } from '../src/core/compaction/read-view';
import { extractiveSummarizer } from '../src/core/compaction/extractive-digest';
import { llmSummarizer } from '../src/core/compaction/llm-summarizer';
import { allRecords } from '../src/core/compaction/compaction-record';
import { createLlmClient } from '../src/core/llm';
import type { Summarizer } from '../src/core/compaction/strategy';
import type { CurrentMessage } from '../src/shared/task-types';
import { startScriptedLlm, type ScriptedLlm } from './support/scripted-llm-server';
import { useTempDir } from './support/temp-dir';
import { REAL_FIXTURES } from './support/real-fixtures';

const tempDir = useTempDir();
const FIXTURES = REAL_FIXTURES;
const WINDOW = 8000;

// LLM summaries come from a scripted OpenAI-compatible server on 127.0.0.1, through the real client.
let llm: ScriptedLlm;
let model: Summarizer;
beforeAll(async () => {
  llm = await startScriptedLlm({
    flavor: 'openai',
    script: (request) => {
      const prompt = (request.body as { messages: { content: string }[] }).messages.at(-1)!.content;
      return {
        content: prompt.includes('<retain>')
          ? '<retain>Keep: refs and file paths.</retain>\n<summary>The agent investigated and edited files.</summary>'
          : 'The agent investigated and edited files.',
        usage: { prompt_tokens: 900, completion_tokens: 12 },
      };
    },
  });
  const config = defaultConfig();
  config.llm.provider = 'openai';
  config.llm.openai = { model: 'gpt-4o-mini', base_url: llm.url, api_key: 'sk-test' };
  model = llmSummarizer(createLlmClient(config.llm));
});
const appliedCount = new Map<string, number>();
afterAll(async () => {
  await llm.close();
  // every strategy really did work somewhere, so none of the checks above held vacuously
  expect(
    Object.fromEntries(STRATEGY_NAMES.map((n) => [n, (appliedCount.get(n) ?? 0) > 0])),
  ).toEqual(Object.fromEntries(STRATEGY_NAMES.map((n) => [n, true])));
});

function currentLines(dir: string): CurrentMessage[] {
  return fs
    .readFileSync(path.join(dir, 'current.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CurrentMessage);
}

/** Every tool call is answered right after its message, once; every result has its call. */
function pairProblems(messages: CurrentMessage[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!m.tool_call_id || !open.delete(m.tool_call_id))
        problems.push(`result ${m.tool_call_id} at ${i} has no open call`);
      return;
    }
    if (open.size) problems.push(`calls ${[...open].join(',')} unanswered before ${i}`);
    open.clear();
    for (const c of m.tool_calls ?? []) open.add(c.id);
  });
  if (open.size) problems.push(`calls ${[...open].join(',')} unanswered at the end`);
  return problems;
}

/** The transcripts: every session file, and the five longest tau-bench runs. */
function transcripts(): string[] {
  return ['claude-code', 'codex', 'swe-agent', 'openai-chat'].flatMap((d) =>
    fs.readdirSync(path.join(FIXTURES, d)).map((f) => path.join(FIXTURES, d, f)),
  );
}

describe('every strategy on every imported real transcript', () => {
  it.each(transcripts().map((f) => [path.relative(FIXTURES, f), f]))('%s', async (_name, file) => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const imported = await importPaths(store, [file], {});
    const tasks = imported.results
      .flatMap((r) => r.tasks)
      .sort((a, b) => b.messages - a.messages)
      .slice(0, 5);
    const config = defaultConfig();
    for (const { uuid } of tasks) {
      for (const name of STRATEGY_NAMES) {
        const task = store.openForMaintenance(uuid);
        try {
          const label = `${name} on ${uuid}`;
          const before = fs.readFileSync(task.messages.currentPath);
          const summarizer = name === 'extractive' ? extractiveSummarizer : model;
          // a small window so that every strategy has work to do
          const steps = buildPipeline(config, WINDOW, [name], {
            'importance-window': { max_messages: 12 },
            'tool-output-trim': { context_budget_tokens: 1000 },
            summarize: { keep_recent_messages: 3, min_to_compress: 1 },
            extractive: { keep_recent_messages: 3, min_to_compress: 1 },
          });
          const options = {
            steps,
            reason: 'manual' as const,
            summarizer,
            contextWindow: WINDOW,
            maxOutputTokens: 1000,
          };
          const requestsBefore = llm.chatRequests().length;
          const dry = await runCompaction(task, { ...options, dryRun: true });
          expect(llm.chatRequests().length, `${label}: a dry run calls no LLM`).toBe(
            requestsBefore,
          );
          expect(
            fs.readFileSync(task.messages.currentPath).equals(before),
            `${label}: a dry run writes nothing`,
          ).toBe(true);

          const run = await runCompaction(task, { ...options, dryRun: false });
          const after = currentLines(task.dir);
          expect(pairProblems(after), label).toEqual([]);
          if (before.toString().startsWith('{"role":"system"'))
            expect(after[0]!.role, label).toBe('system');
          // current.jsonl is exactly the view rebuilt from messages.jsonl and the records
          expect(after, label).toEqual(readView(task.dir).view.map((e) => e.message));
          const step = run.steps[0]!;
          const planned = dry.steps[0]!;
          expect(
            [step.applied, step.replacedSeqs, step.changedSeqs],
            `${label}: dry run and run agree`,
          ).toEqual([planned.applied, planned.replacedSeqs, planned.changedSeqs]);
          if (!step.applied) continue;
          appliedCount.set(name, (appliedCount.get(name) ?? 0) + 1);
          expect(run.tokensAfter, `${label}: tokens go down`).toBeLessThan(run.tokensBefore);
          const record = allRecords(task.dir).find((r) => r.id === step.recordId)!;
          expect(record).toMatchObject({
            strategy: name,
            params: expect.any(Object),
            duration_ms: expect.any(Number),
          });
          expect(record.tokens_after).toBeLessThan(record.tokens_before);
          if (summarizer === model && ['summarize', 'retain-summary', 'condense'].includes(name)) {
            expect(record.llm_usage, label).toMatchObject({ input_tokens: 900, output_tokens: 12 });
          }
          await undoCompaction(task, step.recordId!);
          expect(
            fs.readFileSync(task.messages.currentPath).equals(before),
            `${label}: undo restores current.jsonl byte for byte`,
          ).toBe(true);
        } finally {
          task.close();
        }
      }
    }
    expect(store.listTasks().rows.some((r) => r.compression_count > 0)).toBe(true);
    store.close();
  });
});
