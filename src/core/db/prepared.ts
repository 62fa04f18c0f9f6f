import type { Statement } from 'better-sqlite3';
import type { Db } from './open-database';

/**
 * better-sqlite3 compiles a statement on every `prepare`, and a sync of many small session
 * files ran the same dozen statements thousands of times: compiling them was ~6 % of a first
 * sync (docs/benchmarks.md §14). Statements are kept per connection and SQL text, so a
 * statement with fixed text is compiled once per connection.
 */
const statements = new WeakMap<Db, Map<string, Statement>>();

/** The statement for `sql` on `db`, compiled the first time it is asked for. */
export function prepared(db: Db, sql: string): Statement {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let statement = byText.get(sql);
  if (!statement) byText.set(sql, (statement = db.prepare(sql)));
  return statement;
}
