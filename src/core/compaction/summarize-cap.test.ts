import { describe, expect, it } from 'vitest';
import { LEDGER_DEFAULTS } from '../facts/fact-ledger-budget';
import { extractiveSummarizer } from './extractive-digest';
import { summarize, type SummarizeParams } from './summarize';
import { strategyContext, ViewBuilder } from './test-support/synthetic-view';
import { contextText } from './summary-ledger';
import { viewTokens } from './view';

/**
 * The cap on a summary step's whole new context (`fact_ledger.context_share`): the newest
 * messages kept verbatim are large here (a long read at the end), so keeping five of them
 * would take far more than a tenth of the context.
 */
function view() {
  const b = new ViewBuilder().system('You are a coding agent.');
  for (let i = 0; i < 40; i++) {
    b.user(`step ${i}: look at src/module-${i}.ts`);
    b.tool(
      'Read',
      { file_path: `/repo/src/module-${i}.ts` },
      `export const v${i} = ${i};\n`.repeat(60),
    );
    b.assistant(`module-${i} exports v${i}; see issue #${100 + i}.`);
  }
  b.user('now the big one');
  b.tool('Read', { file_path: '/repo/src/big.ts' }, 'export const big = 1;\n'.repeat(800));
  b.assistant('big.ts read.');
  return b.entries;
}

const params = (context_share: number): SummarizeParams => ({
  keep_recent_messages: 5,
  min_to_compress: 1,
  summary_prompt: 'Summarize {messages}',
  compression_threshold: 0.8,
  token_threshold: null,
  summary_role: 'assistant',
  fact_ledger: { ...LEDGER_DEFAULTS, context_share },
});

async function run(share: number) {
  const entries = view();
  const result = await summarize.run(
    strategyContext(entries, { summarizer: extractiveSummarizer, dryRun: true }),
    params(share),
  );
  if (!result.applied) throw new Error(result.reason);
  return { before: viewTokens(entries), after: viewTokens(result.view), view: result.view };
}

describe('summarize: the cap on the new context', () => {
  it('keeps the new context within its share of the context before: fewer messages verbatim, a ledger that fits', async () => {
    const uncapped = await run(0);
    expect(uncapped.after / uncapped.before).toBeGreaterThan(0.1);
    const capped = await run(0.1);
    expect(capped.after).toBeLessThanOrEqual(Math.floor(0.1 * capped.before));
    // The facts the agent typed are still there, in the ledger: paths and references.
    const text = contextText(capped.view);
    expect(text).toContain('/repo/src/module-39.ts');
    expect(text).toContain('#139');
  });

  it('a share of 0 is no cap: the newest messages stay as configured', async () => {
    const uncapped = await run(0);
    expect(uncapped.view.at(-1)!.message.content).toBe('big.ts read.');
    expect(
      uncapped.view.filter((e) => e.create === undefined && e.message.role !== 'system'),
    ).toHaveLength(5);
  });
});
