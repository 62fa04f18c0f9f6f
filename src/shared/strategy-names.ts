/**
 * The compaction strategies (DESIGN.md §5), in the order the design lists them. The config
 * accepts exactly these in `compaction.pipeline`; the compaction engine implements one
 * strategy per name. No imports, so any layer that needs the names can take this file.
 */
export const STRATEGY_NAMES = [
  'summarize', // seed 000/001: keep the newest N messages, summarize the rest
  'retain-summary', // seed 002: <retain> + <summary>, keep the last N turns
  'tool-output-trim', // seed 002: old tool outputs become placeholders with refs
  'importance-window', // seed 003: recent share + important older messages
  'condense', // seed 004: non-destructive LLM summary, falls back to truncate
  'truncate', // seed 004: hide a share of the messages after the first, leave a marker
  'extractive', // ours: structured digest without an LLM
  'observation-mask', // old tool outputs become refs; calls and messages stay verbatim
] as const;

export type StrategyName = (typeof STRATEGY_NAMES)[number];

export function isStrategyName(value: unknown): value is StrategyName {
  return typeof value === 'string' && (STRATEGY_NAMES as readonly string[]).includes(value);
}
