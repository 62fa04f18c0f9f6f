import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../tokens/estimate';
import { ViewBuilder } from '../compaction/test-support/synthetic-view';
import { spanMessages } from '../compaction/summary-ledger';
import type { Fact } from './fact-types';
import { LEDGER_HEADING, parseLedger, renderLedger, splitLedger } from './fact-ledger-text';
import { factScore, ledgerTokens, rankedLedger, withDroppedFacts } from './fact-ledger';
import { isKept, scoreFacts } from './fact-survival';

const fact = (kind: Fact['kind'], text: string, extra: Partial<Fact> = {}): Fact => ({
  kind,
  text,
  mentions: 1,
  recency: 0,
  ...extra,
});

describe('the ledger as text', () => {
  const facts = [
    fact('instruction', 'Make the parser accept ISO week dates'),
    fact('path', 'src/date/parse.ts', { written: true }),
    fact('path', 'src/date/index.ts'),
    fact('command', 'npm test', { detail: 'exit 1', failed: true }),
    fact('command', 'npm run build', { failed: false }),
    fact('error', 'TypeError: week is not a function', { failed: true }),
    fact('number', '12 passed'),
    fact('identifier', 'parseDate'),
    fact('url', 'https://example.com/spec'),
  ];

  it('groups facts by kind, densely', () => {
    expect(renderLedger(facts, { note: 'From #2–#9.' })).toBe(
      [
        LEDGER_HEADING,
        'From #2–#9.',
        'Instructions:',
        '> Make the parser accept ISO week dates',
        'Files written: src/date/parse.ts',
        'Files read or named: src/date/index.ts',
        'Commands:',
        '- `npm test` → exit 1',
        '- `npm run build`',
        'Errors:',
        '- TypeError: week is not a function',
        'Numbers: 12 passed',
        'Identifiers: parseDate',
        'URLs: https://example.com/spec',
      ].join('\n'),
    );
  });

  it('reads back what it wrote, behind a summary', () => {
    const text = `The agent fixed the parser.\n\n${renderLedger(facts)}`;
    const { body, ledger } = splitLedger(text);
    expect(body).toBe('The agent fixed the parser.');
    expect(ledger.map((f) => [f.kind, f.text, f.detail, Boolean(f.written)])).toEqual(
      facts.map((f) => [f.kind, f.text, f.detail, Boolean(f.written)]),
    );
    expect(ledger.find((f) => f.text === 'npm test')?.failed).toBe(true);
    expect(splitLedger('no ledger here').ledger).toEqual([]);
  });

  it('parses nothing from a heading it did not write', () => {
    expect(parseLedger(`${LEDGER_HEADING}\nSomething: else\n- x`)).toEqual([]);
  });
});

describe('ranking under a budget', () => {
  it('keeps what matters for carrying on: errors, failing commands, written files first', () => {
    const facts = [
      ...Array.from({ length: 200 }, (_, i) => fact('identifier', `someIdentifier_${i}_x`)),
      fact('path', 'src/written.ts', { written: true }),
      fact('command', 'cargo test', { detail: 'exit 101', failed: true }),
      fact('error', 'error[E0308]: mismatched types', { failed: true }),
    ];
    const { text, shown, omitted } = rankedLedger(facts, 120);
    expect(estimateTokens(text)).toBeLessThanOrEqual(120);
    expect(text).toContain('src/written.ts');
    expect(text).toContain('`cargo test` → exit 101');
    expect(text).toContain('error[E0308]: mismatched types');
    expect(omitted).toBe(facts.length - shown.length);
    expect(omitted).toBeGreaterThan(150);
  });

  it('prefers facts the later messages refer to again, and newer ones', () => {
    const a = fact('identifier', 'oldName');
    const b = fact('identifier', 'usedLater');
    expect(factScore(b, 'we still call usedLater() here')).toBeGreaterThan(factScore(a, 'x'));
    expect(factScore({ ...a, recency: 1 }, '')).toBeGreaterThan(factScore(a, ''));
    expect(factScore({ ...a, mentions: 4 }, '')).toBeGreaterThan(factScore(a, ''));
  });

  it('scales with the span and has a floor and a ceiling', () => {
    const budget = { max_tokens: 6000, share: 0.06 };
    expect(ledgerTokens(10_000, budget)).toBe(600);
    expect(ledgerTokens(100, budget)).toBe(60);
    expect(ledgerTokens(10_000_000, budget)).toBe(6000);
  });
});

