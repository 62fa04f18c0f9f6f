import path from 'node:path';
import type { PlanningEntry } from '../../shared/task-types';
import { RecordLog } from './record-log';
import { TASK_FILES } from './contexts-layout';
import { readLastLines } from '../jsonl/tail';
import { isoTimestamp } from '../iso-timestamp';

/** planning.jsonl (seed 001 §11.5): how the plan changed over the task. */
export class PlanningStore {
  private readonly log: RecordLog<PlanningEntry>;

  /** `lazy`: the file is made at the first record (RecordLog). */
  constructor(dir: string, fsync = false, lazy = false) {
    this.log = new RecordLog<PlanningEntry>(path.join(dir, TASK_FILES.planning), 'id', fsync, lazy);
  }

  add(planType: string, planContent: string): PlanningEntry {
    return this.log.append((id) => ({
      id,
      plan_type: planType,
      plan_content: planContent,
      created_at: isoTimestamp(),
    }));
  }

  /** The newest `n` entries, oldest first. */
  last(n: number): PlanningEntry[] {
    return lastPlanningEntries(this.log.file, n);
  }

  count(): number {
    return this.log.count();
  }

  list(offset?: number, limit?: number): ReturnType<RecordLog<PlanningEntry>['list']> {
    return this.log.list(offset, limit);
  }

  close(): void {
    this.log.close();
  }
}

/** The newest `n` entries of a planning.jsonl, oldest first, read from the end (used by inheritance too). */
export function lastPlanningEntries(file: string, n: number): PlanningEntry[] {
  const out: PlanningEntry[] = [];
  let lines: string[];
  try {
    lines = readLastLines(file, n);
  } catch (err) {
    // A task that never planned may have no planning.jsonl (RecordLog's lazy files).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as PlanningEntry);
    } catch {
      // skipped: list() reports malformed lines with their line numbers
    }
  }
  return out;
}
