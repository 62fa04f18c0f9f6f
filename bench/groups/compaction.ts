import fs from 'node:fs';
import path from 'node:path';
import type { StrategyName } from '../../src/shared/strategy-names';
import { ContextStore } from '../../src/core/store/context-store';
import { parseConfigText } from '../../src/core/config/load-config';
import { runCompaction } from '../../src/core/compaction/compaction-engine';
import { buildPipeline } from '../../src/core/compaction/pipeline';
import { extractiveSummarizer } from '../../src/core/compaction/extractive-digest';
import { fillPrompt, formatEntries } from '../../src/core/compaction/format-messages';
import { undoCompaction } from '../../src/core/compaction/undo';
import type { Summarizer } from '../../src/core/compaction/strategy';
import { sharedBigTask } from '../lib/big-task';
import { count, mb, ms, ratio } from '../lib/format';
import { median, pairedRatio } from '../lib/stats';
import { row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

const CONTEXT_WINDOW = 128_000;
const MAX_OUTPUT_TOKENS = 16_384;

const FIXED_SUMMARY =
  'The agent refactored the request pipeline (request-file.ts, line-reader.ts), ran the tests twice, fixed the flaky parser test by awaiting the stream, and still has to update docs/storage.md.';

/**
 * The LLM summarizer without the LLM: it formats the prompt exactly as llmSummarizer does
 * (so the cost of building a prompt from a 100 MB context is measured) and answers a fixed
 * text instead of calling a model.
 */
const fakeLlm: Summarizer = {
  kind: 'llm',
  summarize: (entries, prompt) => {
    const text = fillPrompt(prompt, formatEntries(entries));
    return Promise.resolve(text.length > 0 ? FIXED_SUMMARY : '');
  },
  complete: (prompt) =>
    Promise.resolve(
      prompt.length > 0
        ? `<retain>request-file.ts, parser.test.ts</retain>\n<summary>${FIXED_SUMMARY}</summary>`
        : '',
    ),
};

const STRATEGIES: { name: StrategyName; llm: boolean }[] = [
  { name: 'extractive', llm: false },
  { name: 'tool-output-trim', llm: false },
  { name: 'importance-window', llm: false },
  { name: 'truncate', llm: false },
  { name: 'summarize', llm: true },
  { name: 'condense', llm: true },
  { name: 'retain-summary', llm: true },
];

function fileCount(dir: string): number {
  return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
}

/** The floor any strategy pays: reading current.jsonl and parsing every line. */
function readAndParse(file: string): number {
  const started = performance.now();
  let n = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line) {
      JSON.parse(line);
      n++;
    }
  }
  if (n === 0) throw new Error('empty current.jsonl');
  return performance.now() - started;
}

export const compactionGroup: BenchGroup = {
  id: 'compaction',
  title: 'Compaction without the LLM, per strategy, on a 100 MB context',
  about: `Each strategy runs alone through \`runCompaction\` (reason \`manual\`, not a dry run: it writes its messages and record and rebuilds current.jsonl atomically) on a copy of the shared task, whose current.jsonl is ~100 MB of agent turns and tool outputs; a ${count(CONTEXT_WINDOW)}-token window, ${count(MAX_OUTPUT_TOKENS)} output tokens, every other parameter at its default. Strategies that need a model (summarize, condense, retain-summary) get a local summarizer that builds the prompt from the messages as the real one does and answers a fixed text. After each run the compaction is undone with \`undoCompaction\` (which rebuilds current.jsonl from messages.jsonl), so every run starts from the same context; the undo is timed too. The baseline is reading current.jsonl and parsing every line with \`JSON.parse\`, the least any strategy has to do.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const shared = await sharedBigTask(ctx);
    const root = path.join(ctx.tmp, 'contexts');
    fs.cpSync(shared.root, root, { recursive: true });
    const config = parseConfigText('', { file: 'bench defaults', baseDir: ctx.tmp, env: {} });
    const store = ContextStore.open(root, { recover: false });
    const taskDir = store.taskPath(store.requireTask(shared.uuid));
    const current = path.join(taskDir, 'current.jsonl');
    const outputs = path.join(taskDir, 'tool_outputs');
    for (const strategy of STRATEGIES) {
      const times: number[] = [];
      const undos: number[] = [];
      const floors: number[] = [];
      let before = 0;
      let after = 0;
      let why = '';
      const saved: number[] = [];
      for (let i = 0; i < ctx.runs; i++) {
        floors.push(readAndParse(current));
        const outputsBefore = fileCount(outputs);
        const task = store.openForMaintenance(shared.uuid);
        try {
          const started = performance.now();
          const run = await runCompaction(task, {
            steps: buildPipeline(config, CONTEXT_WINDOW, [strategy.name]),
            reason: 'manual',
            dryRun: false,
            summarizer: strategy.llm ? fakeLlm : extractiveSummarizer,
            contextWindow: CONTEXT_WINDOW,
            maxOutputTokens: MAX_OUTPUT_TOKENS,
          });
          times.push(performance.now() - started);
          saved.push(fileCount(outputs) - outputsBefore);
          before = run.tokensBefore;
          after = run.tokensAfter;
          const step = run.steps[0];
          if (!step?.applied || step.recordId === undefined) {
            why = step?.reason ?? 'no step ran';
            continue;
          }
          const undoStarted = performance.now();
          await undoCompaction(task, step.recordId, 'bench');
          undos.push(performance.now() - undoStarted);
        } finally {
          task.close();
        }
      }
      const t = median(times);
      rows.push(
        row(
          `${strategy.name}${strategy.llm ? ' (fixed-text summarizer)' : ''}: ${count(before)} → ${count(after)} tokens${why ? ` (not applied: ${why})` : ''}${median(saved) > 0 ? `; ${count(median(saved))} full outputs saved to tool_outputs/ per run` : ''}`,
          ms(t),
          `${ms(median(floors))} (read + parse)`,
          ratio(pairedRatio(floors, times)),
        ),
      );
      if (saved.length > 1 && saved[0]! > 0) {
        const again = saved.slice(1).every((n) => n > 0);
        notes.push(
          `${strategy.name} saved ${saved.map((n) => count(n)).join(', ')} files to tool_outputs/ in its ${saved.length} runs: every output it trims is a copy of a message messages.jsonl keeps, written at once and made durable together before the record naming it is appended (\`ToolOutputStore.saveCopy\` + \`sync\`: the files' fsyncs run 32 at a time, then one of the folder)${again ? ', and after an undo the same outputs are saved again under new refs, since the stored messages do not carry the refs of an undone compaction' : ''}.`,
        );
      }
      if (undos.length > 0) {
        rows.push(row(`undo of ${strategy.name} (current.jsonl rebuilt)`, ms(median(undos))));
      }
      ctx.log(`  ${strategy.name}: ${ms(t)}${undos.length ? `, undo ${ms(median(undos))}` : ''}`);
    }
    store.close();
    notes.push(
      `The context: ${mb(shared.currentBytes)} current.jsonl, ${count(shared.messages)} messages. A strategy reads the whole effective context into memory (\`readView\`, bounded in practice by the model's window — here it is ~200× larger than a 128k window), plans, stores what it created and writes the new current.jsonl; the ratio is the baseline's time ÷ the strategy's (1× = as fast as reading and parsing the file).`,
      'Before/after token counts are seed estimates of the whole view. Each undo rebuilds the full ~100 MB current.jsonl from messages.jsonl through the offset index.',
    );
    return { rows, notes };
  },
};
