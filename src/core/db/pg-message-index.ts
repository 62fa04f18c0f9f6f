import type { MessageIndexTarget, DirtyTask } from '../search/message-index';
import type { PgTaskRepository } from './pg-task-repository';
import { tsvectorOf } from './pg-text-search';

/**
 * The search catch-up's writes on a fleet's PostgreSQL (pg-schema.ts v6), the same steps
 * as on tasks.db (message-index.ts): a contexts folder indexes the dirty tasks it holds (its
 * rows, as recovery owns them), each batch one transaction that writes only if the task's
 * cursor is still where it was read. The cursor row's lock serializes two processes of one
 * task; no fleet-wide lock is taken, so other hosts' writes never wait for a batch.
 */
/** PostgreSQL's text holds no NUL character; a space splits words as it did. */
const NUL = /\0/g;

export function pgMessageTarget(repo: PgTaskRepository): MessageIndexTarget {
  const own = repo.folderId
    ? { sql: 't.folder_id = $3', param: repo.folderId }
    : { sql: 't.host = $3 AND t.folder_id IS NULL', param: repo.host };
  return {
    pending: () => pendingTasksPg(repo),
    dirty: (after, limit) =>
      repo.sql<DirtyTask>(
        `SELECT d.task, t.uuid, t.status, t.agent, COALESCE(s.seq, 0) AS seq,
           COALESCE(s.summaries, 0) AS summaries, t.total_summaries, d.mark
         FROM messages_search_dirty AS d
         JOIN tasks AS t ON t.seq = d.task
         LEFT JOIN messages_search_state AS s ON s.task = d.task
         WHERE d.task > $1 AND ${own.sql} ORDER BY d.task LIMIT $2`,
        [after, limit, own.param],
      ),
    // A deleted task's trigger removes its dirty row: none is left without a task.
    forget: (task) => void repo.sql('DELETE FROM messages_search_dirty WHERE task = $1', [task]),
    writeBatch: (t, from, batch) =>
      repo.transaction(() => {
        if (!lockCursor(repo, t.task, 'seq', from)) return false;
        const values: unknown[] = [];
        const add = (v: unknown) => `$${values.push(v)}`;
        const tuples = batch.rows.map(
          (r) =>
            `(${[
              add(t.task),
              add(r.seq),
              add(r.role),
              add(r.tool.replace(NUL, ' ')),
              add(r.timestamp),
              add(r.body.replace(NUL, ' ')),
              `${add(tsvectorOf(r.body))}::tsvector`,
              `${add(tsvectorOf(r.tool))}::tsvector`,
              add(repo.host),
              add(repo.folderId),
            ].join(', ')})`,
        );
        if (tuples.length > 0)
          repo.sql(
            `INSERT INTO messages_search (task, seq, role, tool, "timestamp", body, words, tools,
               host, folder_id) VALUES ${tuples.join(', ')}
             ON CONFLICT (task, seq) DO NOTHING`,
            values,
          );
        repo.sql('UPDATE messages_search_state SET seq = $2, chars = chars + $3 WHERE task = $1', [
          t.task,
          batch.lastSeq,
          batch.chars,
        ]);
        // Our own task processes' usage (imports and syncs add theirs as they write).
        if (t.agent === '' && batch.usage.length > 0) repo.addUsageHours(t.uuid, batch.usage);
        return true;
      }),
    writeCompactions: (t, rows, last) =>
      repo.transaction(() => {
        if (!lockCursor(repo, t.task, 'summaries', t.summaries)) return false;
        for (const r of rows)
          repo.sql(
            `INSERT INTO usage_compactions (task, id, hour, model, input_tokens, output_tokens,
               cache_read_tokens, cache_creation_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (task, id) DO UPDATE SET hour = EXCLUDED.hour, model = EXCLUDED.model,
               input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
               cache_read_tokens = EXCLUDED.cache_read_tokens,
               cache_creation_tokens = EXCLUDED.cache_creation_tokens`,
            [
              t.task,
              r.id,
              r.hour,
              r.model,
              r.input_tokens,
              r.output_tokens,
              r.cache_read_tokens,
              r.cache_creation_tokens,
            ],
          );
        repo.sql('UPDATE messages_search_state SET summaries = $2 WHERE task = $1', [t.task, last]);
        return true;
      }),
    // Only if no writer changed the task since it was read (its trigger bumps `mark`): a
    // concurrent change either committed first (the delete re-checks the row it waited
    // for, finds another mark and keeps it) or comes after (its trigger inserts anew).
    settle: (t, seq, summaries) =>
      void repo.sql(
        `DELETE FROM messages_search_dirty AS d WHERE d.task = $1 AND d.mark = $4
           AND NOT EXISTS (SELECT 1 FROM tasks WHERE seq = $1
             AND (total_messages > $2 OR total_summaries > $3))`,
        [t.task, seq, summaries, t.mark ?? 0],
      ),
  };
}

/** Locks the task's cursor row (made if missing) and tells whether `column` is at `at`. */
function lockCursor(
  repo: PgTaskRepository,
  task: number,
  column: 'seq' | 'summaries',
  at: number,
): boolean {
  repo.sql('INSERT INTO messages_search_state (task) VALUES ($1) ON CONFLICT (task) DO NOTHING', [
    task,
  ]);
  const [state] = repo.sql<{ at: number }>(
    `SELECT ${column} AS at FROM messages_search_state WHERE task = $1 FOR UPDATE`,
    [task],
  );
  return state?.at === at;
}

/** Tasks of every host with messages not yet in the index (their hits may be missing). */
export function pendingTasksPg(repo: PgTaskRepository): number {
  return repo.sql<{ n: number }>('SELECT COUNT(*)::bigint AS n FROM messages_search_dirty')[0]!.n;
}
