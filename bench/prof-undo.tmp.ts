import path from 'node:path';
import { buildBigTask } from './lib/big-task';
import { ContextStore } from '../src/core/store/context-store';
import { runCompaction } from '../src/core/compaction/compaction-engine';
import { undoCompaction } from '../src/core/compaction/undo';
import { buildPipeline } from '../src/core/compaction/pipeline';
import { parseConfigText } from '../src/core/config/load-config';
import { extractiveSummarizer } from '../src/core/compaction/extractive-digest';

const tmp = '/tmp/prof';
const big = await buildBigTask(tmp, 100 * 2 ** 20, path.resolve('.'));
const config = parseConfigText('', { file: 'x', baseDir: tmp, env: {} });
const store = ContextStore.open(big.root, { recover: false });
for (let i = 0; i < 2; i++) {
  const task = store.openForMaintenance(big.uuid);
  const run = await runCompaction(task, {
    steps: buildPipeline(config, 128000, ['truncate']),
    reason: 'manual',
    dryRun: false,
    summarizer: extractiveSummarizer,
    contextWindow: 128000,
    maxOutputTokens: 16384,
  });
  const t = performance.now();
  await undoCompaction(task, run.steps[0]!.recordId!, 'bench');
  console.log('undo ms', performance.now() - t);
  task.close();
}
