import type { NeededNextInfo } from '../../shared/needed-next-info';
import { NEEDED_LOST_LISTED } from '../../shared/needed-next-info';
import type { CurrentMessage, TaskRow } from '../../shared/task-types';
import type { AppConfig } from '../config/app-config';
import { PriceBook } from '../cost/price-book';
import {
  futureReferenceRecall,
  neededNext,
  reReadsAfter,
  type NeededFact,
} from '../facts/needed-next';
import type { CompactionRecord } from './compaction-record';
import { agentCompactionPoints, readHistory, type CompactionPoint } from './compaction-points';
import { neededAt, scoreCandidateAt } from './needed-next-eval';
import { contextText } from './summary-ledger';
import { contextWindowOf } from './task-compaction';
import { entryFromRecord, viewTokens, type ViewEntry } from './view';

/**
 * FRR of one compaction record, for the diff page and the API. An agent's own compaction is
 * scored as `cwb eval-compaction --agent-compactions` scores it (its summary against what the
 * agent typed next) with the workbench's pipeline run offline on the same prefix beside it;
 * one of ours is scored on the two contexts the diff shows.
 */
export async function neededNextOfRecord(
  dir: string,
  task: TaskRow,
  config: AppConfig,
  record: CompactionRecord,
  around: { before: readonly ViewEntry[]; after: readonly ViewEntry[] },
): Promise<NeededNextInfo> {
  if (record.imported === true) {
    const point = agentCompactionPoints(dir).find((p) => p.recordId === record.id);
    if (point) return agentInfo(dir, task, config, point);
  }
  const through = typeof record.through_seq === 'number' ? record.through_seq : record.end_seq;
  const after: CurrentMessage[] = [];
  for (const r of readHistory(dir)) {
    if (r.seq <= through) continue;
    if (r.kind === 'summary') break;
    after.push(entryFromRecord(r).message);
  }
  const prefix = around.before.map((e) => e.message);
  const needed = neededNext(prefix, after);
  return info(
    needed,
    contextText(around.after),
    around.before,
    around.after,
    prefix,
    after,
    task,
    notesOf(after),
  );
}

/** FRR of a dry run at a past point: its new context against what the agent did next. */
export function neededNextOfRun(
  point: CompactionPoint,
  run: { view: readonly ViewEntry[]; tokensBefore: number },
  task: TaskRow,
): NeededNextInfo {
  const prefix = point.prefix.map((e) => e.message);
  const out = info(
    neededAt(point),
    contextText(run.view),
    point.prefix,
    run.view,
    prefix,
    point.after,
    task,
    point.notes,
  );
  // The run's own figure: it starts from the prefix with its tool pairs repaired.
  return { ...out, tokensBefore: run.tokensBefore };
}

async function agentInfo(
  dir: string,
  task: TaskRow,
  config: AppConfig,
  point: CompactionPoint,
): Promise<NeededNextInfo> {
  const needed = neededAt(point);
  const agentContext = point.agentContext ?? [];
  const out = info(
    needed,
    contextText(agentContext),
    point.prefix,
    agentContext,
    point.prefix.map((e) => e.message),
    point.after,
    task,
    point.notes,
  );
  if (task.agent) out.agent = task.agent;
  if (point.prefix.length === 0) return out;
  const ours = await scoreCandidateAt(
    dir,
    config,
    contextWindowOf(task, config),
    point,
    config.compaction.pipeline,
    needed,
  );
  out.pipeline = {
    label: ours.label,
    applied: ours.applied,
    kept: ours.kept,
    frr: ours.frr,
    tokensAfter: ours.tokensAfter,
  };
  return out;
}

function info(
  needed: readonly NeededFact[],
  newContext: string,
  before: readonly ViewEntry[],
  after: readonly ViewEntry[],
  prefix: readonly CurrentMessage[],
  next: readonly CurrentMessage[],
  task: TaskRow,
  notes: readonly string[],
): NeededNextInfo {
  const recall = futureReferenceRecall(needed, newContext);
  const reReads = reReadsAfter(prefix, next);
  const cost = new PriceBook().costOf(
    {
      input_tokens: reReads.tokens,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
    },
    task.model,
  );
  return {
    needed: recall.needed,
    kept: recall.kept,
    frr: recall.frr,
    lost: recall.lost.slice(0, NEEDED_LOST_LISTED),
    tokensBefore: viewTokens(before),
    tokensAfter: viewTokens(after),
    reReads: {
      count: reReads.count,
      tokens: reReads.tokens,
      costUsd: cost.usd,
      examples: reReads.examples,
    },
    notes: [...notes],
  };
}

function notesOf(after: readonly CurrentMessage[]): string[] {
  return after.some((m) => m.role === 'assistant')
    ? []
    : ['the agent did nothing after it: nothing to measure recall on'];
}
