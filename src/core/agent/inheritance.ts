import path from 'node:path';
import type { PlanningEntry, TaskKey, TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { readFinalSummary } from '../store/final-summary';
import { lastPlanningEntries } from '../store/planning-store';
import { TASK_FILES } from '../store/contexts-layout';
import { estimateTokens } from '../tokens/estimate';
import { isoTimestamp } from '../iso-timestamp';

/** Planning entries carried over from the previous run (the newest ones). */
const PLANNING_ENTRIES = 10;

/** seed 001 §9.2: what the next run of the same task inherits. */
export interface InheritanceContext {
  uuid: string;
  status: string;
  completed_at: string | null;
  final_summary: string;
  planning_history: PlanningEntry[];
}

export interface InheritanceOptions {
  enabled: boolean;
  max_summary_tokens: number;
  expiry_days: number;
}

/** A task with an empty key is "no particular work": it never inherits, or every keyless task would chain to the last one. */
export function hasKey(key: TaskKey): boolean {
  return Boolean(key.task_source || key.owner || key.repo || key.task_type || key.task_id);
}

/**
 * seed 001 §8.2–8.3: the newest completed or failed task with the same key that ended
 * within `expiry_days`, with its final summary and last planning entries.
 */
export function findInheritance(
  store: ContextStore,
  key: TaskKey,
  options: InheritanceOptions,
  now = new Date(),
): InheritanceContext | undefined {
  if (!options.enabled || !hasKey(key)) return undefined;
  const since = isoTimestamp(new Date(now.getTime() - options.expiry_days * 86_400_000));
  const previous: TaskRow | undefined = store.repo.findPreviousByKey(key, since);
  if (!previous) return undefined;
  const dir = store.taskPath(previous);
  return {
    uuid: previous.uuid,
    status: previous.status,
    completed_at: previous.completed_at,
    final_summary: truncateToTokens(readFinalSummary(dir) ?? '', options.max_summary_tokens),
    planning_history: lastPlanningEntries(path.join(dir, TASK_FILES.planning), PLANNING_ENTRIES),
  };
}

/** seed 001 §8.4: the initial message — previous summary, planning history, how to continue. */
export function inheritanceMessage(ctx: InheritanceContext, maxSummaryTokens: number): string {
  const plans = ctx.planning_history
    .map((p) => `- [${p.created_at}] (${p.plan_type}) ${p.plan_content}`)
    .join('\n');
  const text = [
    `This task continues earlier work (task ${ctx.uuid}, ${ctx.status}${ctx.completed_at ? ` at ${ctx.completed_at}` : ''}).`,
    '',
    'Summary of the previous run:',
    ctx.final_summary || '(the previous run left no summary)',
    ...(plans ? ['', 'Its plan, most recent last:', plans] : []),
    '',
    'Continue from where it stopped: check what is already done before redoing it.',
  ].join('\n');
  return truncateToTokens(text, maxSummaryTokens + 500);
}

/** seed 001 §8.5: a short notice for the user that context was inherited. */
export function inheritanceNotice(ctx: InheritanceContext): string {
  return `Inherited context from task ${ctx.uuid} (${ctx.status}${ctx.completed_at ? `, ended ${ctx.completed_at}` : ''}): its final summary and ${ctx.planning_history.length} plan entries.`;
}

/** seed 001 §8.11: cut to the token budget (by the seed estimate) and say so. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(text.slice(0, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}\n[… cut to ${maxTokens} tokens]`;
}
