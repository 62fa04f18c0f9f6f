import { estimateTokens } from './estimate';

export { countCharacters, estimateTokens, japaneseRatio } from './estimate';
export type { CharacterCounts } from './estimate';
export { exactMessageTokens, exactTokens } from './exact';

/**
 * Which counter produced a message's `tokens` (messages.jsonl `token_counter`): the seed
 * estimate for every message the app writes; lines written before the field existed were
 * estimates too.
 */
export type TokenCounter = 'estimate' | 'o200k' | 'usage';

export interface MessageTokenCounts {
  /** Seed 001 §4.2 estimate: what thresholds and messages.jsonl use. */
  tokens: number;
  token_counter: 'estimate';
}

export interface CountableMessage {
  content: string | null;
  tool_calls?: unknown;
  tool_name?: string;
}

/**
 * Tokens of one message: its content plus the JSON of its tool calls, because both are
 * sent to the model. The parts are estimated separately so a Japanese reply with a large
 * ASCII tool call keeps the Japanese rate for its text. `tool_name` is not counted, like
 * in seed 001 where only the content is estimated.
 *
 * Only the estimate: an o200k count costs ~50× more and was 41 % of a task process's time
 * (issue #17), so exact counts are made where they are shown (`exactMessageTokens`).
 */
export function countMessageTokens(msg: CountableMessage): MessageTokenCounts {
  let tokens = 0;
  if (msg.content !== null && msg.content !== '') tokens += estimateTokens(msg.content);
  const toolCalls = msg.tool_calls;
  if (
    toolCalls !== undefined &&
    toolCalls !== null &&
    !(Array.isArray(toolCalls) && toolCalls.length === 0)
  ) {
    tokens += estimateTokens(JSON.stringify(toolCalls));
  }
  return { tokens, token_counter: 'estimate' };
}
