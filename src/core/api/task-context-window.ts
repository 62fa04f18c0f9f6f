import type { AppConfig } from '../config/app-config';
import { resolveModelLimits } from '../llm';
import { providerSettings } from '../llm/provider-info';
import type { TaskRow } from '../../shared/task-types';
import { UNKNOWN_CONTEXT_WINDOW } from './compaction-runtime';

/**
 * The context window a task's threshold is measured against: the task's own context_length,
 * else its model's known limit, else the configured model's, else a common default.
 */
export function taskContextWindow(row: TaskRow, config: AppConfig): number {
  const configured = providerSettings(config.llm, config.llm.provider).model;
  const model = row.model ?? configured ?? '';
  try {
    return resolveModelLimits(model, {
      ...(row.context_length !== null && { context_length: row.context_length }),
    }).contextWindow;
  } catch {
    return row.context_length ?? UNKNOWN_CONTEXT_WINDOW;
  }
}
