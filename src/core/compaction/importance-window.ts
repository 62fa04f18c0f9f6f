import { LEDGER_DEFAULTS, type LedgerBudget } from '../facts/fact-ledger-budget';
import { withFactLedger } from './summary-ledger';
import { buildSnapshot, formatSnapshot, isSnapshotEntry } from './context-snapshot';
import { splitSystem } from './format-messages';
import { importanceScore } from './importance';
import { pruneJsonText, type JsonPruneLimits } from './json-prune';
import type { ContextStats, Strategy, StrategyContext, StrategyResult } from './strategy';
import { safeCut } from './tool-pairing';
import { createdEntry, viewTokens, withContent, type ViewEntry } from './view';

/**
 * Seed 003 sliding window: the newest messages always stay, the most important older ones
 * fill the rest of the window, everything is put back in time order, large JSON outputs are
 * shown pruned, and a ContextSnapshot tells the model what the dropped messages established.
 * Parameter names are the seed's HISTORY_CONFIG in snake case.
 */
export interface ImportanceWindowParams {
  /** The most messages the context holds after a run, system prompt and snapshot included. */
  max_messages: number;
  /** Share of max_messages always kept from the newest end (seed: 40 %). */
  recent_ratio: number;
  /** Longest string kept inside a pruned JSON output. */
  max_text_chars: number;
  /** Tool outputs longer than this (characters) are pruned when they are JSON. */
  max_data_chars: number;
  max_ui_nodes: number;
  max_ui_depth: number;
  max_ui_children: number;
  noisy_fields: string[];
  /** How large the fact ledger under the snapshot may grow (config `compaction.fact_ledger`). */
  fact_ledger: LedgerBudget;
}

export const IMPORTANCE_WINDOW_DEFAULTS: ImportanceWindowParams = {
  max_messages: 24,
  recent_ratio: 0.4,
  max_text_chars: 1000,
  max_data_chars: 2000,
  max_ui_nodes: 200,
  max_ui_depth: 2,
  max_ui_children: 20,
  noisy_fields: ['description', 'help'],
  fact_ledger: LEDGER_DEFAULTS,
};

/** Messages an earlier compaction wrote (summaries) carry what was already dropped: kept first. */
const SUMMARY_SCORE = 2;

export const importanceWindow: Strategy<ImportanceWindowParams> = {
  name: 'importance-window',

  // The window holds max_messages lines in all after a run, so this stays false until new
  // messages push the context past it again.
  needed(stats: ContextStats, params: ImportanceWindowParams): boolean {
    return stats.messageCount > params.max_messages;
  },

  // async so that an unexpected failure rejects instead of throwing
  async run(ctx: StrategyContext, params: ImportanceWindowParams): Promise<StrategyResult> {
    return slide(ctx, params);
  },
};

/** A message, or an assistant message with its tool results: kept or dropped as one. */
interface Unit {
  start: number;
  end: number;
  score: number;
}

function slide(ctx: StrategyContext, params: ImportanceWindowParams): StrategyResult {
  const { system, rest } = splitSystem(ctx.view);
  const messages = rest.filter((e) => !isSnapshotEntry(e));
  // the snapshot takes one place in the window; the system prompt is always there
  const room = Math.max(0, params.max_messages - system.length - 1);

  const keep = messages.length <= room ? messages.map(() => true) : choose(messages, room, params);
  const kept = messages.filter((_, i) => keep[i]);
  if (kept.length === messages.length) {
    // nothing leaves the context: only JSON pruning may apply, earlier snapshots stay
    const pruned = pruneAll(rest, params);
    if (pruned.count === 0) {
      return {
        applied: false,
        reason:
          messages.length <= room
            ? `The context has ${ctx.view.length} messages, within the window of ${params.max_messages}, and no large JSON output to prune.`
            : `All ${messages.length} messages belong to the newest part the window always keeps (a tool call stays with its results); nothing can leave the context.`,
      };
    }
    return {
      applied: true,
      view: [...system, ...pruned.entries],
      summary: `Pruned ${plural(pruned.count, 'JSON output')} (${fmt(viewTokens(rest))} → ${fmt(viewTokens(pruned.entries))} tokens); no message left the context.`,
    };
  }

  const pruned = pruneAll(kept, params);
  // What leaves the context, earlier snapshots included (their ledgers carry over).
  const dropped = rest.filter((e) => !kept.includes(e));
  const content = withFactLedger(
    formatSnapshot(buildSnapshot(ctx.view)),
    dropped,
    kept,
    params.fact_ledger,
  );
  const snapshot = createdEntry({ role: 'user', content }, 'summary');
  const view = [...system, snapshot, ...pruned.entries];
  const recent = messages.length - safeCut(messages, messages.length - recentWanted(params));
  const summary =
    `Kept ${kept.length} of ${messages.length} messages (${recent} recent, ${kept.length - recent} older by importance); ` +
    `dropped ${messages.length - kept.length} (${fmt(viewTokens(ctx.view))} → ${fmt(viewTokens(view))} tokens)` +
    (pruned.count > 0 ? `; pruned ${plural(pruned.count, 'JSON output')}` : '') +
    '; added a context snapshot.';
  return { applied: true, view, summary };
}

