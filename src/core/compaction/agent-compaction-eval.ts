import type { TaskRow } from '../../shared/task-types';
import type { AppConfig } from '../config/app-config';
import type { StrategyName } from '../config/strategy-names';
import { PriceBook } from '../cost/price-book';
import { CwbError } from '../errors';
import type { ContextStore } from '../store/context-store';
import { agentCompactionPoints, pointAt, type CompactionPoint } from './compaction-points';
import {
  neededAt,
  reReadsAt,
  scoreAgentContext,
  scoreCandidateAt,
  type NeededNextScore,
} from './needed-next-eval';
import { contextWindowOf } from './task-compaction';

/**
 * `cwb eval-compaction --agent-compactions`: every compaction an agent made itself in the
 * synced or imported tasks, scored by what the agent needed next (FRR) beside the
 * workbench's default pipeline run offline on the same prefix, with the re-reads the agent
 * paid after it. The JSON rows use these field names.
 */
export interface AgentCompactionRow {
  agent: string;
  task_uuid: string;
  title: string | null;
  record_id: number;
  /** The messages the compaction replaced (its record's range). */
  seq_range: [number, number];
  /** The agent's own count before compacting (Claude Code's preTokens), else our estimate. */
  agent_tokens_before: number;
  agent_tokens_before_counter: 'agent' | 'estimate';
  /** Our estimate of the agent's new context (its summary message). */
  agent_tokens_after: number | null;
  /** Facts the agent typed after the point that the compacted span held. */
  needed: number;
  agent_kept: number | null;
  agent_frr: number | null;
  /** The pipeline run offline on the same prefix (config `compaction.pipeline`). */
  ours_pipeline: string;
  ours_kept: number;
  ours_frr: number | null;
  ours_tokens_before: number;
  ours_tokens_after: number;
  re_reads: { count: number; tokens: number; cost_usd: number | null };
  notes: string[];
}

export interface AgentEvalOptions {
  /** Only tasks of this agent (`claude-code`, `codex`, …). */
  agent?: string;
  pipeline?: readonly StrategyName[];
  signal?: AbortSignal;
}

/** Every agent compaction of the store's tasks, oldest task first. */
export async function evaluateAgentCompactions(
  store: ContextStore,
  config: AppConfig,
  options: AgentEvalOptions = {},
): Promise<AgentCompactionRow[]> {
  const rows: AgentCompactionRow[] = [];
  const book = new PriceBook();
  const { rows: tasks } = store.listTasks({ sort: 'created_at', order: 'asc', limit: 1_000_000 });
  for (const task of tasks) {
    if (options.signal?.aborted) break;
    const agent = task.agent ?? '';
    if (!agent || (options.agent && agent !== options.agent)) continue;
    const dir = store.taskPath(task);
    for (const point of agentCompactionPoints(dir)) {
      rows.push(await evaluatePoint(dir, task, config, point, book, options.pipeline));
    }
  }
  return rows;
}

async function evaluatePoint(
  dir: string,
  task: TaskRow,
  config: AppConfig,
  point: CompactionPoint,
  book: PriceBook,
  pipeline: readonly StrategyName[] = config.compaction.pipeline,
): Promise<AgentCompactionRow> {
  const needed = neededAt(point);
  const agentScore = scoreAgentContext(point, needed);
  const ours = await scoreCandidateAt(
    dir,
    config,
    contextWindowOf(task, config),
    point,
    pipeline,
    needed,
  );
  const reReads = reReadsAt(point);
  const cost = book.costOf(
    {
      input_tokens: reReads.tokens,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
    },
    task.model,
  );
  const notes = [...point.notes];
  if (!ours.applied && ours.reason) notes.push(`the pipeline did nothing: ${ours.reason}`);
  return {
    agent: task.agent ?? '',
    task_uuid: task.uuid,
    title: task.title,
    record_id: point.recordId!,
    seq_range: [point.startSeq, point.endSeq],
    agent_tokens_before: point.agentPreTokens ?? ours.tokensBefore,
    agent_tokens_before_counter: point.agentPreTokens !== undefined ? 'agent' : 'estimate',
    agent_tokens_after: agentScore?.tokensAfter ?? null,
    needed: needed.length,
    agent_kept: agentScore?.kept ?? null,
    agent_frr: agentScore?.frr ?? null,
    ours_pipeline: pipeline.join('+'),
    ours_kept: ours.kept,
    ours_frr: ours.frr,
    ours_tokens_before: ours.tokensBefore,
    ours_tokens_after: ours.tokensAfter,
    re_reads: { count: reReads.count, tokens: reReads.tokens, cost_usd: cost.usd },
    notes,
  };
}

/** `cwb eval-compaction UUID --at SEQ`: every candidate as a what-if at a past point. */
export interface WhatIfReport {
  task_uuid: string;
  at_seq: number;
  start_seq: number;
  needed: number;
  re_reads: { count: number; tokens: number };
  candidates: NeededNextScore[];
  notes: string[];
}

export async function evaluateWhatIf(
  store: ContextStore,
  config: AppConfig,
  uuid: string,
  seq: number,
  candidates: readonly (readonly StrategyName[])[],
): Promise<WhatIfReport> {
  const task = store.requireTask(uuid);
  const dir = store.taskPath(task);
  const last = task.total_messages;
  if (seq > last)
    throw new CwbError('bad_input', `--at ${seq}: task ${uuid} has ${last} messages (#1–#${last})`);
  const point = pointAt(dir, seq);
  const needed = neededAt(point);
  const window = contextWindowOf(task, config);
  const scores: NeededNextScore[] = [];
  for (const candidate of candidates) {
    scores.push(await scoreCandidateAt(dir, config, window, point, candidate, needed));
  }
  const reReads = reReadsAt(point);
  return {
    task_uuid: uuid,
    at_seq: seq,
    start_seq: point.startSeq,
    needed: needed.length,
    re_reads: { count: reReads.count, tokens: reReads.tokens },
    candidates: scores,
    notes: point.notes,
  };
}
