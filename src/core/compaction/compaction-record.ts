import path from 'node:path';
import type { SummaryRecord, TokenUsage } from '../../shared/task-types';
import type { PlanItem } from './view';
import { RecordLogReader } from '../store/record-log-reader';
import { TASK_FILES } from '../store/contexts-layout';
import type { BadLine } from '../store/message-window';

/**
 * A compaction as summaries.jsonl keeps it: the fields both seeds ask for (id, strategy,
 * start/end seq, summary, token counts, ratio) plus what makes it inspectable and undoable —
 * the plan of the context it produced, the last seq that plan accounts for, and which
 * messages left the context.
 */
export interface CompactionRecord extends SummaryRecord {
  plan: PlanItem[];
  /** Messages up to this seq are accounted for by the plan; later ones follow it as they are. */
  through_seq: number;
  tokens_before: number;
  tokens_after: number;
  /** Seqs that were in the context before and are not now. */
  replaced_seqs: number[];
  /** Seqs of the messages this compaction created (summaries, markers, snapshots). */
  created_seqs: number[];
  /** The pipeline run this step belongs to (steps of one run share it). */
  run_id: string;
  /** Strategy parameters as used. */
  params: Record<string, unknown>;
  /**
   * The same context sizes counted with o200k, on records written before counting moved off
   * the task process (issue #17); tokens_before/after are the seed estimate.
   */
  tokens_before_o200k?: number;
  tokens_after_o200k?: number;
  duration_ms?: number;
  /** Token usage of the model call that wrote the summary, when there was one. */
  llm_usage?: TokenUsage | null;
  /**
   * A compaction the agent made itself, found in its session (import/agent-compaction.ts):
   * created_at is the session's time, `imported` is true, and the agent's own count of the
   * context it compacted (Claude Code's preTokens) is beside our estimates.
   */
  agent_compaction?: true;
  agent_tokens_before?: number;
  /** Which counter made tokens_before/after ("estimate": the seed estimate). */
  token_counter?: string;
  /** Why the record looks as it does (a boundary without a summary, ...). */
  note?: string;
}

export interface UndoEntry {
  id: number;
  undone_at: string;
  reason: string;
}

/** Compaction records not undone, oldest first; malformed lines are reported. */
export function activeRecords(dir: string): { records: CompactionRecord[]; bad: BadLine[] } {
  const summaries = new RecordLogReader<CompactionRecord>(
    path.join(dir, TASK_FILES.summaries),
  ).list(0, Number.MAX_SAFE_INTEGER);
  const undone = new RecordLogReader<UndoEntry>(path.join(dir, TASK_FILES.undone)).list(
    0,
    Number.MAX_SAFE_INTEGER,
  );
  const gone = new Set(undone.records.map((u) => u.id));
  return {
    records: summaries.records.filter((r) => !gone.has(r.id) && Array.isArray(r.plan)),
    bad: [...summaries.bad, ...undone.bad],
  };
}

/** Every compaction record, with whether it is still in effect (for the UI and `cwb compactions`). */
export function allRecords(dir: string): (CompactionRecord & { undone: boolean })[] {
  const summaries = new RecordLogReader<CompactionRecord>(
    path.join(dir, TASK_FILES.summaries),
  ).list(0, Number.MAX_SAFE_INTEGER);
  const undone = new Set(
    new RecordLogReader<UndoEntry>(path.join(dir, TASK_FILES.undone))
      .list(0, Number.MAX_SAFE_INTEGER)
      .records.map((u) => u.id),
  );
  return summaries.records.map((r) => ({ ...r, undone: undone.has(r.id) }));
}
