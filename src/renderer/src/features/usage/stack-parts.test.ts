import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../../../../shared/api/usage-api';
import { OTHER, stackedSeries, stackParts } from './stack-parts';

function row(key: string, parts: [string, number, number?][]): UsageRow {
  return {
    key,
    tasks: 1,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    cost: { usd: parts.reduce((s, p) => s + p[1], 0), unknown_tokens: 0, saved_usd: 0 },
    parts: parts.map(([k, usd, unknown]) => ({ key: k, usd, unknown_tokens: unknown ?? 0 })),
  };
}

describe('stackParts', () => {
  it('orders parts by their dollars, fills the rows a part is missing from with 0, and adds up to each row', () => {
    const stack = stackParts([
      row('2025-09-01', [
        ['haiku', 1],
        ['opus', 5],
      ]),
      row('2025-09-02', [['opus', 2]]),
      row('2025-09-03', [['mystery', 0, 900]]),
    ]);
    expect(stack.keys).toEqual(['2025-09-01', '2025-09-02', '2025-09-03']);
    expect(stack.parts.map((p) => p.key)).toEqual(['opus', 'haiku']);
    expect(stack.parts[0]!.usd).toEqual([5, 2, 0]);
    expect(stack.parts[1]!.usd).toEqual([1, 0, 0]);
    expect(stack.totals).toEqual([6, 2, 0]);
  });

  it('gathers the cheapest parts past the limit as one', () => {
    const stack = stackParts(
      [
        row('d', [
          ['a', 4],
          ['b', 3],
          ['c', 2],
          ['d', 1],
        ]),
      ],
      3,
    );
    expect(stack.parts.map((p) => p.key)).toEqual(['a', 'b', OTHER]);
    expect(stack.parts[2]!.usd).toEqual([3]);
    expect(stack.totals).toEqual([10]);
  });
});

describe('stackedSeries', () => {
  it('draws the total first and the bottom part last', () => {
    const stack = stackParts([
      row('x', [
        ['a', 4],
        ['b', 1],
      ]),
      row('y', [['b', 2]]),
    ]);
    expect(stackedSeries(stack)).toEqual([
      { part: 1, values: [5, 2] },
      { part: 0, values: [4, 0] },
    ]);
  });
});
