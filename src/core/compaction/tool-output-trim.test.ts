import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolOutputStore } from '../store/tool-output-store';
import { useTempDir } from '../../../test/support/temp-dir';
import type { ContextStats, StrategyResult } from './strategy';
import {
  PENDING_REF,
  TOOL_OUTPUT_TRIM_DEFAULTS,
  collectUnreferencedRefs,
  contextView,
  refsInText,
  toolOutputBudget,
  toolOutputTrim,
  trimmedPlaceholder,
  type ToolOutputTrimParams,
} from './tool-output-trim';
import { ViewBuilder, pairProblems, strategyContext } from './test-support/records';
import type { ViewEntry } from './view';

const tempDir = useTempDir('cwb-trim-');

const PLACEHOLDER = /^\[tool output trimmed; ref=([A-Za-z0-9_-]+|\(pending\))\]$/;

/** An output of `lines` lines of 79 characters plus a newline: 20 tokens a line. */
function output(tag: string, lines = 200): string {
  return Array.from({ length: lines }, (_, i) =>
    `${tag} line ${String(i).padStart(4, '0')} `.padEnd(79, '.'),
  ).join('\n');
}

function sixOutputs(): { b: ViewBuilder; outputs: string[] } {
  const b = new ViewBuilder();
  b.system('You are a coding agent.');
  b.user('Look at the logs.');
  const outputs: string[] = [];
  for (let i = 0; i < 6; i++) {
    const text = output(`out${i}`, 50);
    outputs.push(text);
    b.call('run_command', { command: `cat log${i}` }, text);
  }
  b.assistant('The logs show nothing unusual.');
  return { b, outputs };
}

function params(overrides: Partial<ToolOutputTrimParams> = {}): ToolOutputTrimParams {
  return { ...TOOL_OUTPUT_TRIM_DEFAULTS, ...overrides };
}

function applied(result: StrategyResult): Extract<StrategyResult, { applied: true }> {
  if (!result.applied) throw new Error(`not applied: ${result.reason}`);
  return result;
}

function toolEntries(view: readonly ViewEntry[]): ViewEntry[] {
  return view.filter((e) => e.message.role === 'tool');
}

function readAll(store: ToolOutputStore, ref: string): string {
  return store.readLines(ref, 0, 1_000_000).lines.join('\n');
}

function files(store: ToolOutputStore): string[] {
  return fs.existsSync(store.dir) ? fs.readdirSync(store.dir) : [];
}

describe('toolOutputBudget', () => {
  it('uses the given budget, else clamp(context window × 0.25, 20 000, 60 000)', () => {
    expect(toolOutputBudget(128_000, { context_budget_tokens: 5000 })).toBe(5000);
    expect(toolOutputBudget(8_000, { context_budget_tokens: null })).toBe(20_000);
    expect(toolOutputBudget(0, { context_budget_tokens: null })).toBe(20_000);
    expect(toolOutputBudget(128_000, { context_budget_tokens: null })).toBe(32_000);
    expect(toolOutputBudget(200_000, { context_budget_tokens: null })).toBe(50_000);
    expect(toolOutputBudget(1_000_000, { context_budget_tokens: null })).toBe(60_000);
  });
});

describe('toolOutputTrim.needed', () => {
  const stats = (currentTokens: number, lastUsageTokens?: number): ContextStats => ({
    currentTokens,
    lastUsageTokens,
    messageCount: 10,
    contextWindow: 128_000,
    maxOutputTokens: 4096,
  });

  it('is true when the context is over the budget (provider usage first)', () => {
    expect(toolOutputTrim.needed(stats(31_000), params())).toBe(false);
    expect(toolOutputTrim.needed(stats(33_000), params())).toBe(true);
    expect(toolOutputTrim.needed(stats(33_000, 1_000), params())).toBe(false);
    expect(toolOutputTrim.needed(stats(1_000, 33_000), params())).toBe(true);
    expect(toolOutputTrim.needed(stats(1_500), params({ context_budget_tokens: 1_000 }))).toBe(
      true,
    );
  });
});

