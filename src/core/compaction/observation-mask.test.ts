import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolOutputStore } from '../store/tool-output-store';
import { useTempDir } from '../../../test/support/temp-dir';
import { observationMask, OBSERVATION_MASK_DEFAULTS } from './observation-mask';
import { PENDING_REF, trimmedPlaceholder } from './tool-output-trim';
import { ViewBuilder, pairProblems, strategyContext } from './test-support/records';

const tempDir = useTempDir('cwb-mask-');

function session(): ViewBuilder {
  const b = new ViewBuilder();
  b.system('You are a coding agent.');
  b.user('Make the parser accept tabs.');
  for (let i = 0; i < 5; i++) {
    b.assistant(`Step ${i}: reading src/parser/part${i}.ts next.`);
    b.call(
      'read_file',
      { path: `src/parser/part${i}.ts` },
      `export const part${i} = 1;\n`.repeat(80),
    );
  }
  return b;
}

describe('observation-mask', () => {
  it('replaces outputs older than the newest turns by their refs and keeps every call and message', async () => {
    const b = session();
    const store = new ToolOutputStore(path.join(tempDir(), 'tool_outputs'));
    const result = await observationMask.run(strategyContext(b.entries, store), {
      ...OBSERVATION_MASK_DEFAULTS,
      keep_turns: 4,
    });
    if (!result.applied) throw new Error(result.reason);
    const tools = result.view.filter((e) => e.message.role === 'tool');
    // Four turns back is the 3rd read's call: reads 0–2 are older, reads 3 and 4 stay whole.
    const masked = tools.filter((e) => e.message.content!.startsWith('[tool output trimmed;'));
    expect(masked).toHaveLength(3);
    expect(tools.at(-1)!.message.content).toBe(b.entries.at(-1)!.message.content);
    for (const e of masked) {
      const ref = /ref=([\w-]+)/.exec(e.message.content!)![1]!;
      expect(e.message.content).toBe(trimmedPlaceholder(ref));
      // The full output can be read back under its ref.
      expect(fs.readFileSync(path.join(store.dir, `${ref}.txt`), 'utf8')).toBe(e.record!.content);
    }
    // Everything else is the same message: calls with their arguments, the agent's text.
    const others = (v: typeof b.entries) => v.filter((e) => e.message.role !== 'tool');
    expect(others(result.view).map((e) => e.message)).toEqual(
      others(b.entries).map((e) => e.message),
    );
    expect(pairProblems(result.view)).toEqual([]);
    expect(result.summary).toMatch(/^Masked 3 tool outputs older than the newest 4 turns/);
  });

  it('writes nothing in a dry run and says why it does nothing', async () => {
    const b = session();
    const store = new ToolOutputStore(path.join(tempDir(), 'tool_outputs'));
    const dry = await observationMask.run(strategyContext(b.entries, store, { dryRun: true }), {
      ...OBSERVATION_MASK_DEFAULTS,
      keep_turns: 2,
    });
    if (!dry.applied) throw new Error(dry.reason);
    expect(dry.view.some((e) => e.message.content === trimmedPlaceholder(PENDING_REF))).toBe(true);
    expect(fs.existsSync(store.dir) ? fs.readdirSync(store.dir) : []).toEqual([]);
    const none = await observationMask.run(strategyContext(b.entries, store), {
      ...OBSERVATION_MASK_DEFAULTS,
      keep_turns: 50,
    });
    expect(none).toEqual({
      applied: false,
      reason: 'No tool output older than the newest 50 turns is left to mask.',
    });
  });
});
