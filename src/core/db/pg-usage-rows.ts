import type { HourUsage } from '../usage/usage-hours';
import type { TaskFacts, UsageRows } from '../usage/usage-report';
import type { PgTaskRepository } from './pg-task-repository';

/**
 * A usage report's rows on a fleet's PostgreSQL (pg-schema.ts v6): every host's tasks,
 * usage_hours and usage_compactions by task seq, as tasks.db gives them by rowid, so the
 * report (usage-report.ts) is computed by the same code from the same figures.
 */
export function pgUsageRows(repo: PgTaskRepository): UsageRows {
  return {
    tasks(filter) {
      const values: unknown[] = [];
      const where = [
        `((input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens) > 0
          OR seq IN (SELECT task FROM usage_compactions))`,
      ];
      if (filter.agent !== undefined) where.push(`agent = $${values.push(filter.agent)}`);
      if (filter.repo) {
        const v = `$${values.push(filter.repo)}`;
        where.push(`(repo = ${v} OR repository = ${v})`);
      }
      return repo.sql<TaskFacts>(
        `SELECT seq AS task, uuid, title, agent, model, repository, input_tokens, output_tokens,
           cache_read_tokens, cache_creation_tokens, created_at, updated_at, completed_at
         FROM tasks WHERE ${where.join(' AND ')} ORDER BY seq`,
        values,
      );
    },
    hours: () =>
      repo.sql<HourUsage & { task: number }>(
        `SELECT task, hour, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens
         FROM usage_hours ORDER BY task, hour`,
      ),
    compactions: () =>
      repo.sql<HourUsage & { task: number; model: string | null }>(
        `SELECT task, hour, model, input_tokens, output_tokens, cache_read_tokens,
           cache_creation_tokens FROM usage_compactions ORDER BY task, id`,
      ),
  };
}
