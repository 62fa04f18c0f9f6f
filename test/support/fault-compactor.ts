/**
 * A process that compacts a paused task and is killed (the compaction fault test). Either
 * as `cwb compact` does it (maintenance: the task stays paused) or as a task process does
 * it (the task is resumed first, so a kill leaves it interrupted). Offline strategies only,
 * so no LLM is involved. Prints `start` before the compaction and `done` after it, then
 * waits to be killed. With CWB_FAULT_CAPTURE_DIR / CWB_FAULT_BLOCK_BEFORE_RENAME set,
 * test/support/fault-hooks.ts captures both versions of current.jsonl and/or freezes the
 * process between the temp write and the rename.
 * Usage: fault-compactor.ts ROOT UUID maintenance|running STRATEGY[,STRATEGY...]
 */
import './fault-hooks';
import { say } from './child-io';
import { defaultConfig } from '../../src/core/config/app-config';
import type { StrategyName } from '../../src/core/config/strategy-names';
import { ContextStore } from '../../src/core/store/context-store';
import { runCompaction } from '../../src/core/compaction/compaction-engine';
import { buildPipeline } from '../../src/core/compaction/pipeline';
import { extractiveSummarizer } from '../../src/core/compaction/extractive-digest';
import { compactTask, contextWindowOf } from '../../src/core/compaction/task-compaction';

const [root, uuid, mode, strategies] = process.argv.slice(2);
const pipeline = strategies!.split(',') as StrategyName[];
const config = defaultConfig();
const store = ContextStore.open(root!);
say('start');
let applied: number;
if (mode === 'maintenance') {
  const outcome = await compactTask(store, config, uuid!, {
    dryRun: false,
    offline: true,
    pipeline,
  });
  applied = outcome.kind === 'ran' ? outcome.run.steps.filter((s) => s.applied).length : 0;
} else {
  const task = store.resumeTask(uuid!);
  const window = contextWindowOf(task.row(), config);
  const run = await runCompaction(task, {
    steps: buildPipeline(config, window.contextWindow, pipeline),
    reason: 'manual',
    dryRun: false,
    summarizer: extractiveSummarizer,
    ...window,
  });
  applied = run.steps.filter((s) => s.applied).length;
}
say(`done ${applied}`);
setInterval(() => undefined, 1000);
