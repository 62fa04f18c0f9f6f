/**
 * Money figures shared by the engine, the CLI and the UI. Plain types only.
 *
 * A cost is either a number of US dollars or honestly unknown, with the reason: never $0
 * for "we could not tell".
 */

/** Why a cost could not be computed. */
export type CostUnknownReason =
  /** The model is not in the price table (or the config's `pricing:` section). */
  | 'unknown_model'
  /** No model was recorded for the usage. */
  | 'no_model'
  /** No provider token usage was recorded (formats without usage, or a task with no LLM call). */
  | 'no_usage';

export type CostFigure =
  { usd: number; unknown?: undefined } | { usd: null; unknown: CostUnknownReason };

/** The cost of one model's share of a task. */
export interface ModelCost {
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  cost: CostFigure;
}

/** The cost of one compaction's model call (extractive and non-LLM compactions have none). */
export interface CompactionCost {
  id: number;
  strategy: string;
  model: string | null;
  cost: CostFigure | null;
}

/** A task's cost: the agent's own calls plus its compactions' calls. */
export interface TaskCost {
  total: CostFigure;
  models: ModelCost[];
  compactions: CompactionCost[];
  /** The price table that answered: its date and source. */
  prices: { version: string; overrides: number };
}
