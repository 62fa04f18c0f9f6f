import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import { OffsetIndex } from '../jsonl/offset-index';
import { TASK_FILES } from './contexts-layout';
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

/**
 * Reads a task without writing anything, so it is safe while the task's own process is
 * appending: a last line still being written is simply not returned, and the offset index
 * is never repaired from here (only kept in memory for this reader).
 */
export class TaskReader {
  constructor(
    readonly row: TaskRow,
    readonly dir: string,
  ) {}

  metadata(): Partial<TaskMetadata> | undefined {
    return readMetadata(this.dir);
  }

  finalSummary(): string | undefined {
    return readFinalSummary(this.dir);
  }

  /** Up to `limit` messages from `fromSeq`, through the offset index (kept in memory only). */
  messages(fromSeq: number, limit: number): MessageWindow {
    const file = path.join(this.dir, TASK_FILES.messages);
    const index = OffsetIndex.open(file, path.join(this.dir, TASK_FILES.messagesIndex), {
      readonly: true,
    });
    try {
      return readMessageWindow(file, index, fromSeq, limit);
    } finally {
      index.close();
    }
  }

  /** Lines of current.jsonl (what the model sees now), 1-based `fromIndex`. */
  current(fromIndex: number, limit: number): CurrentWindow {
    return readCurrentWindow(path.join(this.dir, TASK_FILES.current), fromIndex, limit);
  }

  summaries(offset = 0, limit = 1000): { records: SummaryRecord[]; bad: BadLine[] } {
    return new RecordLogReader<SummaryRecord>(path.join(this.dir, TASK_FILES.summaries)).list(
      offset,
      limit,
    );
  }

  tools(offset = 0, limit = 1000): { records: ToolRecord[]; bad: BadLine[] } {
    return new RecordLogReader<ToolRecord>(path.join(this.dir, TASK_FILES.tools)).list(
      offset,
      limit,
    );
  }

  planning(offset = 0, limit = 1000): { records: PlanningEntry[]; bad: BadLine[] } {
    return new RecordLogReader<PlanningEntry>(path.join(this.dir, TASK_FILES.planning)).list(
      offset,
      limit,
    );
  }
}
