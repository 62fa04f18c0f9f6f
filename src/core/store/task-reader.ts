import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import { OffsetIndex } from '../jsonl/offset-index';
import { STATUS_FOLDERS, TASK_FILES } from './contexts-layout';
import {
  readCurrentWindow,
  readMessageWindow,
  type BadLine,
  type CurrentWindow,
  type MessageWindow,
} from './message-window';
import { readFinalSummary } from './final-summary';
import { readMetadata, type TaskMetadata } from './task-metadata';
import { RecordLogReader } from './record-log-reader';
import type { PlanningEntry, SummaryRecord, ToolRecord } from '../../shared/task-types';

/** Reads tried again after the task's folder moved under them (a status change in between). */
const MOVE_RETRIES = 3;

/**
 * Reads a task without writing anything, so it is safe while the task's own process is
 * appending: a last line still being written is simply not returned, and the offset index
 * is never repaired from here (only kept in memory for this reader).
 *
 * The folder is resolved when a read happens, not when the reader was made: the task's
 * process may change its status (and rename running/<uuid> to paused/ or completed/) at any
 * moment, and the rename comes before the row's commit, so no read transaction can pin it.
 * A read that finds the folder gone, or that sees it go while reading, looks the uuid up in
 * the status folders again and reads from there.
 */
export class TaskReader {
  private resolved: string;

  constructor(
    readonly row: TaskRow,
    dir: string,
  ) {
    this.resolved = dir;
  }

  /** The task's folder now. */
  get dir(): string {
    if (fs.existsSync(this.resolved)) return this.resolved;
    const root = path.dirname(path.dirname(this.resolved));
    for (const folder of STATUS_FOLDERS) {
      const candidate = path.join(root, folder, this.row.uuid);
      if (fs.existsSync(candidate)) {
        this.resolved = candidate;
        break;
      }
    }
    return this.resolved;
  }

  metadata(): Partial<TaskMetadata> | undefined {
    return this.read((dir) => readMetadata(dir));
  }

  finalSummary(): string | undefined {
    return this.read((dir) => readFinalSummary(dir));
  }

  /** Up to `limit` messages from `fromSeq`, through the offset index (kept in memory only). */
  messages(fromSeq: number, limit: number): MessageWindow {
    return this.read((dir) => {
      const file = path.join(dir, TASK_FILES.messages);
      const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), {
        readonly: true,
      });
      try {
        return readMessageWindow(file, index, fromSeq, limit);
      } finally {
        index.close();
      }
    });
  }

  /** Lines of current.jsonl (what the model sees now), 1-based `fromIndex`. */
  current(fromIndex: number, limit: number): CurrentWindow {
    return this.read((dir) =>
      readCurrentWindow(path.join(dir, TASK_FILES.current), fromIndex, limit),
    );
  }

  summaries(offset = 0, limit = 1000): { records: SummaryRecord[]; bad: BadLine[] } {
    return this.read((dir) =>
      new RecordLogReader<SummaryRecord>(path.join(dir, TASK_FILES.summaries)).list(offset, limit),
    );
  }

  /** tools.jsonl records, with `result` read back from messages.jsonl where a record refers to it. */
  tools(offset = 0, limit = 1000): { records: ToolRecord[]; bad: BadLine[] } {
    return this.read((dir) => {
      const listed = new RecordLogReader<ToolRecord>(path.join(dir, TASK_FILES.tools)).list(
        offset,
        limit,
      );
      const referring = listed.records.filter(
        (r) => r.result === null && typeof r.result_seq === 'number',
      );
      if (referring.length === 0) return listed;
      const file = path.join(dir, TASK_FILES.messages);
      const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex), {
        readonly: true,
      });
      try {
        for (const record of referring) {
          const message = readMessageWindow(file, index, record.result_seq!, 1).messages[0];
          if (message?.seq === record.result_seq) record.result = message.content;
        }
      } finally {
        index.close();
      }
      return listed;
    });
  }

  planning(offset = 0, limit = 1000): { records: PlanningEntry[]; bad: BadLine[] } {
    return this.read((dir) =>
      new RecordLogReader<PlanningEntry>(path.join(dir, TASK_FILES.planning)).list(offset, limit),
    );
  }

  /**
   * Runs a read in the task's folder. A folder that moved during the read may have given
   * nothing (a missing file reads as empty) or ENOENT: the read is made again where the
   * folder is now.
   */
  private read<T>(work: (dir: string) => T): T {
    for (let attempt = 1; ; attempt++) {
      const dir = this.dir;
      try {
        const result = work(dir);
        if (attempt >= MOVE_RETRIES || fs.existsSync(dir)) return result;
      } catch (err) {
        const gone = (err as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(dir);
        if (!gone || attempt >= MOVE_RETRIES) throw err;
      }
    }
  }
}
