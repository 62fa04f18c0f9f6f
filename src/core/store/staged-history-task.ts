import fs from 'node:fs';
import type { NewTaskRow, TaskIndex } from '../db/task-index';
import { CwbError } from '../errors';

/**
 * A new history task (another agent's session read by the sources' sync) while it is being
 * written: its folder, with metadata.json, under a staging name that no task folder has
 * (contexts-layout.ts stagingDir), and the row it will have. Nothing lists it yet.
 *
 * Its row goes into the index and its folder takes its uuid together, in one write
 * transaction (publish): for the sync, the one that commits the session file's offset, so a
 * task appears complete, its figures and descriptions with it, or not at all. Its files are
 * written before, outside any transaction: other writers of tasks.db (the other threads of a
 * parallel sync, other processes) never wait for them.
 */
export class StagedHistoryTask {
  private renamed = false;

  constructor(
    private readonly repo: TaskIndex,
    /** The row as the task was staged with (publish's `insert` may write it with more). */
    readonly row: NewTaskRow,
    /** Where its files are written until it is published. */
    readonly staging: string,
    /** Its folder once published. */
    readonly dir: string,
  ) {}

  get uuid(): string {
    return this.row.uuid;
  }

  /**
   * Writes its row (`insert`, by default the staged row as it is) and gives its folder its
   * uuid, in a write transaction (the caller's, when it is in one). Its files must be closed
   * (a folder with open files cannot be renamed on Windows).
   */
  publish(insert: (row: NewTaskRow) => void = (row) => this.repo.insert(row)): void {
    this.repo.write(() => {
      if (this.repo.get(this.uuid))
        throw new CwbError('conflict', `a task with id ${this.uuid} exists already`);
      insert(this.row);
      // A folder of that uuid already there (left without a row): an error, as mkdir's.
      if (fs.existsSync(this.dir))
        throw new CwbError('conflict', `a task folder ${this.dir} exists already`);
      fs.renameSync(this.staging, this.dir);
      this.renamed = true;
    });
  }

  /**
   * Removes the task's folder when its row was never committed: a sync that failed before
   * its commit, or whose commit rolled back after publish had renamed the folder (the next
   * sync makes the task again). A folder whose row is in the index stays: on a fleet's index
   * the row is committed apart from the sync's own transaction, and the next sync goes on
   * with the task as it does with any it finds (so does one whose row cannot be looked up).
   */
  discard(): void {
    if (this.renamed) {
      let rowThere = true;
      try {
        rowThere = this.repo.get(this.uuid) !== undefined;
      } catch {
        // left for recovery, which follows the row
      }
      if (rowThere) return;
    }
    fs.rmSync(this.renamed ? this.dir : this.staging, { recursive: true, force: true });
    this.renamed = false;
  }
}
