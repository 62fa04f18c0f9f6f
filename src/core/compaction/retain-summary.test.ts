import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETAIN_PROMPT,
  DEFAULT_SUMMARY_PROMPT,
  RETAIN_SUMMARY_DEFAULTS,
  buildSummaryRequest,
  extractRetainSummary,
  lastTurnsStart,
  retainSummary,
  stripTrailingToolCalls,
  turnStarts,
} from './retain-summary';
import type { RetainSummaryParams } from './retain-summary';
import type { ContextStats } from './strategy';
import { repairToolPairs } from './tool-pairing';
import { inlineEntry } from './view';
import { extractiveSummarizer } from './extractive-digest';
import { splitLedger } from '../facts/fact-ledger-text';
import {
  ViewBuilder,
  fakeSummarizer,
  pairsIntact,
  strategyContext,
  unansweredCalls,
} from './test-support/synthetic-view';

const params = (overrides: Partial<RetainSummaryParams> = {}): RetainSummaryParams => ({
  ...RETAIN_SUMMARY_DEFAULTS,
  // The strategy's own output; the ledger appended to it is tested in summary-ledger.test.ts.
  fact_ledger: { max_tokens: 0, share: 0.08 },
  ...overrides,
});

/** system, then three turns: user → assistant call → result → assistant. */
function session(): ViewBuilder {
  return new ViewBuilder()
    .system('You are a coding agent.')
    .user('Add a --json flag to the CLI.') // 2
    .tool('read_file', { path: 'src/cli.ts' }, 'export function main() {}', 'Reading the CLI.') // 3, 4
    .assistant('The CLI has one entry point.') // 5
    .user('Now add tests.') // 6
    .tool(
      'write_file',
      { path: 'src/cli.test.ts', content: 'test' },
      'wrote 4 bytes',
      'Writing a test.',
    ) // 7, 8
    .assistant('Test written.') // 9
    .user('Run them.') // 10
    .tool('run_command', { command: 'npm test' }, 'ok\nexit code 0', 'Running.'); // 11, 12
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

describe('retain-summary trigger', () => {
  it('fires at threshold_ratio × the window, from the provider figure when there is one', () => {
    expect(retainSummary.needed(stats(79_999), params())).toBe(false);
    expect(retainSummary.needed(stats(80_000), params())).toBe(true);
    expect(retainSummary.needed(stats(10, { lastUsageTokens: 80_000 }), params())).toBe(true);
    expect(retainSummary.needed(stats(50_000), params({ threshold_ratio: 0.5 }))).toBe(true);
  });

  it('declines an automatic run below it without calling the model', async () => {
    const summarizer = fakeSummarizer();
    const result = await retainSummary.run(
      strategyContext(session().build(), { reason: 'auto', summarizer }),
      params(),
    );
    expect(result.applied).toBe(false);
    expect(summarizer.prompts).toEqual([]);
  });
});

describe('turns', () => {
  it('a turn is an assistant message with its results, plus the user message right before it', () => {
    const rest = session().build().slice(1);
    // user(0) a-call(1) tool(2) a(3) user(4) a-call(5) tool(6) a(7) user(8) a-call(9) tool(10)
    expect(turnStarts(rest)).toEqual([0, 3, 4, 7, 8]);
    expect(lastTurnsStart(rest, 1)).toBe(8);
    expect(lastTurnsStart(rest, 2)).toBe(7);
    expect(lastTurnsStart(rest, 0)).toBe(rest.length);
    expect(lastTurnsStart(rest, 5)).toBe(0); // not more turns than asked: nothing to summarize
  });
});

describe('the summary request', () => {
  it('ends with the interruption: summary prompt, directives as bullets, then the retain instruction', () => {
    const entries = session().build().slice(1, 9);
    const request = buildSummaryRequest(
      entries,
      params({
        summary_directives: ['Keep every file path.', 'Mention the failing test.'],
        retain_prompt: 'List the tool output refs.',
        retain_directives: ['Include ref ids.'],
      }),
    );
    const last = request.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(request.messages.slice(0, -1)).toEqual(entries.map((e) => e.message));
    const text = last.content!;
    expect(text.startsWith(DEFAULT_SUMMARY_PROMPT)).toBe(true);
    expect(text).toContain('<summary></summary>');
    expect(text).toContain('\n- Keep every file path.\n- Mention the failing test.');
    expect(text).toContain(
      'List the tool output refs.\n- Include ref ids.\nWrite this list inside <retain></retain> tags',
    );
    expect(text.indexOf('Keep every file path')).toBeLessThan(
      text.indexOf('List the tool output refs'),
    );
    // the flat prompt: the formatted messages, then the interruption as the last user message
    expect(request.prompt.startsWith('[user]: Add a --json flag to the CLI.')).toBe(true);
    expect(request.prompt).toContain('→ read_file({"path":"src/cli.ts"})');
    expect(request.prompt.endsWith(`[user]: ${text}`)).toBe(true);
    expect(request.prompt.lastIndexOf('[user]: ')).toBe(
      request.prompt.indexOf(`[user]: ${DEFAULT_SUMMARY_PROMPT.slice(0, 30)}`),
    );
  });

  it('has no retain instruction without a retain prompt, and a custom summary prompt replaces the default', () => {
    const request = buildSummaryRequest(
      session().build().slice(1, 5),
      params({ summary_prompt: 'Summarize in <summary>.' }),
    );
    const text = request.messages.at(-1)!.content!;
    expect(text).toBe('Summarize in <summary>.');
    expect(text).not.toContain('<retain>');
  });

  it('retain directives alone bring the built-in retain instruction (they would be lost otherwise)', () => {
    const text = buildSummaryRequest(
      [],
      params({ retain_directives: ['Keep ref ids.'] }),
    ).messages.at(-1)!.content!;
    expect(text).toContain(`${DEFAULT_RETAIN_PROMPT}\n- Keep ref ids.`);
  });

  it('§2.6.1: a trailing assistant with tool calls breaks the pairs unless it is stripped', () => {
    // The model has just asked for a tool; compaction runs before the tool does.
    const b = session();
    b.calls('Let me check the coverage too.', {
      name: 'run_command',
      args: { command: 'npm run coverage' },
    });
    const entries = b.build().slice(1);

    // Left in, the request has a call followed by the interruption — no result: providers
    // reject it ("tool_calls must be followed by tool messages"), and a repair has to invent one.
    const unstripped = buildSummaryRequest(entries, params());
    expect(unansweredCalls(unstripped.messages)).toEqual([
      entries.at(-1)!.message.tool_calls![0]!.id,
    ]);
    const repaired = repairToolPairs(unstripped.messages.map((m) => inlineEntry(m)));
    expect(repaired.length).toBe(unstripped.messages.length + 1);

    // Stripped, the call is gone and its content stays as a plain assistant message.
    const stripped = stripTrailingToolCalls(entries);
    expect(stripped.at(-1)!.message).toEqual({
      role: 'assistant',
      content: 'Let me check the coverage too.',
    });
    const request = buildSummaryRequest(stripped, params());
    expect(unansweredCalls(request.messages)).toEqual([]);
    expect(pairsIntact(stripped)).toBe(true);
  });

  it('drops a trailing call without content, and sees through synthetic results', () => {
    const b = new ViewBuilder().user('u');
    b.calls(null, { name: 'bash', args: { command: 'ls' } });
    expect(stripTrailingToolCalls(b.build()).map((e) => e.message.role)).toEqual(['user']);
    // the engine's repair adds inline (never stored) results for missing ones
    const repaired = repairToolPairs(b.build());
    expect(repaired.at(-1)!.message.role).toBe('tool');
    expect(stripTrailingToolCalls(repaired).map((e) => e.message.role)).toEqual(['user']);
    // answered calls stay
    const answered = new ViewBuilder().user('u').tool('bash', { command: 'ls' }, 'a.txt').build();
    expect(stripTrailingToolCalls(answered)).toEqual(answered);
  });
});

describe('tag extraction', () => {
  it('takes <retain> and <summary>, in any case, trimmed', () => {
    expect(
      extractRetainSummary(
        '<RETAIN>\n ref_1, ref_2 \n</Retain>\nblah\n<Summary>\n Did things. \n</SUMMARY>',
      ),
    ).toEqual({
      retain: 'ref_1, ref_2',
      summary: 'Did things.',
    });
  });

  it('a reply without tags is all summary', () => {
    expect(extractRetainSummary('  Just a summary.  ')).toEqual({
      retain: '',
      summary: 'Just a summary.',
    });
  });

  it('a retain block without a summary tag: the rest is the summary', () => {
    expect(extractRetainSummary('<retain>r</retain>\nThe summary.')).toEqual({
      retain: 'r',
      summary: 'The summary.',
    });
  });

  it('an unclosed summary (a reply cut off) runs to the end', () => {
    expect(extractRetainSummary('<summary>Half a summ')).toEqual({
      retain: '',
      summary: 'Half a summ',
    });
  });
});

describe('retain-summary run', () => {
  it('replaces the history with system + retain + summary + the last turn', async () => {
    const view = session().build();
    const summarizer = fakeSummarizer({
      reply: '<retain>ref out_1</retain><summary>Added the flag and a test.</summary>',
    });
    const result = await retainSummary.run(
      strategyContext(view, { summarizer }),
      params({ retain_prompt: 'List refs.', model: 'cheap-model' }),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(result.view[0]).toBe(view[0]);
    expect(result.view[1]!.message).toEqual({ role: 'user', content: 'ref out_1' });
    expect(result.view[1]!.create).toBe('summary');
    expect(result.view[2]!.message).toEqual({
      role: 'user',
      content: 'Added the flag and a test.',
    });
    expect(result.view[2]!.create).toBe('summary');
    expect(result.view.slice(3)).toEqual(view.slice(-3)); // user "Run them." + call + result
    expect(pairsIntact(result.view)).toBe(true);
    expect(result.summary).toBe('Added the flag and a test.\n\nRetained:\nref out_1');
    // complete, with the compaction model; summarize is not used
    expect(summarizer.summarized).toEqual([]);
    expect(summarizer.options[0]).toEqual({ model: 'cheap-model' });
    expect(summarizer.prompts[0]).toContain('[user]: Add a --json flag to the CLI.');
    expect(summarizer.prompts[0]).not.toContain('Run them.'); // the kept turn is not summarized
  });

  it('appends the facts the model dropped, not those its summary or retain list state', async () => {
    const view = session().build();
    const reply =
      '<retain>src/cli.ts is the entry point.</retain><summary>Added a flag; wrote a test.</summary>';
    const result = await retainSummary.run(
      strategyContext(view, { summarizer: fakeSummarizer({ reply }) }),
      params({ fact_ledger: { max_tokens: 6000, share: 0.06 } }),
    );
    if (!result.applied) throw new Error(result.reason);
    const [retain, summary] = result.view.filter((e) => e.create).map((e) => e.message.content!);
    expect(retain).toBe('src/cli.ts is the entry point.');
    expect(summary.startsWith('Added a flag; wrote a test.\n\n## Fact ledger\n')).toBe(true);
    const ledger = splitLedger(summary).ledger.map((f) => f.text);
    // A tiny span gets a small ledger: the file written ranks first.
    expect(ledger[0]).toBe('src/cli.test.ts');
    expect(ledger).not.toContain('src/cli.ts'); // stated in <retain>
  });

  it('leaves out the retain message when the reply has none', async () => {
    const view = session().build();
    const result = await retainSummary.run(
      strategyContext(view, { summarizer: fakeSummarizer({ reply: 'Plain summary.' }) }),
      params(),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(result.view.filter((e) => e.create).map((e) => e.message.content)).toEqual([
      'Plain summary.',
    ]);
  });

  it('keeps retain_last_turns turns', async () => {
    const view = session().build();
    const two = await retainSummary.run(
      strategyContext(view, { summarizer: fakeSummarizer() }),
      params({ retain_last_turns: 2 }),
    );
    if (!two.applied) throw new Error(two.reason);
    expect(two.view.slice(2)).toEqual(view.slice(-4)); // assistant "Test written." + the last turn
    const none = await retainSummary.run(
      strategyContext(view, { summarizer: fakeSummarizer() }),
      params({ retain_last_turns: 0 }),
    );
    if (!none.applied) throw new Error(none.reason);
    expect(none.view).toHaveLength(2);
    const all = await retainSummary.run(
      strategyContext(view, { summarizer: fakeSummarizer() }),
      params({ retain_last_turns: 9 }),
    );
    expect(all.applied).toBe(false);
  });

  it('declines when the model returns nothing, and when the call fails', async () => {
    const empty = await retainSummary.run(
      strategyContext(session().build(), { summarizer: fakeSummarizer({ reply: ' \n ' }) }),
      params(),
    );
    expect(empty).toEqual({ applied: false, reason: 'the model returned an empty summary' });
    const failed = await retainSummary.run(
      strategyContext(session().build(), {
        summarizer: fakeSummarizer({ error: new Error('429 rate limited') }),
      }),
      params(),
    );
    expect(failed).toEqual({ applied: false, reason: 'the summary call failed: 429 rate limited' });
  });

  it('estimates in a dry run and never calls the model', async () => {
    const summarizer = fakeSummarizer();
    const result = await retainSummary.run(
      strategyContext(session().build(), { summarizer, dryRun: true }),
      params({ retain_prompt: 'refs' }),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(summarizer.prompts).toEqual([]);
    expect(result.estimated).toBe(true);
    expect(result.view[2]!.message.content).toMatch(
      /^\(the model would summarize 8 messages, ~\d+ tokens, here\)$/,
    );
    expect(result.view[1]!.message.content).toContain('retain');
  });

  it('falls back to the extractive digest without a model, and says so', async () => {
    const result = await retainSummary.run(
      strategyContext(session().build(), { summarizer: extractiveSummarizer }),
      params(),
    );
    if (!result.applied) throw new Error(result.reason);
    const summary = result.view[1]!.message.content!;
    expect(summary).toMatch(
      /^Summary of earlier work \(extractive digest, no LLM: retain-summary needs a model/,
    );
    expect(summary).toContain('## Goal\nAdd a --json flag to the CLI.');
    expect(summary).toContain('## Files written\n- src/cli.test.ts');
    expect(result.view).toHaveLength(1 + 1 + 3);
  });
});
