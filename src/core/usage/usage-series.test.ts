import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../shared/task-types';
import { Downsampler, UsageTracker, providerContextTokens } from './usage-series';

const T = '2026-01-01T00:00:00.000Z';
function msg(
  seq: number,
  role: MessageRecord['role'],
  tokens: number,
  extra: Partial<MessageRecord> = {},
) {
  return { seq, role, tokens, timestamp: T, ...extra };
}
const usage = (input: number, cacheRead = 0, cacheCreation = 0) => ({
  input_tokens: input,
  output_tokens: 5,
  cache_read_tokens: cacheRead,
  cache_creation_tokens: cacheCreation,
  total_tokens: input + cacheRead + cacheCreation + 5,
});

describe('the context-usage series', () => {
  it('adds estimated tokens message by message and marks them as estimates', () => {
    const t = new UsageTracker([]);
    const points = [msg(1, 'system', 100), msg(2, 'user', 50), msg(3, 'assistant', 20)].map((m) =>
      t.push(m),
    );
    expect(points.map((p) => [p.seq, p.tokens, p.source])).toEqual([
      [1, 100, 'estimate'],
      [2, 150, 'estimate'],
      [3, 170, 'estimate'],
    ]);
    expect(points[0]!.time).toBe(Date.parse(T));
  });

  it('takes provider usage (input + cache) where an assistant reports it, and re-anchors the estimate on it', () => {
    const t = new UsageTracker([]);
    t.push(msg(1, 'user', 100));
    const reported = t.push(msg(2, 'assistant', 10, { usage: usage(300, 200, 50) }));
    expect(reported).toMatchObject({ tokens: 550, source: 'provider' });
    expect(t.push(msg(3, 'tool', 40))).toMatchObject({ tokens: 600, source: 'estimate' });
    expect(providerContextTokens(undefined)).toBeNull();
  });

  it('drops to tokens_after right after a compaction in effect, ignoring undone ones and created messages', () => {
    const t = new UsageTracker([
      { id: 1, throughSeq: 3, tokensAfter: 120, undone: false },
      { id: 2, throughSeq: 5, tokensAfter: 10, undone: true },
    ]);
    const seq = [
      msg(1, 'system', 100),
      msg(2, 'user', 400),
      msg(3, 'tool', 500),
      msg(4, 'assistant', 80, { compaction_id: 1, kind: 'summary' }),
      msg(5, 'user', 30),
      msg(6, 'assistant', 30, { history_only: true }),
      msg(7, 'assistant', 5),
    ].map((m) => t.push(m).tokens);
    expect(seq).toEqual([100, 500, 1000, 120, 150, 150, 155]);
    expect(t.current).toBe(155);
  });

  it('tells the context now when compactions come after the last message (a session compacted after it ended)', () => {
    const t = new UsageTracker([
      { id: 1, throughSeq: 2, tokensAfter: 300, undone: false },
      { id: 2, throughSeq: 3, tokensAfter: 40, undone: false },
    ]);
    t.push(msg(1, 'user', 500));
    t.push(msg(2, 'assistant', 100));
    const last = t.push(msg(3, 'user', 20, { compaction_id: 1, kind: 'truncation-marker' }));
    expect(last.tokens).toBe(300);
    expect(t.current).toBe(40);
  });

  it('downsamples to about maxPoints, keeping the peak and the drop of every bucket', () => {
    const s = Downsampler.forTotal(10_000, 100);
    const t = new UsageTracker([{ id: 1, throughSeq: 5000, tokensAfter: 0, undone: false }]);
    for (let i = 1; i <= 10_000; i++) s.add(t.push(msg(i, 'user', 1)));
    const points = s.flush();
    expect(points.length).toBeLessThanOrEqual(100);
    expect(points.length).toBeGreaterThan(50);
    expect(Math.max(...points.map((p) => p.tokens))).toBe(5000);
    expect(points.some((p) => p.seq === 5001 && p.tokens === 1)).toBe(true);
    const seqs = points.map((p) => p.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it('keeps every point when the task is small', () => {
    const s = Downsampler.forTotal(5, 100);
    const t = new UsageTracker([]);
    for (let i = 1; i <= 5; i++) s.add(t.push(msg(i, 'user', 2)));
    expect(s.flush().map((p) => p.tokens)).toEqual([2, 4, 6, 8, 10]);
    expect(s.bucketSize).toBe(1);
  });
});