describe('an LLM summary checked against its span', () => {
  const span = (): ReturnType<typeof spanMessages> => {
    const b = new ViewBuilder().user('Make `cwb tasks` sort by cost');
    b.tool('read_file', { path: 'src/cli/commands/tasks.ts' }, 'export function tasks() {}');
    b.tool(
      'run_command',
      { command: 'npx vitest run test/cli.test.ts' },
      'AssertionError: expected 3 to be 4\nexit code 1',
    );
    b.tool('write_file', { path: 'src/cli/commands/tasks.ts', content: '…' }, 'ok');
    return spanMessages(b.build());
  };

  it('appends only what the summary dropped (no second model call)', () => {
    const summary = 'The agent changed src/cli/commands/tasks.ts to sort by cost.';
    const out = withDroppedFacts(summary, span(), { maxTokens: 400 });
    expect(out.startsWith(`${summary}\n\n${LEDGER_HEADING}`)).toBe(true);
    const ledger = splitLedger(out).ledger;
    expect(ledger.map((f) => f.text)).toEqual([
      'Make `cwb tasks` sort by cost',
      'npx vitest run test/cli.test.ts',
      'AssertionError: expected 3 to be 4',
    ]);
    // The test file and the error's name are stated inside the command and the error line.
    expect(isKept(fact('path', 'test/cli.test.ts'), out)).toBe(true);
    expect(isKept(fact('identifier', 'AssertionError'), out)).toBe(true);
    // The path the summary states is not repeated.
    expect(out.split('src/cli/commands/tasks.ts')).toHaveLength(2);
  });

  it('leaves a summary that states every fact as it is', () => {
    const complete =
      'Make `cwb tasks` sort by cost: edited src/cli/commands/tasks.ts; npx vitest run test/cli.test.ts failed with AssertionError: expected 3 to be 4.';
    expect(withDroppedFacts(complete, span(), { maxTokens: 400 })).toBe(complete);
  });

  it('merges a ledger the model copied from an earlier summary: one ledger, never two', () => {
    const copied = renderLedger([fact('path', 'docs/old-notes.md', { written: true })]);
    const out = withDroppedFacts(`Summary.\n\n${copied}`, span(), { maxTokens: 400 });
    expect(out.split(LEDGER_HEADING)).toHaveLength(2);
    expect(splitLedger(out).ledger.map((f) => f.text)).toContain('docs/old-notes.md');
  });
});

describe('what counts as kept', () => {
  it('finds a fact anywhere in the new context; a clipped one by its start; errors in any case', () => {
    expect(isKept(fact('path', 'src/a.ts'), 'we edited src/a.ts yesterday')).toBe(true);
    expect(isKept(fact('path', 'src/a.ts'), 'we edited src/b.ts')).toBe(false);
    expect(isKept(fact('instruction', 'Please fix the…'), 'Please fix the parser')).toBe(true);
    expect(isKept(fact('error', 'TypeError: X'), 'saw typeerror: x')).toBe(true);
  });

  it('counts by kind, salient kinds together, the most important lost first', () => {
    const score = scoreFacts(
      [
        fact('path', 'src/a.ts', { written: true }),
        fact('identifier', 'fooBar'),
        fact('error', 'Error: boom', { failed: true }),
        fact('instruction', 'do it'),
      ],
      'kept src/a.ts and do it',
    );
    expect(score.byKind.path).toEqual({ total: 1, kept: 1 });
    expect(score.byKind.instruction).toEqual({ total: 1, kept: 1 });
    expect(score.salient).toEqual({ total: 3, kept: 1 });
    expect(score.lost.map((f) => f.text)).toEqual(['Error: boom', 'fooBar']);
  });
});
