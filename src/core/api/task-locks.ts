import { CwbError } from '../errors';

/**
 * Tasks this host is changing right now (compaction, undo, rewind). A second change, or a
 * resume that would start a process writing the same files, waits for none: it is refused.
 */
export class TaskLocks {
  private readonly busy = new Map<string, string>();

  isBusy(uuid: string): boolean {
    return this.busy.has(uuid);
  }

  assertFree(uuid: string): void {
    const what = this.busy.get(uuid);
    if (what)
      throw new CwbError('conflict', `task ${uuid} is busy (${what}); try again when it ends`);
  }

  async run<T>(uuid: string, what: string, fn: () => Promise<T>): Promise<T> {
    this.assertFree(uuid);
    this.busy.set(uuid, what);
    try {
      return await fn();
    } finally {
      this.busy.delete(uuid);
    }
  }
}