describe('toolOutputTrim.run', () => {
  it('replaces the oldest outputs first until under budget, each behind a ref with the full output', async () => {
    const store = new ToolOutputStore(tempDir());
    const { b, outputs } = sixOutputs();
    const before = b.entries.map((e) => e.record!.content);
    // 6 outputs of 1000 tokens; a budget of 2500 leaves room for the two newest
    const result = applied(
      await toolOutputTrim.run(
        strategyContext(b.entries, store),
        params({ context_budget_tokens: 2500 }),
      ),
    );
    const tools = toolEntries(result.view);
    expect(tools.map((e) => PLACEHOLDER.test(e.message.content ?? ''))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    for (let i = 0; i < 4; i++) {
      const ref = PLACEHOLDER.exec(tools[i]!.message.content ?? '')![1]!;
      expect(ref).toMatch(/^trim_[0-9a-f]{12}$/);
      expect(readAll(store, ref)).toBe(outputs[i]);
      // a placeholder still points at its stored message, shown with other content
      expect(tools[i]!.item).toEqual({
        seq: tools[i]!.record!.seq,
        content: tools[i]!.message.content,
      });
    }
    expect(files(store)).toHaveLength(4);
    // untouched entries are the very same objects; the stored records did not change
    b.entries.forEach((e, i) => {
      if (!result.view.includes(e)) expect(e.message.role).toBe('tool');
      expect(e.record!.content).toBe(before[i]);
    });
    expect(tools[4]).toBe(b.entries[11]);
    expect(tools[5]).toBe(b.entries[13]);
    expect(result.view).toHaveLength(b.entries.length);
    expect(result.view[0]!.message.role).toBe('system');
    expect(pairProblems(result.view)).toEqual([]);
    const toolTokens = tools.reduce((n, e) => n + e.tokens, 0);
    expect(toolTokens).toBeLessThanOrEqual(2500);
    expect(result.summary).toMatch(
      /^Trimmed 4 tool outputs \(3,996 → \d+ tokens; 4 replaced by placeholders\); full outputs behind refs trim_[0-9a-f]{12}, trim_[0-9a-f]{12}, trim_[0-9a-f]{12} and 1 more\. Tool outputs now use 2,\d{3} tokens \(budget 2,500\)\.$/,
    );
  });

  it('saves nothing in a dry run and plans the same with pending refs', async () => {
    const dir = tempDir();
    const store = new ToolOutputStore(dir);
    const { b } = sixOutputs();
    const p = params({ context_budget_tokens: 2500 });
    const dry = applied(
      await toolOutputTrim.run(strategyContext(b.entries, store, { dryRun: true }), p),
    );
    expect(fs.existsSync(store.dir)).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
    const pending = toolEntries(dry.view).filter(
      (e) => e.message.content === trimmedPlaceholder(PENDING_REF),
    );
    expect(pending).toHaveLength(4);
    expect(dry.summary).toContain(`4 to be saved ${PENDING_REF}`);

    const real = applied(await toolOutputTrim.run(strategyContext(b.entries, store), p));
    const normalize = (view: readonly ViewEntry[]) =>
      view.map((e) =>
        (e.message.content ?? '').replace(/ref=trim_[0-9a-f]{12}/, `ref=${PENDING_REF}`),
      );
    expect(normalize(real.view)).toEqual(normalize(dry.view));
  });

  it('reuses the ref a stored output already has, also in a dry run', async () => {
    const store = new ToolOutputStore(tempDir());
    const full = output('full', 400);
    const { ref } = store.save(full, 'run_command');
    const b = new ViewBuilder();
    b.system('sys');
    b.user('go');
    b.call(
      'run_command',
      { command: 'build' },
      `${full.slice(0, 400)}\n[full output: ref=${ref}; read it with tool_output_cache]`,
      {
        output_ref: ref,
      },
    );
    b.call('run_command', { command: 'again' }, output('new', 10));
    for (const dryRun of [true, false]) {
      const result = applied(
        await toolOutputTrim.run(
          strategyContext(b.entries, store, { dryRun }),
          params({ context_budget_tokens: 50 }),
        ),
      );
      expect(toolEntries(result.view)[0]!.message.content).toBe(trimmedPlaceholder(ref));
    }
    expect(files(store)).toEqual([`${ref}.txt`]);
    expect(readAll(store, ref)).toBe(full);
  });

  it('saves the stored content when the recorded ref is gone', async () => {
    const store = new ToolOutputStore(tempDir());
    const b = new ViewBuilder();
    b.system('sys');
    const old = output('old', 20);
    b.call('run_command', {}, old, { output_ref: 'run_command_000000000000' });
    b.call('run_command', {}, output('new', 20));
    const result = applied(
      await toolOutputTrim.run(
        strategyContext(b.entries, store),
        params({ context_budget_tokens: 10 }),
      ),
    );
    const ref = PLACEHOLDER.exec(toolEntries(result.view)[0]!.message.content ?? '')![1]!;
    expect(ref).not.toBe('run_command_000000000000');
    expect(readAll(store, ref)).toBe(old);
  });

  it('never replaces an output that is no bigger than its placeholder', async () => {
    const store = new ToolOutputStore(tempDir());
    const b = new ViewBuilder();
    b.system('sys');
    b.call('think', {}, '');
    b.call('calculate', {}, '12.0');
    b.call('read_file', {}, output('a', 10));
    b.call('read_file', {}, output('b', 10));
    const result = applied(
      await toolOutputTrim.run(
        strategyContext(b.entries, store),
        params({ context_budget_tokens: 10 }),
      ),
    );
    expect(toolEntries(result.view).map((e) => PLACEHOLDER.test(e.message.content ?? ''))).toEqual([
      false,
      false,
      true,
      false,
    ]);
    expect(result.summary).toContain('tokens; 1 replaced by placeholder)');
  });

  it('keeps the newest output even when it alone is over the budget', async () => {
    const store = new ToolOutputStore(tempDir());
    const b = new ViewBuilder();
    b.system('sys');
    b.call('read_file', {}, output('a', 10));
    b.call('read_file', {}, output('b', 100));
    const result = applied(
      await toolOutputTrim.run(
        strategyContext(b.entries, store),
        params({ context_budget_tokens: 100 }),
      ),
    );
    const tools = toolEntries(result.view);
    expect(tools[0]!.message.content).toMatch(PLACEHOLDER);
    expect(tools[1]).toBe(b.entries[4]);
    const again = await toolOutputTrim.run(
      strategyContext(result.view, store),
      params({ context_budget_tokens: 100 }),
    );
    expect(again).toEqual({
      applied: false,
      reason: expect.stringMatching(
        /^Tool outputs use 2,\d{3} tokens, over the 100-token budget, but the only one not yet trimmed is the newest, which is kept\.$/,
      ) as unknown,
    });
  });

  it('shows long outputs through an in-context view: lines and size cut, the rest behind a ref', async () => {
    const store = new ToolOutputStore(tempDir());
    const longLine = 'L'.repeat(10_000);
    const full = `${longLine}\n${output('big', 2000)}`; // about 160 KB
    const b = new ViewBuilder();
    b.system('sys');
    b.call('run_command', { command: 'dump' }, full);
    b.assistant('ok');
    const p = params(); // default limits, budget far away
    const result = applied(await toolOutputTrim.run(strategyContext(b.entries, store), p));
    const shown = toolEntries(result.view)[0]!.message.content!;
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(p.max_message_bytes);
    for (const line of shown.split('\n'))
      expect(line.length).toBeLessThanOrEqual(p.max_line_length);
    expect(shown.startsWith(`${'L'.repeat(100)}`)).toBe(true);
    expect(shown.split('\n')[0]).toMatch(/… \[line cut: 10000 chars\]$/);
    const note =
      /\[output cut at [\d,]+ of [\d,]+ bytes; full output: ref=(trim_[0-9a-f]{12}); read it with tool_output_cache\]$/.exec(
        shown,
      );
    expect(note).not.toBeNull();
    expect(readAll(store, note![1]!)).toBe(full);
    expect(result.summary).toMatch(
      /^Trimmed 1 tool output \([\d,]+ → [\d,]+ tokens; 1 shortened\)/,
    );

    // the view of a view is itself: a second run has nothing to do and saves nothing more
    const again = await toolOutputTrim.run(strategyContext(result.view, store), p);
    expect(again.applied).toBe(false);
    expect(files(store)).toHaveLength(1);
  });

  it('reuses the ref of an earlier view when that output is later replaced', async () => {
    const store = new ToolOutputStore(tempDir());
    const b = new ViewBuilder();
    b.system('sys');
    b.call('run_command', {}, 'x'.repeat(5000));
    b.call('run_command', {}, 'y'.repeat(100));
    const first = applied(await toolOutputTrim.run(strategyContext(b.entries, store), params()));
    expect(files(store)).toHaveLength(1);
    const [ref] = refsInText(toolEntries(first.view)[0]!.message.content!);
    const second = applied(
      await toolOutputTrim.run(
        strategyContext(first.view, store),
        params({ context_budget_tokens: 100 }),
      ),
    );
    expect(toolEntries(second.view)[0]!.message.content).toBe(trimmedPlaceholder(ref!));
    expect(files(store)).toHaveLength(1);
  });

  it('leaves trimmed outputs alone and says when there is nothing to do', async () => {
    const store = new ToolOutputStore(tempDir());
    const { b } = sixOutputs();
    const p = params({ context_budget_tokens: 2500 });
    const first = applied(await toolOutputTrim.run(strategyContext(b.entries, store), p));
    const second = await toolOutputTrim.run(strategyContext(first.view, store), p);
    expect(second).toEqual({
      applied: false,
      reason: expect.stringMatching(
        /^Tool outputs use 2,\d{3} tokens, within the 2,500-token budget, and none is over 51,200 bytes or has lines over 2,000 characters\.$/,
      ) as unknown,
    });
    expect(files(store)).toHaveLength(4);

    const chat = new ViewBuilder();
    chat.system('sys');
    chat.user('hi');
    chat.assistant('hello');
    expect(await toolOutputTrim.run(strategyContext(chat.entries, store), p)).toEqual({
      applied: false,
      reason: 'The context has no tool outputs.',
    });
  });
});

describe('contextView', () => {
  it('changes nothing within the limits', () => {
    expect(contextView('a\nb', { max_message_bytes: 10, max_line_length: 5 })).toEqual({
      text: 'a\nb',
      linesCut: 0,
      bytesCut: false,
      bytes: 3,
    });
  });

  it('cuts bytes on a line break and never inside a UTF-8 character', () => {
    const text = '日本語'.repeat(1000); // 9000 bytes, no line break
    const view = contextView(text, { max_message_bytes: 1000, max_line_length: 100_000 });
    expect(view.bytesCut).toBe(true);
    expect(view.text).toBe(text.slice(0, 248)); // 744 bytes: 1000 less the room for the note
    const odd = contextView(text, { max_message_bytes: 1001, max_line_length: 100_000 });
    expect(odd.text).toBe(text.slice(0, 248));
    const lines = contextView(`${'a'.repeat(500)}\n${'b'.repeat(2000)}`, {
      max_message_bytes: 1000,
      max_line_length: 100_000,
    });
    expect(lines.text).toBe(`${'a'.repeat(500)}\n`);
  });
});

describe('collectUnreferencedRefs', () => {
  it('lists refs in tool_outputs/ that are not in use, without deleting them', () => {
    const store = new ToolOutputStore(tempDir());
    expect(collectUnreferencedRefs(new Set(), store)).toEqual([]);
    const a = store.save('a', 'run_command').ref;
    const b = store.save('b', 'trim').ref;
    const c = store.save('c', 'trim').ref;
    fs.writeFileSync(path.join(store.dir, `.${a}.txt.tmp-123`), 'partial');
    expect(collectUnreferencedRefs(new Set([b]), store)).toEqual([a, c].sort());
    expect(files(store)).toHaveLength(4);
  });

  it('finds refs in placeholders and notes', () => {
    expect(
      refsInText(`${trimmedPlaceholder('trim_1')}\n[full output: ref=run_command_2; read it]`),
    ).toEqual(['trim_1', 'run_command_2']);
  });
});
