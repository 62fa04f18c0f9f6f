import { describe, expect, it } from 'vitest';
import {
  CONDENSE_DEFAULTS,
  DEFAULT_CONDENSE_PROMPT,
  condense,
  effectiveThresholdPercent,
  estimatedSummaryTokens,
} from './condense';
import type { CondenseParams } from './condense';
import type { ContextStats } from './strategy';
import { entrySeq, viewTokens } from './view';
import { extractiveSummarizer } from './extractive-digest';
import {
  ViewBuilder,
  fakeSummarizer,
  pairsIntact,
  strategyContext,
} from './test-support/synthetic-view';

const long = (label: string): string =>
  `${label}: ${'details of the work that was done '.repeat(20)}`;

/** System, task, then `steps` tool calls with long results, then a short exchange. */
function session(steps = 5): ViewBuilder {
  const b = new ViewBuilder()
    .system('You are a coding agent.')
    .user('Make the parser accept trailing commas.');
  for (let i = 1; i <= steps; i++)
    b.tool('read_file', { path: `src/parser-${i}.ts` }, long(`file ${i}`), `Reading part ${i}.`);
  return b
    .assistant('I changed the parser.')
    .user('Run the tests please.')
    .assistant('Running them now.');
}

function stats(tokens: number, overrides: Partial<ContextStats> = {}): ContextStats {
  return {
    currentTokens: tokens,
    lastUsageTokens: undefined,
    messageCount: 10,
    contextWindow: 100_000,
    maxOutputTokens: 8_000,
    ...overrides,
  };
}

const params = (overrides: Partial<CondenseParams> = {}): CondenseParams => ({
  ...CONDENSE_DEFAULTS,
  // The strategy's own output; the ledger appended to it is tested in summary-ledger.test.ts.
  fact_ledger: { max_tokens: 0, share: 0.08 },
  ...overrides,
});

describe('condense trigger', () => {
  it('triggers above threshold_percent of the window', () => {
    const p = params({ threshold_percent: 50 });
    expect(condense.needed(stats(50_000), p)).toBe(false);
    expect(condense.needed(stats(50_001), p)).toBe(true);
  });

  it('clamps the threshold into 5–100 %', () => {
    expect(effectiveThresholdPercent(1)).toBe(5);
    expect(effectiveThresholdPercent(250)).toBe(100);
    expect(effectiveThresholdPercent(42)).toBe(42);
    expect(
      condense.needed(stats(5_001, { maxOutputTokens: 0 }), params({ threshold_percent: 2 })),
    ).toBe(true);
    expect(
      condense.needed(stats(4_999, { maxOutputTokens: 0 }), params({ threshold_percent: 2 })),
    ).toBe(false);
  });

  it('also triggers above the window less the token buffer and the reply (seed 004 TOKEN_BUFFER_PERCENTAGE)', () => {
    // 100 %: only the buffer rule can fire. 100,000 × 0.9 − 8,000 = 82,000.
    expect(condense.needed(stats(82_000), params())).toBe(false);
    expect(condense.needed(stats(82_001), params())).toBe(true);
    // a larger buffer lowers the bar
    expect(condense.needed(stats(70_000), params({ token_buffer_ratio: 0.2 }))).toBe(false);
    expect(condense.needed(stats(72_001), params({ token_buffer_ratio: 0.2 }))).toBe(true);
    // the provider's usage is authoritative
    expect(condense.needed(stats(10, { lastUsageTokens: 90_000 }), params())).toBe(true);
  });

  it('declines an automatic run below the trigger', async () => {
    const summarizer = fakeSummarizer();
    const result = await condense.run(
      strategyContext(session().build(), { reason: 'auto', summarizer }),
      params(),
    );
    expect(result.applied).toBe(false);
    expect(summarizer.prompts).toEqual([]);
  });
});

