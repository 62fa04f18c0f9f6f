/**
 * Cline's `use_subagents` runs (cline/cline, `SubagentToolHandler.ts` and `SubagentRunner.ts`
 * before its SDK migration): up to five read-only subagents run in memory, each on its own
 * prompt; their conversations are never written to disk. What the task folder keeps of them:
 *
 * - the history: the parent's `use_subagents` tool_use (`prompt_1` … `prompt_5`) answered by
 *   one tool_result, `[subagents] Result:` and a summary with each run's result (cut to 1200
 *   characters);
 * - `ui_messages.json`: a `say: "subagent"` row (updated in place as they run, one per call)
 *   whose JSON lists every subagent (`items`: index, prompt, status, toolCalls, inputTokens,
 *   outputTokens, totalCost, result or error), then `say: "subagent_usage"` with the totals.
 *
 * Each finished subagent becomes a session of its own under the task (a subagent task): the
 * prompt it was given, its whole result, and its usage. Runs still going (`status` running,
 * read while Cline writes) are left for a later read: their keys are stable, so a sync adds
 * them once they end.
 */
import type { SessionEvent, SessionMeta } from './session-format';
import { asNumber, asString, isRecord, normalizeTimestamp } from './text';

interface SubagentItem {
  index: number;
  prompt: string;
  status: string;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalCost?: number;
  result?: string;
  error?: string;
}

/** One use_subagents call as its final status row shows it. */
interface SubagentRun {
  /** The status row's `ts`: stable across the in-place updates, so it keys the run. */
  ts: number;
  /** When the run ended: the `subagent_usage` row after it, else the status row. */
  endTs: number;
  items: SubagentItem[];
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // a row written partly: not a finished run
  }
}

function item(value: unknown): SubagentItem | undefined {
  if (!isRecord(value) || typeof value.prompt !== 'string') return undefined;
  return {
    index: asNumber(value.index),
    prompt: value.prompt,
    status: asString(value.status) ?? '',
    toolCalls: asNumber(value.toolCalls),
    inputTokens: asNumber(value.inputTokens),
    outputTokens: asNumber(value.outputTokens),
    ...(typeof value.totalCost === 'number' && { totalCost: value.totalCost }),
    ...(typeof value.result === 'string' && { result: value.result }),
    ...(typeof value.error === 'string' && { error: value.error }),
  };
}

/** The finished use_subagents runs of a task's ui_messages.json rows, in order. */
export function subagentRuns(ui: unknown): SubagentRun[] {
  if (!Array.isArray(ui)) return [];
  const runs = new Map<number, SubagentRun>();
  let last: SubagentRun | undefined;
  for (const row of ui) {
    if (!isRecord(row) || row.type !== 'say' || typeof row.ts !== 'number') continue;
    if (row.say === 'subagent_usage' && last) last.endTs = row.ts;
    if (row.say !== 'subagent') continue;
    const status = parseJson(row.text);
    if (!isRecord(status) || !Array.isArray(status.items)) continue;
    const items = status.items.map(item).filter((i): i is SubagentItem => i !== undefined);
    last = { ts: row.ts, endTs: row.ts, items };
    runs.set(row.ts, last); // updated in place: the last row of a ts holds
  }
  return [...runs.values()];
}

/** Each finished subagent of the runs as a subagent session of the task `parent`. */
export function* subagentEvents(
  parent: SessionMeta & { sessionId: string },
  runs: readonly SubagentRun[],
): Generator<SessionEvent> {
  for (const run of runs) {
    for (const sub of run.items) {
      if (sub.status !== 'completed' && sub.status !== 'failed') continue;
      const key = `subagent:${run.ts}:${sub.index}`;
      const startedAt = normalizeTimestamp(run.ts);
      const endedAt = normalizeTimestamp(run.endTs);
      yield {
        kind: 'session',
        key,
        meta: {
          agent: parent.agent,
          sessionId: `${parent.sessionId}-subagent-${run.ts}-${sub.index}`,
          parentSessionId: parent.sessionId,
          firstRequest: sub.prompt,
          ...(parent.model !== undefined && { model: parent.model }),
          ...(parent.cwd !== undefined && { cwd: parent.cwd }),
          ...(parent.gitRemote !== undefined && { gitRemote: parent.gitRemote }),
          ...(startedAt !== undefined && { startedAt }),
          ...(endedAt !== undefined && { endedAt }),
          extra: {
            subagent_tool_calls: sub.toolCalls,
            ...(sub.totalCost !== undefined && { agent_cost_usd: sub.totalCost }),
          },
        },
      };
      yield {
        kind: 'message',
        key: `${key}/prompt`,
        message: { role: 'user', content: sub.prompt, ...(startedAt && { timestamp: startedAt }) },
      };
      const answer =
        sub.status === 'completed'
          ? (sub.result ?? '')
          : `Subagent failed: ${sub.error ?? 'no error given'}`;
      yield {
        kind: 'message',
        key: `${key}/result`,
        message: { role: 'assistant', content: answer, ...(endedAt && { timestamp: endedAt }) },
      };
      // The runner's own requests are not on disk, only their sums (Anthropic's uncached input).
      if (sub.inputTokens > 0 || sub.outputTokens > 0)
        yield {
          kind: 'usage',
          key: `${key}/usage`,
          usage: { input_tokens: sub.inputTokens, output_tokens: sub.outputTokens },
        };
    }
  }
}
