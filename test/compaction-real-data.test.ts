import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importPaths } from '../src/core/import';
import { defaultConfig } from '../src/core/config/app-config';
import { STRATEGY_NAMES } from '../src/core/config/strategy-names';
import { buildPipeline } from '../src/core/compaction/pipeline';
import { runCompaction } from '../src/core/compaction/compaction-engine';
import { undoCompaction } from '../src/core/compaction/undo';
import { readView } from '../src/core/compaction/read-view';
import { extractiveSummarizer } from '../src/core/compaction/extractive-digest';
import type { Summarizer } from '../src/core/compaction/strategy';
import type { CurrentMessage } from '../src/shared/task-types';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'real');

/** A stand-in model: a short deterministic summary, with retain/summary tags when asked. */
const fakeModel: Summarizer = {
  kind: 'llm',
  summarize: async (entries) => `Summary of ${entries.length} messages.`,
  complete: async (prompt) =>
    prompt.includes('<retain>')
      ? '<retain>ref ids</retain><summary>What happened.</summary>'
      : 'What happened.',
};

function currentLines(dir: string): CurrentMessage[] {
  return fs
    .readFileSync(path.join(dir, 'current.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CurrentMessage);
}

/** Every tool call has exactly one result right after its message group, and every result has a call. */
function pairProblems(messages: CurrentMessage[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!m.tool_call_id || !open.has(m.tool_call_id))
        problems.push(`result ${m.tool_call_id} at ${i} has no call`);
      else open.delete(m.tool_call_id);
    } else {
      if (open.size) problems.push(`calls ${[...open.keys()].join(',')} unanswered before ${i}`);
      open.clear();
      for (const c of m.tool_calls ?? []) open.set(c.id, i);
    }
  });
  if (open.size) problems.push(`calls ${[...open.keys()].join(',')} unanswered at the end`);
  return problems;
}

describe('every strategy on imported real transcripts', () => {
  const files = ['claude-code', 'codex', 'swe-agent'].flatMap((d) =>
    fs.readdirSync(path.join(FIXTURES, d)).map((f) => path.join(FIXTURES, d, f)),
  );

  it.each(files.map((f) => [path.relative(FIXTURES, f), f]))('%s', async (_name, file) => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const imported = await importPaths(store, [file], {});
    const uuid = imported.results
      .flatMap((r) => r.tasks)
      .sort((a, b) => b.messages - a.messages)[0]!.uuid;
    const config = defaultConfig();
    for (const name of STRATEGY_NAMES) {
      const task = store.openForMaintenance(uuid);
      try {
        const before = fs.readFileSync(task.messages.currentPath);
        const summarizer = name === 'extractive' ? extractiveSummarizer : fakeModel;
        // a small window so that every strategy has something to do
        const steps = buildPipeline(config, 8000, [name], {
          'importance-window': { max_messages: 12 },
          'tool-output-trim': { context_budget_tokens: 1000 },
        });
        const run = await runCompaction(task, {
          steps,
          reason: 'manual',
          dryRun: false,
          summarizer,
          contextWindow: 8000,
          maxOutputTokens: 1000,
        });
        const after = currentLines(task.dir);
        expect(pairProblems(after), name).toEqual([]);
        if (before.toString().startsWith('{"role":"system"'))
          expect(after[0]!.role, name).toBe('system');
        // current.jsonl is exactly the view rebuilt from messages.jsonl and the records
        expect(after, name).toEqual(readView(task.dir).view.map((e) => e.message));
        const applied = run.steps.filter((s) => s.applied);
        if (applied.length) {
          expect(run.tokensAfter, name).toBeLessThanOrEqual(run.tokensBefore);
          await undoCompaction(task, applied[0]!.recordId!);
          expect(
            fs.readFileSync(task.messages.currentPath).equals(before),
            `${name}: undo restores current.jsonl byte for byte`,
          ).toBe(true);
        }
      } finally {
        task.close();
      }
    }
    store.close();
  });
});
