import type { CompactionCost, CostFigure, ModelCost, TaskCost } from '../../shared/cost-types';
import type { TaskRow } from '../../shared/task-types';
import type { PriceBook } from './price-book';

/** What a compaction record says about its model call (summaries.jsonl, any version). */
export interface CompactionUsageRecord {
  id: number;
  strategy: string;
  params?: Record<string, unknown>;
  model?: unknown;
  llm_usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_tokens?: number;
    cache_creation_tokens?: number;
  } | null;
  undone?: boolean;
}

/** The agent's own calls: tasks.db's counters on the task's model. */
export function rowCost(
  row: Pick<
    TaskRow,
    'model' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_creation_tokens'
  >,
  book: PriceBook,
): CostFigure {
  return book.costOf(row, row.model);
}

/**
 * A task's cost per model and per compaction. Compactions that ran a model (their record
 * has `llm_usage`) are priced on that model — the record's own, else the task's, as
 * compaction.model null means — undone ones included, since they were paid for. The total
 * is unknown when any priced part is.
 */
export function taskCost(
  row: TaskRow,
  records: readonly CompactionUsageRecord[],
  book: PriceBook,
): TaskCost {
  const models = new Map<string | null, ModelCost>();
  const add = (model: string | null, usage: NonNullable<CompactionUsageRecord['llm_usage']>) => {
    let entry = models.get(model);
    if (!entry) {
      entry = {
        model,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        cost: { usd: 0 },
      };
      models.set(model, entry);
    }
    entry.input_tokens += usage.input_tokens ?? 0;
    entry.output_tokens += usage.output_tokens ?? 0;
    entry.cache_read_tokens += usage.cache_read_tokens ?? 0;
    entry.cache_creation_tokens += usage.cache_creation_tokens ?? 0;
  };
  const agent = rowCost(row, book);
  add(row.model, row);

  const compactions: CompactionCost[] = records.map((r) => {
    const model = compactionModel(r) ?? row.model;
    if (!r.llm_usage) return { id: r.id, strategy: r.strategy, model: null, cost: null };
    add(model, r.llm_usage);
    return {
      id: r.id,
      strategy: r.strategy,
      model,
      cost: book.costOf(
        {
          input_tokens: r.llm_usage.input_tokens ?? 0,
          output_tokens: r.llm_usage.output_tokens ?? 0,
          cache_read_tokens: r.llm_usage.cache_read_tokens ?? 0,
          cache_creation_tokens: r.llm_usage.cache_creation_tokens ?? 0,
        },
        model,
      ),
    };
  });
  for (const entry of models.values()) entry.cost = book.costOf(entry, entry.model);

  const parts = [agent, ...compactions.flatMap((c) => (c.cost ? [c.cost] : []))];
  const unknown = parts.find((p) => p.usd === null);
  const total: CostFigure =
    unknown && unknown.usd === null
      ? { usd: null, unknown: unknown.unknown }
      : { usd: parts.reduce((sum, p) => sum + (p.usd ?? 0), 0) };
  return {
    total,
    models: [...models.values()].filter(
      (m) => m.input_tokens + m.output_tokens + m.cache_read_tokens + m.cache_creation_tokens > 0,
    ),
    compactions,
    prices: { version: book.version, overrides: book.overrides },
  };
}

/** The model a compaction's call ran on, when its record names one (else the task's). */
export function compactionModel(r: CompactionUsageRecord): string | null {
  if (typeof r.model === 'string' && r.model) return r.model;
  const fromParams = r.params?.model;
  return typeof fromParams === 'string' && fromParams ? fromParams : null;
}
