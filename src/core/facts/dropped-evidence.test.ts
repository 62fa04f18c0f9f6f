import { describe, expect, it } from 'vitest';
import type { SpanMessage } from './span-facts';
import { estimateTokens } from '../tokens/estimate';
import { droppedEvidence, typedSpanFacts } from './dropped-evidence';

const call = (id: string, name: string, args: object): SpanMessage => ({
  message: {
    role: 'assistant',
    content: '',
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  },
});
const result = (id: string, content: string): SpanMessage => ({
  message: { role: 'tool', content, tool_call_id: id },
});
const said = (content: string): SpanMessage => ({ message: { role: 'assistant', content } });

const span: SpanMessage[] = [
  { message: { role: 'user', content: 'Make the sync incremental' } },
  call('a', 'Read', { file_path: '/repo/src/old/legacy_sync.ts' }),
  result('a', 'export function legacySyncAll() {}\nconst retryBudgetMs = 5;'),
  said('The old path is src/old/legacy_sync.ts; syncStatus tracks deltas.'),
  call('b', 'Bash', { command: 'npm test -- src/sync/delta-tracker.test.ts' }),
  result('b', 'Tests 12 passed'),
  call('c', 'Edit', {
    file_path: '/repo/src/sync/delta-tracker.ts',
    new_string: 'markDeltaSynced(id)',
  }),
  result('c', 'ok'),
];

describe('droppedEvidence', () => {
  it('lists only what the summary does not state', () => {
    const summary = 'We edited /repo/src/sync/delta-tracker.ts to call markDeltaSynced.';
    const out = droppedEvidence(span, summary, { maxTokens: 4000, note: 'note' });
    expect(out.text).toContain('/repo/src/old/legacy_sync.ts');
    expect(out.text).toContain('syncStatus');
    expect(out.text).toContain('npm test -- src/sync/delta-tracker.test.ts');
    // Stated by the summary already: not repeated.
    expect(out.text).not.toContain('/repo/src/sync/delta-tracker.ts,');
    expect(out.text).not.toMatch(/(^|[ ,])\/repo\/src\/sync\/delta-tracker\.ts($|,)/m);
  });

  it('ranks what the agent typed first, the newest first, and keeps to the budget', () => {
    const small = droppedEvidence(span, '', { maxTokens: 60, note: 'n' });
    expect(small.tokens).toBeLessThanOrEqual(60);
    expect(small.shown).toBeGreaterThan(0);
    // The last thing the agent typed beats what a tool only showed it.
    expect(small.text).toContain('markDeltaSynced');
    expect(small.text).not.toContain('retryBudgetMs');
    const large = droppedEvidence(span, '', { maxTokens: 4000, note: 'n' });
    expect(large.text).toContain('retryBudgetMs');
    expect(estimateTokens(large.text)).toBe(large.tokens);
  });

  it('finds nothing to say when the span is empty or the summary states it all', () => {
    expect(droppedEvidence([], 'x', { maxTokens: 4000, note: 'n' }).shown).toBe(0);
  });
});

describe('typedSpanFacts', () => {
  it('reads tool-call argument values and the agent’s own text, never tool outputs', () => {
    const texts = typedSpanFacts(span)
      .list()
      .map((f) => f.text);
    expect(texts).toContain('/repo/src/old/legacy_sync.ts');
    expect(texts).toContain('markDeltaSynced');
    expect(texts).toContain('syncStatus');
    expect(texts).not.toContain('legacySyncAll');
  });
});
