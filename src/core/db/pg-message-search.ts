import type { SessionSearchHit, SessionSearchResult } from '../../shared/api/search-api';
import { badInput } from '../errors';
import { planSearch } from '../search/search-query';
import {
  exactAt,
  folderParams,
  inTaskOrder,
  snippetOf,
  wordAt,
  type SearchOptions,
} from '../search/search-sessions';
import { pendingTasksPg } from './pg-message-index';
import type { PgTaskRepository } from './pg-task-repository';
import { toolQueryOf, tsqueryOf } from './pg-text-search';

interface HitRow {
  seq: number;
  role: string;
  tool: string;
  timestamp: string | null;
  body: string;
  uuid: string;
  title: string | null;
  agent: string;
  repository: string | null;
}

/**
 * Message search on a fleet's PostgreSQL (pg-schema.ts v6): the same query language, filters
 * and answers as tasks.db's (search-sessions.ts). The GIN index on the words finds the
 * messages; in exact mode the stored text must then hold the text as typed (strpos over
 * the candidates the words give, no trigram index: one would cost the text's size again).
 * Snippets come from the stored text, so another host's tasks show theirs too.
 */
export function searchSessionsPg(
  repo: PgTaskRepository,
  options: SearchOptions,
): SessionSearchResult {
  const plan = planSearch(options.query, options.exact);
  if (!plan)
    throw badInput(`search: ${JSON.stringify(options.query)} has no letters or digits to look for`);
  const values: unknown[] = [];
  const add = (v: unknown) => `$${values.push(v)}`;
  const where = [`m.words @@ ${add(tsqueryOf(plan))}::tsquery`];
  if (plan.exact !== undefined) where.push(`strpos(m.body, ${add(plan.exact)}) > 0`);
  if (options.role) where.push(`m.role = ${add(options.role)}`);
  const tool = options.tool ? toolQueryOf(options.tool) : undefined;
  if (tool) where.push(`m.tools @@ ${add(tool)}::tsquery`);
  if (options.agent !== undefined) where.push(`t.agent = ${add(options.agent)}`);
  if (options.repo) {
    const v = add(options.repo);
    where.push(`(t.repo = ${v} OR t.repository = ${v})`);
  }
  if (options.folder) {
    const f = folderParams(options.folder);
    const below = add(f.below);
    where.push(
      `(t.workdir = ${add(f.folder)} OR substr(t.workdir, 1, length(${below})) IN (${below}, ${add(f.belowWin)}))`,
    );
  }
  if (options.since) where.push(`t.updated_at >= ${add(options.since)}`);
  // Newest task first, each task's messages from its last: the first `limit` are the hits.
  const rows = repo.sql<HitRow>(
    `SELECT m.seq, m.role, m.tool, m."timestamp", m.body, t.uuid, t.title, t.agent, t.repository
     FROM messages_search AS m JOIN tasks AS t ON t.seq = m.task
     WHERE ${where.join(' AND ')}
     ORDER BY m.task DESC, m.seq DESC LIMIT ${add(options.limit + 1)}`,
    values,
  );
  const hits: SessionSearchHit[] = rows.slice(0, options.limit).map((r) => {
    const at = plan.exact !== undefined ? exactAt(r.body, plan.exact) : wordAt(r.body, plan.words);
    return {
      uuid: r.uuid,
      seq: r.seq,
      title: r.title,
      agent: r.agent ?? '',
      repository: r.repository || null,
      ...snippetOf(r.body, at),
      role: r.role,
      tool: r.tool || null,
      timestamp: r.timestamp,
    };
  });
  return {
    hits: inTaskOrder(hits),
    more: rows.length > options.limit,
    pending: pendingTasksPg(repo),
  };
}
