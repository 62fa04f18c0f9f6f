/**
 * Fixes what earlier importers got wrong in tasks they already wrote, from the task's own
 * messages.jsonl (streamed): a title that was a slash command or caveat boilerplate becomes
 * the first real request, and a total of 0 tokens becomes the estimate of the messages'
 * text. The times, agent and repository of earlier imports are fixed by the schema
 * migration; these two need the messages, so `cwb doctor` runs this (it is idempotent).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ContextStore } from '../store/context-store';
import { readJsonl } from '../jsonl/jsonl-reader';
import { realRequest, titleLine } from './session-meta';
import { isRecord } from './text';

export interface RederiveResult {
  checked: number;
  titles: number;
  tokens: number;
  branches: number;
  /** Imported tasks without a single message (left by importers that guessed a format wrong). */
  empty: string[];
}

export async function rederiveImports(store: ContextStore): Promise<RederiveResult> {
  const rows = store.db
    .prepare(
      `SELECT uuid, status, title, total_tokens FROM tasks
       WHERE agent <> '' AND status IN ('completed', 'failed')
         AND (total_tokens = 0 OR title IS NULL OR title LIKE '/%' OR title LIKE '<%' OR title LIKE 'Caveat:%')`,
    )
    .all() as { uuid: string; status: string; title: string | null; total_tokens: number }[];
  const result: RederiveResult = {
    checked: rows.length,
    titles: 0,
    tokens: 0,
    branches: rederiveBranches(store),
    empty: (
      store.db
        .prepare(
          `SELECT uuid FROM tasks WHERE agent <> '' AND total_messages = 0 ORDER BY created_at`,
        )
        .all() as { uuid: string }[]
    ).map((r) => r.uuid),
  };
  for (const row of rows) {
    const full = store.repo.get(row.uuid);
    if (!full) continue;
    const file = path.join(store.taskPath(full), 'messages.jsonl');
    if (!fs.existsSync(file)) continue;
    let tokens = 0;
    let request: string | undefined;
    for await (const line of readJsonl(file)) {
      if (!line.ok || !isRecord(line.value)) continue;
      const m = line.value;
      if (typeof m.tokens === 'number') tokens += m.tokens;
      if (request === undefined && m.role === 'user' && typeof m.content === 'string')
        request = realRequest(m.content);
    }
    const title = titleLine(request);
    const needsTitle = !row.title || /^(\/|<|Caveat:)/.test(row.title);
    const setTitle = needsTitle && title !== undefined && title !== row.title;
    const setTokens = row.total_tokens === 0 && tokens > 0;
    if (!setTitle && !setTokens) continue;
    store.repo.write(() =>
      store.db
        .prepare(
          `UPDATE tasks SET title = CASE WHEN @setTitle THEN @title ELSE title END,
           total_tokens = CASE WHEN @setTokens THEN @tokens ELSE total_tokens END
         WHERE uuid = @uuid`,
        )
        .run({
          setTitle: setTitle ? 1 : 0,
          title: title ?? null,
          setTokens: setTokens ? 1 : 0,
          tokens,
          uuid: row.uuid,
        }),
    );
    if (setTitle) result.titles++;
    if (setTokens) result.tokens++;
  }
  return result;
}

/**
 * Earlier imports kept the branch in metadata.json's source only: copy it into the column
 * ('' when the transcript named none, so each task is read once).
 */
function rederiveBranches(store: ContextStore): number {
  const rows = store.db
    .prepare(`SELECT uuid FROM tasks WHERE agent <> '' AND git_branch IS NULL`)
    .all() as { uuid: string }[];
  let found = 0;
  for (const { uuid } of rows) {
    const row = store.repo.get(uuid);
    if (!row) continue;
    let branch = '';
    try {
      const meta: unknown = JSON.parse(
        fs.readFileSync(path.join(store.taskPath(row), 'metadata.json'), 'utf8'),
      );
      const source = isRecord(meta) && isRecord(meta.source) ? meta.source : {};
      if (typeof source.git_branch === 'string') branch = source.git_branch;
    } catch {
      // no readable metadata.json: nothing to copy
    }
    if (branch !== '') found++;
    store.repo.write(() =>
      store.db.prepare('UPDATE tasks SET git_branch = ? WHERE uuid = ?').run(branch, uuid),
    );
  }
  return found;
}
