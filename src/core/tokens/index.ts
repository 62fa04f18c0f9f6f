import { estimateTokens } from './estimate';
import { countO200k } from './o200k';

export { countCharacters, estimateTokens, japaneseRatio } from './estimate';
export type { CharacterCounts } from './estimate';
export { countO200k } from './o200k';

export interface MessageTokenCounts {
  /** Seed 001 §4.2 estimate: what thresholds and messages.jsonl use. */
  tokens: number;
  /** Exact o200k_base count, for display next to the estimate. */
  tokens_o200k: number;
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
 */
export function countMessageTokens(msg: CountableMessage): MessageTokenCounts {
  let tokens = 0;
  let tokensO200k = 0;
  if (msg.content !== null && msg.content !== '') {
    tokens += estimateTokens(msg.content);
    tokensO200k += countO200k(msg.content);
  }
  const toolCalls = msg.tool_calls;
  if (
    toolCalls !== undefined &&
    toolCalls !== null &&
    !(Array.isArray(toolCalls) && toolCalls.length === 0)
  ) {
    const json = JSON.stringify(toolCalls);
    tokens += estimateTokens(json);
    tokensO200k += countO200k(json);
  }
  return { tokens, tokens_o200k: tokensO200k };
}