/**
 * Which messages stay: the newest ceil(max_messages × recent_ratio), then the most
 * important older units (ties: the newer first) while they fit in `room`.
 */
function choose(
  messages: readonly ViewEntry[],
  room: number,
  params: ImportanceWindowParams,
): boolean[] {
  // moved back so the recent part starts at a call, never at one of its results
  const cut = safeCut(messages, messages.length - recentWanted(params));
  const keep = messages.map((_, i) => i >= cut);
  let left = room - (messages.length - cut);
  const units = unitsOf(messages, cut).sort((a, b) => b.score - a.score || b.start - a.start);
  for (const u of units) {
    const size = u.end - u.start;
    if (size > left) continue;
    for (let i = u.start; i < u.end; i++) keep[i] = true;
    left -= size;
  }
  return keep;
}

/**
 * The older messages (before `end`) as units. A tool result belongs to the assistant
 * message before it, so a call is never kept without its results or the other way round.
 * A unit scores as its most important message.
 */
function unitsOf(messages: readonly ViewEntry[], end: number): Unit[] {
  const units: Unit[] = [];
  for (let i = 0; i < end;) {
    let j = i + 1;
    while (j < end && messages[j]!.message.role === 'tool') j++;
    let score = 0;
    for (let k = i; k < j; k++) score = Math.max(score, scoreOf(messages[k]!));
    units.push({ start: i, end: j, score });
    i = j;
  }
  return units;
}

function scoreOf(entry: ViewEntry): number {
  if (entry.create === 'summary' || entry.record?.kind === 'summary') return SUMMARY_SCORE;
  return importanceScore(entry);
}

/** Large JSON tool outputs shown pruned (seed 003 UI data compression, any JSON). */
function pruneAll(
  entries: readonly ViewEntry[],
  params: ImportanceWindowParams,
): { entries: ViewEntry[]; count: number } {
  const limits: JsonPruneLimits = {
    max_nodes: params.max_ui_nodes,
    max_depth: params.max_ui_depth,
    max_children: params.max_ui_children,
    max_text_chars: params.max_text_chars,
    noisy_fields: params.noisy_fields,
  };
  let count = 0;
  const out = entries.map((e) => {
    const content = e.message.content ?? '';
    if (e.message.role !== 'tool' || content.length <= params.max_data_chars) return e;
    const pruned = pruneJsonText(content, limits);
    if (pruned === undefined || pruned.length >= content.length) return e;
    count++;
    return withContent(e, `${pruned}\n${prunedNote(limits, e.record?.output_ref)}`);
  });
  return { entries: out, count };
}

/**
 * Said after the pruned JSON so the model does not take a cut list for the whole (the text
 * is then no longer JSON, so a later run leaves this view as it is).
 */
function prunedNote(limits: JsonPruneLimits, ref: string | undefined): string {
  const noisy =
    limits.noisy_fields.length > 0 ? `, fields ${limits.noisy_fields.join(', ')} dropped` : '';
  const full = ref ? `; full output: ref=${ref}; read it with tool_output_cache` : '';
  return (
    `[JSON pruned for the context: lists cut to ${limits.max_nodes} items (${limits.max_children} below the top), ` +
    `lists nested over ${limits.max_depth} levels deep and strings over ${fmt(limits.max_text_chars)} characters cut${noisy}${full}]`
  );
}

function recentWanted(params: ImportanceWindowParams): number {
  return Math.ceil(params.max_messages * params.recent_ratio);
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
