import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { useTempDir } from '../../../test/support/temp-dir';
import { runCompaction } from './compaction-engine';
import { toolOutputTrim } from './tool-output-trim';
import { undoCompaction } from './undo';
import { collectToolOutputs } from './tool-output-gc';
import { extractiveSummarizer } from './extractive-digest';
import type { Strategy } from './strategy';

const tempDir = useTempDir();

describe('collectToolOutputs', () => {
  it('keeps refs a compaction in effect shows, and collects them once that compaction is undone', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const task = store.createTask();
    task.addMessage({ role: 'system', content: 'agent' });
    for (let i = 1; i <= 4; i++) {
      task.addMessage({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'grep', arguments: '{}' } },
        ],
      });
      task.addMessage({
        role: 'tool',
        content: `match ${i}\n`.repeat(3000),
        tool_call_id: `c${i}`,
        tool_name: 'grep',
      });
    }
    const stray = task.toolOutputs.save('nobody points here', 'old');
    const run = await runCompaction(task, {
      steps: [
        {
          strategy: toolOutputTrim as Strategy<never>,
          params: { context_budget_tokens: 1000, max_message_bytes: 51200, max_line_length: 2000 },
        },
      ],
      reason: 'manual',
      dryRun: false,
      summarizer: extractiveSummarizer,
      contextWindow: 100_000,
      maxOutputTokens: 1000,
    });
    expect(run.steps[0]!.applied).toBe(true);
    expect(collectToolOutputs(task.dir, task.toolOutputs, { dryRun: true })).toEqual([stray.ref]);
    expect(collectToolOutputs(task.dir, task.toolOutputs, { dryRun: false })).toEqual([stray.ref]);
    expect(task.toolOutputs.exists(stray.ref)).toBe(false);

    await undoCompaction(task, run.steps[0]!.recordId!);
    const collected = collectToolOutputs(task.dir, task.toolOutputs, { dryRun: false });
    expect(collected.length).toBeGreaterThan(0);
    for (const ref of collected) expect(task.toolOutputs.exists(ref)).toBe(false);
    task.close();
    store.close();
  });
});
