import path from 'node:path';
import type { CurrentMessage, MessageRecord } from '../../shared/task-types';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { allRecords } from './compaction-record';
import { entryFromRecord, type ViewEntry } from './view';

/**
 * The points of a task where a compaction happened, or could have: the context just before
 * (the prefix), what the agent did after it, and — where the agent compacted itself — the
 * new context it wrote. "Needed next" (FRR) and the what-if runs of `cwb eval-compaction`
 * are measured on these. Read from messages.jsonl alone, so they work for imported and
 * synced sessions whose records carry no plan.
 */
export interface CompactionPoint {
  /** The agent's compaction record, or undefined for a what-if point. */
  recordId?: number;
  strategy?: string;
  /** The span of messages the context held before the point, by seq. */
  startSeq: number;
  endSeq: number;
  /** The context just before the point (reasoning left out: the model is not shown it). */
  prefix: ViewEntry[];
  /** The new context the agent itself wrote (its summary message), when it compacted. */
  agentContext?: ViewEntry[];
  /** The agent's own figure of its context before compacting (Claude Code's preTokens). */
  agentPreTokens?: number;
  /** What followed, up to the next compaction or the end. */
  after: CurrentMessage[];
  /** Why the point is measured as it is (a boundary with no summary, nothing after it). */
  notes: string[];
}

/** Every message of the task's history, oldest first (malformed lines skipped). */
export function readHistory(dir: string): MessageRecord[] {
  const out: MessageRecord[] = [];
  const file = path.join(dir, TASK_FILES.messages);
  for (const line of readLinesSync(file, { firstLineNo: 1 })) {
    if (!('text' in line) || line.partial) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    const record = asMessageRecord(value);
    if (record.ok) out.push(record.value);
  }
  return out;
}

function isShown(r: MessageRecord): boolean {
  return !(r.role === 'assistant' && r.name === 'reasoning');
}

function messageOf(r: MessageRecord): CurrentMessage {
  return entryFromRecord(r).message;
}

/** Compactions an agent made itself (imported or synced records), in order. */
export function agentCompactionPoints(dir: string): CompactionPoint[] {
  const records = allRecords(dir).filter((r) => r.imported === true && !r.undone);
  if (records.length === 0) return [];
  const history = readHistory(dir);
  const bySeq = new Map(history.map((r) => [r.seq, r]));
  return records.map((record, i) => {
    const notes: string[] = [];
    const summary = bySeq.get(record.end_seq + 1);
    const hasSummary = summary?.kind === 'summary';
    if (!hasSummary || !record.summary) notes.push('the agent wrote no summary at this point');
    const next = records[i + 1];
    const afterEnd = next ? next.end_seq : Number.MAX_SAFE_INTEGER;
    const afterStart = hasSummary ? record.end_seq + 2 : record.end_seq + 1;
    const prefix = history
      .filter((r) => r.seq >= record.start_seq && r.seq <= record.end_seq && isShown(r))
      .map((r) => entryFromRecord(r));
    if (prefix.length === 0) notes.push('the compaction came before any message');
    const after = history
      .filter((r) => r.seq >= afterStart && r.seq <= afterEnd && r.kind !== 'summary')
      .map(messageOf);
    if (!after.some((m) => m.role === 'assistant'))
      notes.push('the agent did nothing after it: nothing to measure recall on');
    const pre = typeof record.pre_tokens === 'number' ? record.pre_tokens : undefined;
    return {
      recordId: record.id,
      strategy: record.strategy,
      startSeq: record.start_seq,
      endSeq: record.end_seq,
      prefix,
      ...(hasSummary && { agentContext: [entryFromRecord(summary)] }),
      ...(pre !== undefined && { agentPreTokens: pre }),
      after,
      notes,
    };
  });
}

/**
 * A what-if point at `seq`: the context then (from the last summary at or before it, or the
 * start) and what followed up to the next summary or the end.
 */
export function pointAt(dir: string, seq: number): CompactionPoint {
  const history = readHistory(dir);
  const upTo = history.filter((r) => r.seq <= seq);
  const lastSummary = upTo.findLast((r) => r.kind === 'summary');
  const start = lastSummary?.seq ?? 1;
  const prefix = upTo.filter((r) => r.seq >= start && isShown(r)).map((r) => entryFromRecord(r));
  const after: CurrentMessage[] = [];
  for (const r of history) {
    if (r.seq <= seq) continue;
    if (r.kind === 'summary') break;
    after.push(messageOf(r));
  }
  const notes = after.some((m) => m.role === 'assistant')
    ? []
    : ['the agent did nothing after this point: nothing to measure recall on'];
  return { startSeq: start, endSeq: seq, prefix, after, notes };
}
