import type { MessageFigures } from './usage-series';

const INITIAL_CAPACITY = 1024;

/**
 * The figures of every message of a task in typed arrays (~29 bytes a message, against
 * hundreds for objects), so a cached series can be recomputed for any set of compactions
 * or number of points without reading messages.jsonl again.
 */
export class UsageSamples {
  length = 0;
  private seqs = new Float64Array(INITIAL_CAPACITY);
  private tokens = new Float64Array(INITIAL_CAPACITY);
  /** NaN: no provider figure. */
  private reported = new Float64Array(INITIAL_CAPACITY);
  /** NaN: no usable timestamp. */
  private times = new Float64Array(INITIAL_CAPACITY);
  private counts = new Uint8Array(INITIAL_CAPACITY);

  get bytes(): number {
    return this.seqs.length * 33;
  }

  push(f: MessageFigures): void {
    if (this.length === this.seqs.length) this.grow();
    const i = this.length++;
    this.seqs[i] = f.seq;
    this.tokens[i] = f.tokens;
    this.reported[i] = f.reported ?? NaN;
    this.times[i] = f.time ?? NaN;
    this.counts[i] = f.counts ? 1 : 0;
  }

  at(i: number): MessageFigures {
    const reported = this.reported[i]!;
    const time = this.times[i]!;
    return {
      seq: this.seqs[i]!,
      tokens: this.tokens[i]!,
      reported: Number.isNaN(reported) ? null : reported,
      time: Number.isNaN(time) ? null : time,
      counts: this.counts[i] === 1,
    };
  }

  private grow(): void {
    const size = this.seqs.length * 2;
    const wider = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(a);
      return next;
    };
    this.seqs = wider(this.seqs, (n) => new Float64Array(n));
    this.tokens = wider(this.tokens, (n) => new Float64Array(n));
    this.reported = wider(this.reported, (n) => new Float64Array(n));
    this.times = wider(this.times, (n) => new Float64Array(n));
    this.counts = wider(this.counts, (n) => new Uint8Array(n));
  }
}
