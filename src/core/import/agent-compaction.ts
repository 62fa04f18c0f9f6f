import type { TokenUsage } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { NewSummary } from '../store/summary-store';
import { estimateTokens } from '../tokens/estimate';
import { countMessageTokens } from '../tokens';
import { REASONING_NAME } from './types';

/**
 * A compaction the agent made itself, as its mapper reports it (Claude Code's compact
 * boundary and summary, Codex's `compacted` item, ...). The sink writes `messages` — the new
 * context the agent built: its summary, what it kept or re-attached — and then one
 * summaries.jsonl record whose plan is that new context, so the diff page, "facts that did
 * not survive", `cwb compactions` and the API rebuild both sides as for our own compactions.
 */
export interface CompactionInput {
  strategy: string;
  summary: string;
  extra?: Record<string, unknown>;
  /** The new context, in order; written right after the compacted span. */
  messages?: NewMessage[];
  /** When the agent compacted (the session's own time; else the time of the sync). */
  at?: string;
  /** The agent's own count of the context it compacted (Claude Code's preTokens). */
  agentTokensBefore?: number;
  /** The compaction's own model call (Claude Code's acompact run), when the session has it. */
  llmUsage?: TokenUsage;
  model?: string;
}

/** What a sink keeps between compactions (plain JSON: live sync saves it with the offset). */
export interface AgentContextState {
  /** First seq and estimated tokens of the messages since the last compaction. */
  segmentStart: number;
  segmentTokens: number;
  /** Estimated tokens of what the agent's context holds now. */
  contextTokens: number;
  /** Seqs of the segment the model never saw as context (reasoning). */
  unseen: number[];
  /** Messages that stay in the context whatever the agent compacts (its system prompt). */
  pinned: { seq: number; tokens: number }[];
}

export function newAgentContext(): AgentContextState {
  return { segmentStart: 1, segmentTokens: 0, contextTokens: 0, unseen: [], pinned: [] };
}

/** The estimate MessageStore.append gives the same message (content plus tool-call JSON). */
export function newMessageTokens(message: NewMessage): number {
  let tokens = message.content ? estimateTokens(message.content) : 0;
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
    tokens += estimateTokens(JSON.stringify(message.tool_calls));
  return tokens;
}

/** Follows the context one appended message at a time. */
export function noteMessage(
  state: AgentContextState,
  seq: number,
  message: NewMessage,
  tokens: number,
  pinned = false,
): void {
  state.segmentTokens += tokens;
  if (message.name === REASONING_NAME) {
    state.unseen.push(seq);
    return;
  }
  state.contextTokens += tokens;
  if (pinned && !state.pinned.some((p) => p.seq === seq)) state.pinned.push({ seq, tokens });
}

const range = (from: number, to: number): number[] =>
  to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The summaries.jsonl record of an agent's compaction whose span ends at `end` and whose new
 * context is the messages `created` (already written, with their estimated tokens). Moves
 * the state on to the next segment.
 */
export function agentCompactionRecord(
  state: AgentContextState,
  input: CompactionInput,
  end: number,
  created: { seq: number; tokens: number }[],
): NewSummary {
  const start = state.segmentStart;
  const pinnedSeqs = new Set(state.pinned.map((p) => p.seq));
  const unseen = new Set(state.unseen);
  const replaced = range(start, end).filter((s) => !unseen.has(s) && !pinnedSeqs.has(s));
  const plan = [
    ...state.pinned.filter((p) => p.seq <= end).map((p) => ({ seq: p.seq })),
    ...created.map((c) => ({ seq: c.seq })),
  ];
  const tokensAfter =
    state.pinned.reduce((n, p) => n + p.tokens, 0) + created.reduce((n, c) => n + c.tokens, 0);
  const notes = [
    ...(typeof input.extra?.note === 'string' ? [input.extra.note] : []),
    ...(replaced.length === 0 ? ['nothing of the conversation before it is in the file'] : []),
  ];
  const record: NewSummary = {
    strategy: input.strategy,
    start_seq: start,
    end_seq: end,
    summary: input.summary,
    original_tokens: state.segmentTokens,
    summary_tokens: countMessageTokens({ content: input.summary }).tokens,
    compressed_message_count: Math.max(0, end - start + 1),
    ...(input.at !== undefined && { at: input.at }),
    extra: {
      imported: true,
      ...input.extra,
      ...(notes.length > 0 && { note: notes.join('; ') }),
      agent_compaction: true,
      plan,
      through_seq: created.at(-1)?.seq ?? end,
      tokens_before: state.contextTokens,
      tokens_after: tokensAfter,
      // Which counter made which figure: ours estimate both sides, the agent its own "before".
      token_counter: 'estimate',
      ...(input.agentTokensBefore !== undefined && {
        agent_tokens_before: input.agentTokensBefore,
      }),
      replaced_seqs: replaced,
      created_seqs: created.map((c) => c.seq),
      run_id: `${input.strategy}-${end}`,
      params: {},
      ...(input.llmUsage !== undefined && { llm_usage: input.llmUsage }),
      ...(input.model !== undefined && { model: input.model }),
    },
  };
  state.segmentStart = end + 1;
  state.segmentTokens = created.reduce((n, c) => n + c.tokens, 0);
  state.contextTokens = tokensAfter;
  state.unseen = [];
  return record;
}