describe('condense run', () => {
  it('summarizes everything between the system prompt and the last keep_messages into one assistant message', async () => {
    const view = session().build();
    const summarizer = fakeSummarizer({ reply: '  The parser work so far.  ' });
    const result = await condense.run(strategyContext(view, { summarizer }), params());
    if (!result.applied) throw new Error(result.reason);
    expect(result.view[0]).toBe(view[0]);
    const summary = result.view[1]!;
    expect(summary.create).toBe('summary');
    expect(summary.message).toEqual({ role: 'assistant', content: 'The parser work so far.' });
    expect(result.view.slice(2)).toEqual(view.slice(-3));
    expect(result.summary).toBe('The parser work so far.');
    // the prompt is the default with the messages filled in by the summarizer
    expect(summarizer.prompts[0]).toBe(DEFAULT_CONDENSE_PROMPT);
    expect(summarizer.summarized[0]).toEqual(view.slice(1, -3));
  });

  it('keeps the newest messages with their tool pairs', async () => {
    const b = session(3);
    b.tool('run_command', { command: 'npm test' }, 'all passed\nexit code 0', 'Testing.');
    const view = b.build();
    // keep 1 would start the kept part at the tool result: the cut moves back to its call
    const result = await condense.run(
      strategyContext(view, { summarizer: fakeSummarizer() }),
      params({ keep_messages: 1 }),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(pairsIntact(result.view)).toBe(true);
    expect(result.view.slice(2).map((e) => e.message.role)).toEqual(['assistant', 'tool']);
  });

  it('uses summary_prompt when given', async () => {
    const summarizer = fakeSummarizer();
    await condense.run(
      strategyContext(session().build(), { summarizer }),
      params({ summary_prompt: 'Short please: {messages}' }),
    );
    expect(summarizer.prompts).toEqual(['Short please: {messages}']);
  });

  it.each([
    [
      'throws',
      { error: new Error('HTTP 500 from the model') },
      /condense failed \(HTTP 500 from the model\); truncated instead/,
    ],
    [
      'returns nothing',
      { reply: '   ' },
      /condense failed \(the summary was empty\); truncated instead/,
    ],
    [
      'returns more than it replaces',
      { reply: 'x'.repeat(200_000) },
      /condense failed \(the summary \(~\d+ tokens\) is not smaller than the \d+ messages it replaces \(~\d+ tokens\)\); truncated instead/,
    ],
  ])('falls back to truncate when the summarizer %s', async (_what, fake, pattern) => {
    const view = session().build();
    const result = await condense.run(
      strategyContext(view, { summarizer: fakeSummarizer(fake) }),
      params(),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(result.summary).toMatch(pattern);
    expect(result.view.filter((e) => e.create).map((e) => e.create)).toEqual(['truncation-marker']);
    expect(result.view[0]).toBe(view[0]);
    expect(entrySeq(result.view[1]!)).toBe(2); // the first message stays
    expect(pairsIntact(result.view)).toBe(true);
  });

  it('does not fall back when the run was cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const summarizer = fakeSummarizer({ error: new Error('aborted') });
    await expect(
      condense.run(
        strategyContext(session().build(), { summarizer, signal: controller.signal }),
        params(),
      ),
    ).rejects.toThrow('aborted');
  });

  it('declines when there is not enough to condense', async () => {
    const view = new ViewBuilder().system('s').user('u').assistant('a').user('u2').build();
    const result = await condense.run(strategyContext(view), params());
    expect(result.applied).toBe(false);
  });

  it('estimates in a dry run and never calls an LLM summarizer', async () => {
    const summarizer = fakeSummarizer();
    const view = session().build();
    const result = await condense.run(
      strategyContext(view, { summarizer, dryRun: true }),
      params(),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(summarizer.prompts).toEqual([]);
    expect(result.estimated).toBe(true);
    expect(result.summary).toMatch(
      /^\(the model would summarize \d+ messages, ~\d+ tokens, here\)$/,
    );
    expect(result.view[1]!.create).toBe('summary');
    // counted as a guess of the real summary, not as the placeholder text
    expect(result.view[1]!.tokens).toBe(
      estimatedSummaryTokens(viewTokens(view.slice(1, -3)), 4_000),
    );
  });

  it('runs the extractive summarizer, even in a dry run (it is local)', async () => {
    const result = await condense.run(
      strategyContext(session().build(), { summarizer: extractiveSummarizer, dryRun: true }),
      params(),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(result.estimated).toBeUndefined();
    expect(result.summary).toContain('## Goal\nMake the parser accept trailing commas.');
    expect(result.summary).toContain('- src/parser-1.ts');
  });
});

describe('estimatedSummaryTokens', () => {
  it('guesses a fifth of what is replaced, never more than the reply limit', () => {
    expect(estimatedSummaryTokens(10_000, 8_000)).toBe(2_000);
    expect(estimatedSummaryTokens(100_000, 8_000)).toBe(8_000);
    expect(estimatedSummaryTokens(0, 8_000)).toBe(1);
  });
});
