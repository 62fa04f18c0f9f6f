import type { CompactionRecord } from '../compaction/compaction-record';

/**
 * What a batched MessageStore holding a new session whole (the first sync of a session file)
 * knows of each message's current.jsonl line: where it starts among the held lines and how
 * long it is (-1: the message has none, it was history-only), its tokens as current.jsonl's
 * total counts them (NaN: a line that would not read back as it was written — calls not in a
 * tool call's shape, a line past the readers' limit), and whether a compaction made the
 * message. When the agent's own compactions are marked (MessageStore.flagHeld),
 * current.jsonl is made from these lines: the same bytes readView would give, without reading
 * the view back from messages.jsonl and parsing every line twice (a tenth of a first sync).
 */
export class HeldCurrentLines {
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly tokens: number[] = [];
  private readonly made = new Set<number>();

  get count(): number {
    return this.starts.length;
  }

  /** Message `seq` (the next one) with its line, or without one (`start` -1). */
  add(seq: number, start: number, length: number, tokens: number, byCompaction: boolean): void {
    if (seq !== this.starts.length + 1) throw new Error(`held line ${seq} after ${this.count}`);
    this.starts.push(start);
    this.lengths.push(length);
    this.tokens.push(tokens);
    if (byCompaction) this.made.add(seq);
  }

  /**
   * current.jsonl for the view of the held messages, as readView builds it: the plan of the
   * newest compaction in effect (`latest`), then every later message no compaction made and
   * not history-only. Undefined when an entry is not a held line as the view reads it (an
   * inline entry, other content, a message without a line or whose line reads back otherwise):
   * the caller reads the view back instead.
   */
  viewOf(
    held: Buffer,
    latest: CompactionRecord | undefined,
    historyOnly: (seq: number) => boolean,
  ): { lines: Buffer; count: number; tokens: number } | undefined {
    const seqs: number[] = [];
    for (const item of latest?.plan ?? []) {
      if ('inline' in item || item.content !== undefined) return undefined;
      if (item.seq >= 1 && item.seq <= this.count) seqs.push(item.seq);
    }
    for (let seq = (latest?.through_seq ?? 0) + 1; seq <= this.count; seq++)
      if (!this.made.has(seq) && !historyOnly(seq)) seqs.push(seq);
    const parts: Buffer[] = [];
    let tokens = 0;
    for (const seq of seqs) {
      const start = this.starts[seq - 1]!;
      const counted = this.tokens[seq - 1]!;
      if (start < 0 || Number.isNaN(counted)) return undefined;
      tokens += counted;
      parts.push(held.subarray(start, start + this.lengths[seq - 1]!));
    }
    return { lines: Buffer.concat(parts), count: seqs.length, tokens };
  }

  /** Whether message `seq` was appended without a current.jsonl line (history-only). */
  lineless(seq: number): boolean {
    return this.starts[seq - 1] === -1;
  }
}
