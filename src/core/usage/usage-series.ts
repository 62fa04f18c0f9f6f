import type { UsageSource } from '../../shared/api/task-view-api';
import type { MessageRecord } from '../../shared/task-types';

/** A compaction as the series needs it: where it took effect and the context it left. */
export interface UsageCompaction {
  id: number;
  /** The last message the compaction accounted for; the context drops right after it. */
  throughSeq: number;
  tokensAfter: number;
  undone: boolean;
}

export interface UsagePoint {
  seq: number;
  tokens: number;
  source: UsageSource;
  time: number | null;
}

export type UsageMessage = Pick<
  MessageRecord,
  'seq' | 'role' | 'tokens' | 'usage' | 'timestamp' | 'compaction_id' | 'history_only'
>;

/** What the series needs of one message, whatever compactions are in effect. */
export interface MessageFigures {
  seq: number;
  /** The context a provider reported for this (assistant) message, else null. */
  reported: number | null;
  /** The message's own estimated tokens. */
  tokens: number;
  /** Whether the message enters the context by itself (not compaction-made, not history-only). */
  counts: boolean;
  time: number | null;
}

/** Tokens a provider counted as the request's input: fresh input plus cache reads and writes. */
export function providerContextTokens(usage: MessageRecord['usage']): number | null {
  if (!usage) return null;
  const total = usage.input_tokens + usage.cache_read_tokens + usage.cache_creation_tokens;
  return total > 0 ? total : null;
}

export function figuresOf(message: UsageMessage): MessageFigures {
  const t = typeof message.timestamp === 'string' ? Date.parse(message.timestamp) : NaN;
  return {
    seq: message.seq,
    reported: message.role === 'assistant' ? providerContextTokens(message.usage) : null,
    // A hand-edited or foreign line may carry anything here; the chart needs a count.
    tokens:
      typeof message.tokens === 'number' && Number.isFinite(message.tokens) ? message.tokens : 0,
    counts: message.compaction_id === undefined && message.history_only !== true,
    time: Number.isFinite(t) ? t : null,
  };
}

/**
 * Derives tokens-in-context per message, one message at a time (memory stays flat however
 * long the task is). Where an assistant message carries provider usage, that figure is the
 * context the model was sent, and the running estimate is re-anchored on it; elsewhere the
 * estimate grows by each message's own token count and drops to a compaction's tokens_after
 * right after its through_seq. Messages created by compactions (summaries, markers) and
 * history-only messages never add by themselves: their tokens are in tokens_after already
 * or never entered the context.
 */
export class UsageTracker {
  private estimate = 0;
  private readonly drops = new Map<number, number>();
  private last = 0;
  private droppedLast = false;

  constructor(compactions: readonly UsageCompaction[]) {
    // Only compactions in effect shaped the context; several steps of one run share a seq and
    // the last one (highest id) is what the model saw afterwards.
    for (const c of [...compactions].sort((a, b) => a.id - b.id)) {
      if (!c.undone) this.drops.set(c.throughSeq, c.tokensAfter);
    }
  }

  push(message: UsageMessage): UsagePoint {
    return this.pushFigures(figuresOf(message));
  }

  pushFigures(m: MessageFigures): UsagePoint {
    let point: UsagePoint;
    if (m.reported !== null) {
      point = { seq: m.seq, tokens: m.reported, source: 'provider', time: m.time };
      this.estimate = m.reported + (m.counts ? m.tokens : 0);
    } else {
      if (m.counts) this.estimate += Math.max(0, m.tokens || 0);
      point = { seq: m.seq, tokens: this.estimate, source: 'estimate', time: m.time };
    }
    const after = this.drops.get(m.seq);
    if (after !== undefined) this.estimate = after;
    this.last = point.tokens;
    this.droppedLast = after !== undefined;
    return point;
  }

  /**
   * The context now, after every message pushed: the last point, or what a compaction at
   * the very end left (its drop shows on no point, as no message follows it: a session
   * compacted after it ended).
   */
  get current(): number {
    return this.droppedLast ? this.estimate : this.last;
  }
}

/**
 * Keeps at most about `maxPoints` points without losing the shape: each bucket of
 * `bucketSize` consecutive points contributes its lowest and highest point (in seq order),
 * so peaks before a compaction and the drop after it both survive. Points arrive one by
 * one; only the current bucket is held.
 */
export class Downsampler {
  readonly points: UsagePoint[] = [];
  private low: UsagePoint | null = null;
  private high: UsagePoint | null = null;
  private inBucket = 0;

  constructor(readonly bucketSize: number) {}

  static forTotal(total: number, maxPoints: number): Downsampler {
    // Two points per bucket, so buckets hold twice the share of one point.
    return new Downsampler(Math.max(1, Math.ceil((total * 2) / Math.max(2, maxPoints))));
  }

  add(point: UsagePoint): void {
    if (this.bucketSize === 1) {
      this.points.push(point);
      return;
    }
    if (!this.low || point.tokens < this.low.tokens) this.low = point;
    if (!this.high || point.tokens >= this.high.tokens) this.high = point;
    if (++this.inBucket >= this.bucketSize) this.flush();
  }

  flush(): UsagePoint[] {
    if (this.low && this.high) {
      if (this.low === this.high) this.points.push(this.low);
      else if (this.low.seq < this.high.seq) this.points.push(this.low, this.high);
      else this.points.push(this.high, this.low);
    }
    this.low = this.high = null;
    this.inBucket = 0;
    return this.points;
  }
}
