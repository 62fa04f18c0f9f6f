import { prepared } from '../db/prepared';
import { PgTaskRepository } from '../db/pg-task-repository';
import type { ContextStore } from '../store/context-store';

/**
 * One statement on the task index, tasks.db or a fleet's PostgreSQL (docs/sources.md),
 * with @named text parameters; returns the rows it reads.
 */
export function runOnIndex(
  store: ContextStore,
  sql: string,
  params: Record<string, string | null>,
): unknown[] {
  if (store.repo instanceof PgTaskRepository) {
    const values: (string | null)[] = [];
    const numbered = new Map<string, string>();
    const text = sql.replace(/@(\w+)/g, (_, name: string) => {
      if (!numbered.has(name)) {
        values.push(params[name] ?? null);
        numbered.set(name, `$${values.length}::text`);
      }
      return numbered.get(name)!;
    });
    return store.repo.sql(text, values);
  }
  const statement = prepared(store.db, sql);
  return statement.reader ? statement.all(params) : (statement.run(params), []);
}
