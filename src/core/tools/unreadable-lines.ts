/** How many unreadable seqs a note names; the rest are only counted. */
const NAMED = 5;

/**
 * Lines of the history that are not messages (damaged by hand or by a crash the store could
 * not repair): skipped by search, but said, so the model knows the search was not complete.
 */
export class UnreadableLines {
  private readonly named: number[] = [];
  private total = 0;

  add(seq: number): void {
    this.total++;
    if (this.named.length < NAMED) this.named.push(seq);
  }

  /** One line for the end of the output, or '' when every line could be read. */
  note(): string {
    if (this.total === 0) return '';
    const more = this.total > this.named.length ? ', …' : '';
    const seqs = this.named.map((seq) => `#${seq}`).join(', ');
    const lines = this.total === 1 ? '1 line' : `${this.total} lines`;
    return `[${lines} of the history could not be read and ${this.total === 1 ? 'was' : 'were'} skipped: ${seqs}${more}]`;
  }
}
