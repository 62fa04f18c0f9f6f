import path from 'node:path';
import type { TaskContextManager } from '../store/task-context-manager';
import { AppendLog, appendJsonLine } from '../jsonl/append-log';
import { TASK_FILES } from '../store/contexts-layout';
import { CwbError } from '../errors';
import { activeRecords, type UndoEntry } from './compaction-record';
import { readView } from './read-view';
import { writeCurrent } from './materialize';
import { repairToolPairs } from './tool-pairing';
import { entrySeq, viewTokens } from './view';
import { isoTimestamp } from '../iso-timestamp';

export interface UndoResult {
  /** Every record undone: the one asked for and those that were built on it. */
  undone: number[];
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * Undoes a compaction. Later compactions worked on the context this one produced, so they
 * are undone with it. Nothing is deleted: undone.jsonl records the undo, and current.jsonl
 * is rebuilt from what is still in effect (DESIGN.md §4).
 */
export async function undoCompaction(
  task: TaskContextManager,
  id: number,
  reason = 'undo',
): Promise<UndoResult> {
  const active = activeRecords(task.dir).records;
  const at = active.findIndex((r) => r.id === id);
  if (at < 0)
    throw new CwbError(
      'not_found',
      `compaction ${id} is not in effect in task ${task.uuid} (unknown or already undone)`,
    );
  // The agent's own compaction is what its context was: history, not ours to take back.
  const agents = active.slice(at).filter((r) => r.agent_compaction === true);
  if (agents.length > 0)
    throw new CwbError(
      'bad_input',
      `compaction ${agents[0]!.id} of task ${task.uuid} is the agent's own (${agents[0]!.strategy}): it cannot be undone${agents[0]!.id === id ? '' : `, so neither can compaction ${id} before it`}`,
    );
  const tokensBefore = task.messages.currentTokenCount();
  const undone = active.slice(at).map((r) => r.id);
  markUndone(task.dir, undone, id, reason);
  const tokensAfter = await rebuildCurrent(task);
  return { undone, tokensBefore, tokensAfter };
}

export interface RewindResult extends UndoResult {
  /** The rewind's own record (it can be undone like a compaction). */
  recordId: number;
  hiddenSeqs: number[];
}

/**
 * seed 004 rewind: the context goes back to how it was right after message `seq`.
 * Compactions made after that message are undone (their summaries would describe messages
 * that are no longer there); later messages leave the context but stay in messages.jsonl,
 * and the rewind is itself a record, so it can be undone.
 */
export async function rewindTo(task: TaskContextManager, seq: number): Promise<RewindResult> {
  if (!Number.isInteger(seq) || seq < 1 || seq > task.messages.count) {
    throw new CwbError(
      'bad_input',
      `seq ${seq} is not a message of task ${task.uuid} (it has ${task.messages.count})`,
    );
  }
  const tokensBefore = task.messages.currentTokenCount();
  const active = activeRecords(task.dir).records;
  const first = active.findIndex((r) => r.through_seq >= seq);
  const undone = first < 0 ? [] : active.slice(first).map((r) => r.id);
  if (undone.length) markUndone(task.dir, undone, undone[0]!, `rewind to seq ${seq}`);
  const { view } = readView(task.dir);
  const kept = repairToolPairs(view.filter((e) => (entrySeq(e) ?? 0) <= seq));
  const hiddenSeqs = view.map(entrySeq).filter((s): s is number => s !== undefined && s > seq);
  const recordId = task.recordSummary({
    strategy: 'rewind',
    start_seq: seq + 1,
    end_seq: task.messages.count,
    summary: `Rewound to message ${seq}: ${hiddenSeqs.length} later messages left the context${undone.length ? `; compactions ${undone.join(', ')} undone` : ''}.`,
    original_tokens: viewTokens(view) - viewTokens(kept),
    summary_tokens: 0,
    compressed_message_count: hiddenSeqs.length,
    extra: {
      plan: kept.map((e) => e.item),
      through_seq: task.messages.count,
      tokens_before: tokensBefore,
      tokens_after: viewTokens(kept),
      replaced_seqs: hiddenSeqs,
      changed_seqs: [],
      created_seqs: [],
      run_id: `rewind-${seq}`,
      params: { seq },
    },
  });
  await writeCurrent(task.messages.currentPath, kept);
  task.messages.currentReplaced();
  return { recordId, undone, hiddenSeqs, tokensBefore, tokensAfter: viewTokens(kept) };
}

function markUndone(dir: string, ids: readonly number[], asked: number, reason: string): void {
  const log = new AppendLog(path.join(dir, TASK_FILES.undone));
  try {
    const now = isoTimestamp();
    for (const id of ids) {
      const entry: UndoEntry = {
        id,
        undone_at: now,
        reason: id === asked ? reason : `${reason} (built on compaction ${asked})`,
      };
      appendJsonLine(log, entry);
    }
  } finally {
    log.close();
  }
}

/** current.jsonl from what is in effect now. */
async function rebuildCurrent(task: TaskContextManager): Promise<number> {
  const view = repairToolPairs(readView(task.dir).view);
  await writeCurrent(task.messages.currentPath, view);
  task.messages.currentReplaced();
  return viewTokens(view);
}
