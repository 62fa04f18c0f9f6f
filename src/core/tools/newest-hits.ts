export interface Hit {
  seq: number;
  /** The line shown for this match. */
  line: string;
}

/**
 * The newest `capacity` of a stream of matches that arrives oldest first, in a fixed ring:
 * search has to see every match to count them, but keeps only what it may show.
 */
export class NewestHits {
  private readonly slots: Hit[] = [];
  private next = 0;
  /** Every match added, kept or not. */
  total = 0;
  /** The seq of the first (oldest) match added. */
  oldestSeq: number | undefined;
  /** The seq of the newest match that was pushed out of the ring, if any was. */
  newestDroppedSeq: number | undefined;

  constructor(private readonly capacity: number) {}

  add(hit: Hit): void {
    this.total++;
    this.oldestSeq ??= hit.seq;
    if (this.slots.length < this.capacity) {
      this.slots.push(hit);
      return;
    }
    this.newestDroppedSeq = this.slots[this.next]!.seq;
    this.slots[this.next] = hit;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The kept matches, newest first. */
  newestFirst(): Hit[] {
    return [...this.slots.slice(this.next), ...this.slots.slice(0, this.next)].reverse();
  }
}

/**
 * `newestFirst` hits reordered for reading: newest message first but, within a message, in
 * the order of its lines, which is how a reader expects to see the lines of one message.
 */
export function byMessageNewestFirst(newestFirst: readonly Hit[]): Hit[] {
  const groups: Hit[][] = [];
  for (const hit of newestFirst) {
    const group = groups.at(-1);
    if (group !== undefined && group[0]!.seq === hit.seq) group.push(hit);
    else groups.push([hit]);
  }
  return groups.flatMap((group) => group.reverse());
}
