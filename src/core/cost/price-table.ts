/**
 * The price table that ships with the app: US dollars per million tokens, standard
 * (non-batch, non-priority) tier. Override or extend it in config.yaml's `pricing:`
 * section; a model in neither is an "unknown" cost, never $0.
 */

/** Dollars per million tokens. `cache_write` is what writing the prompt cache costs. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface PriceEntry extends ModelPrice {
  /**
   * Model-name prefix (lower case). A model matches the longest prefix it starts with,
   * after any `provider/` part: `claude-sonnet-4-5-20250929` and
   * `anthropic/claude-sonnet-4-5` both match `claude-sonnet-4-5`.
   */
  prefix: string;
  /** Where the figure comes from when it is not the table's own source (a config override). */
  source?: string;
}

export const PRICE_TABLE_VERSION = '2025-11-24';

export const PRICE_TABLE_SOURCE =
  'List prices from openai.com/api/pricing, claude.com/pricing (API) and ' +
  'ai.google.dev/gemini-api/docs/pricing as published on ' +
  PRICE_TABLE_VERSION +
  '. Standard tier; Anthropic cache writes at the 5-minute rate; OpenAI and Google bill ' +
  'cache writes as input; Gemini prices are those for prompts up to 200k tokens.';

const anthropic = (input: number, output: number): Omit<ModelPrice, never> => ({
  input,
  output,
  cache_read: input / 10,
  cache_write: input * 1.25,
});
const cachedAsInput = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cache_read: cacheRead,
  cache_write: input,
});

const TABLE: Record<string, ModelPrice> = {
  // Anthropic
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-opus': anthropic(15, 75),
  'claude-3-haiku': anthropic(0.25, 1.25),
  // OpenAI
  'gpt-5.1-codex-mini': cachedAsInput(0.25, 2, 0.025),
  'gpt-5.1-codex': cachedAsInput(1.25, 10, 0.125),
  'gpt-5.1': cachedAsInput(1.25, 10, 0.125),
  'gpt-5-codex': cachedAsInput(1.25, 10, 0.125),
  'gpt-5-pro': cachedAsInput(15, 120, 15),
  'gpt-5-mini': cachedAsInput(0.25, 2, 0.025),
  'gpt-5-nano': cachedAsInput(0.05, 0.4, 0.005),
  'gpt-5': cachedAsInput(1.25, 10, 0.125),
  'gpt-4.1-mini': cachedAsInput(0.4, 1.6, 0.1),
  'gpt-4.1-nano': cachedAsInput(0.1, 0.4, 0.025),
  'gpt-4.1': cachedAsInput(2, 8, 0.5),
  'gpt-4o-mini': cachedAsInput(0.15, 0.6, 0.075),
  'gpt-4o': cachedAsInput(2.5, 10, 1.25),
  'o4-mini': cachedAsInput(1.1, 4.4, 0.275),
  'o3-pro': cachedAsInput(20, 80, 20),
  'o3-mini': cachedAsInput(1.1, 4.4, 0.55),
  o3: cachedAsInput(2, 8, 0.5),
  o1: cachedAsInput(15, 60, 7.5),
  'codex-mini-latest': cachedAsInput(1.5, 6, 0.375),
  // Google
  'gemini-3-pro': cachedAsInput(2, 12, 0.2),
  'gemini-2.5-pro': cachedAsInput(1.25, 10, 0.125),
  'gemini-2.5-flash-lite': cachedAsInput(0.1, 0.4, 0.01),
  'gemini-2.5-flash': cachedAsInput(0.3, 2.5, 0.03),
  'gemini-2.0-flash-lite': cachedAsInput(0.075, 0.3, 0.075),
  'gemini-2.0-flash': cachedAsInput(0.1, 0.4, 0.025),
};

/** The shipped entries, longest prefix first (the order matching relies on). */
export const SHIPPED_PRICES: readonly PriceEntry[] = sortEntries(
  Object.entries(TABLE).map(([prefix, price]) => ({ prefix, ...price })),
);

export function sortEntries(entries: PriceEntry[]): PriceEntry[] {
  return entries.sort(
    (a, b) => b.prefix.length - a.prefix.length || a.prefix.localeCompare(b.prefix),
  );
}
