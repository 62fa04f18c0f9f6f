import { describe, expect, it } from 'vitest';
import { TRUNCATE_DEFAULTS, allowedTokens, truncate, truncateView } from './truncate';
import type { ContextStats } from './strategy';
import { entrySeq } from './view';
import {
  ViewBuilder,
  fakeSummarizer,
  pairsIntact,
  strategyContext,
} from './test-support/synthetic-view';

/** System + first user message + `pairs` user/assistant exchanges. */
function chat(pairs: number): ViewBuilder {
  const b = new ViewBuilder()
    .system('You are a coding agent.')
    .user('Fix the failing test in src/a.ts.');
  for (let i = 1; i <= pairs; i++) b.assistant(`Answer ${i}.`).user(`Follow-up ${i}.`);
  return b;
}

function stats(tokens: number, overrides: Partial<ContextStats> = {}): ContextStats {
  return {
    currentTokens: tokens,
    lastUsageTokens: undefined,
    messageCount: 10,
    contextWindow: 100_000,
    maxOutputTokens: 4_000,
    ...overrides,
  };
}

describe('truncateView', () => {
  it('keeps the system prompt and the first message, hides an even count after it, and leaves a marker there', () => {
    const view = chat(5).build(); // system + 11 messages: n = 11, floor(10 × 0.5) = 5 → 4
    const result = truncateView(view, 0.5);
    if (!result.applied) throw new Error(result.reason);
    expect(result.view[0]!.message.role).toBe('system');
    expect(entrySeq(result.view[1]!)).toBe(2); // the first non-system message
    const marker = result.view[2]!;
    expect(marker.create).toBe('truncation-marker');
    expect(marker.message.role).toBe('user');
    expect(marker.message.content).toBe(
      '[4 earlier messages hidden to fit the context window; they are kept and can be restored]',
    );
    const kept = result.view.slice(3).map(entrySeq);
    expect(kept).toEqual([7, 8, 9, 10, 11, 12]);
    expect(result.view).toHaveLength(view.length - 4 + 1);
    expect(result.summary).toMatch(/^Truncated: 4 messages/);
  });

  it('rounds the share down to an even number (Roo: floor((n − 1) × fraction), minus one if odd)', () => {
    for (const [pairs, fraction, hidden] of [
      [5, 0.5, 4], // n 11 → 5 → 4
      [4, 0.5, 4], // n 9 → 4
      [6, 0.5, 6], // n 13 → 6
      [5, 0.3, 2], // n 11 → 3 → 2
      [5, 0.99, 8], // n 11 → 9 → 8
    ] as const) {
      const result = truncateView(chat(pairs).build(), fraction);
      if (!result.applied) throw new Error(result.reason);
      expect(
        result.view.find((e) => e.create)?.message.content,
        `${pairs} pairs, ${fraction}`,
      ).toContain(`[${hidden} earlier`);
    }
  });

  it('never separates a tool call from its results, and stays even', () => {
    // n = 11; the even target (4) would leave the results of call 2 without their call.
    const b = new ViewBuilder().system('sys').user('Task: fix it.');
    b.assistant('Looking around.'); // 1
    b.user('ok'); // 2
    const [c1, c2] = b.calls(
      'Reading two files.',
      { name: 'read_file', args: { path: 'a.ts' } },
      { name: 'read_file', args: { path: 'b.ts' } },
    ); // 3
    b.result(c1!, 'a'); // 4
    b.result(c2!, 'b'); // 5
    b.assistant('Done reading.'); // 6
    b.user('go on'); // 7
    b.tool('run_command', { command: 'npm test' }, 'ok\nexit code 0'); // 8, 9
    b.assistant('All green.'); // 10
    const view = b.build();
    const result = truncateView(view, 0.5);
    if (!result.applied) throw new Error(result.reason);
    expect(pairsIntact(result.view)).toBe(true);
    const marker = result.view.find((e) => e.create === 'truncation-marker')!;
    const hidden = Number(/\[(\d+) earlier/.exec(marker.message.content ?? '')![1]);
    expect(hidden % 2).toBe(0);
    expect(result.view.length).toBe(view.length - hidden + 1);
    // the kept part starts at a message that is not a tool result
    const afterMarker = result.view[result.view.indexOf(marker) + 1]!;
    expect(afterMarker.message.role).not.toBe('tool');
  });

  it('lets pairs win over parity when no even cut is pair-safe', () => {
    // n = 5: first, then one assistant with three results — the only safe cut hides 4 or nothing;
    // with fraction 0.5 the target is 2, so the nearest safe cut (4, even) is taken.
    const b = new ViewBuilder().user('Task.');
    const calls = b.calls(
      'Three reads.',
      { name: 'read_file', args: { path: 'a' } },
      { name: 'read_file', args: { path: 'b' } },
      { name: 'read_file', args: { path: 'c' } },
    );
    for (const c of calls) b.result(c, 'x');
    b.user('next');
    const evenResult = truncateView(b.build(), 0.5);
    if (!evenResult.applied) throw new Error(evenResult.reason);
    expect(pairsIntact(evenResult.view)).toBe(true);
    expect(evenResult.view.find((e) => e.create)?.message.content).toContain('[4 earlier');

    // Here no even cut is safe: after the first message, one assistant with two results.
    // Target floor(3 × 0.9) = 2 would end between the results; the only safe cut hides all 3.
    const odd = new ViewBuilder().user('Task.');
    const two = odd.calls(
      'Two reads.',
      { name: 'read_file', args: { path: 'a' } },
      { name: 'read_file', args: { path: 'b' } },
    );
    for (const c of two) odd.result(c, 'x');
    const oddResult = truncateView(odd.build(), 0.9);
    if (!oddResult.applied) throw new Error(oddResult.reason);
    expect(pairsIntact(oddResult.view)).toBe(true);
    expect(oddResult.view.find((e) => e.create)?.message.content).toContain('[3 earlier');
  });

  it('keeps the first message together with its own results when it is a call', () => {
    const b = new ViewBuilder().system('sys');
    b.tool('read_file', { path: 'README.md' }, 'readme'); // first non-system message is a call
    for (let i = 0; i < 4; i++) b.user(`u${i}`).assistant(`a${i}`);
    const result = truncateView(b.build(), 0.5);
    if (!result.applied) throw new Error(result.reason);
    expect(pairsIntact(result.view)).toBe(true);
    expect(result.view.slice(1, 3).map((e) => e.message.role)).toEqual(['assistant', 'tool']);
  });

  it('does nothing with too few messages', () => {
    const result = truncateView(
      new ViewBuilder().system('s').user('u').assistant('a').build(),
      0.5,
    );
    expect(result.applied).toBe(false);
    if (!result.applied) expect(result.reason).toMatch(/nothing to hide/);
  });

  it('never modifies the entries it was given', () => {
    const view = chat(5).build();
    const before = JSON.stringify(view);
    truncateView(view, 0.5);
    expect(JSON.stringify(view)).toBe(before);
  });
});

describe('truncate strategy', () => {
  it('triggers above the window less the 10 % buffer and the reply (seed 004)', () => {
    const s = stats(0);
    expect(allowedTokens(s)).toBe(86_000);
    expect(truncate.needed(stats(86_000), TRUNCATE_DEFAULTS)).toBe(false);
    expect(truncate.needed(stats(86_001), TRUNCATE_DEFAULTS)).toBe(true);
    // the provider's figure wins over the estimate
    expect(truncate.needed(stats(10, { lastUsageTokens: 90_000 }), TRUNCATE_DEFAULTS)).toBe(true);
  });

  it('declines an automatic run below its trigger, runs a manual one', async () => {
    const view = chat(5).build();
    const auto = await truncate.run(strategyContext(view, { reason: 'auto' }), TRUNCATE_DEFAULTS);
    expect(auto.applied).toBe(false);
    const manual = await truncate.run(
      strategyContext(view, { reason: 'manual' }),
      TRUNCATE_DEFAULTS,
    );
    expect(manual.applied).toBe(true);
    const forced = await truncate.run(
      strategyContext(view, { reason: 'auto', lastUsageTokens: 99_000 }),
      TRUNCATE_DEFAULTS,
    );
    expect(forced.applied).toBe(true);
  });

  it('calls no summarizer', async () => {
    const summarizer = fakeSummarizer();
    await truncate.run(strategyContext(chat(5).build(), { summarizer }), TRUNCATE_DEFAULTS);
    expect(summarizer.prompts).toEqual([]);
  });
});
