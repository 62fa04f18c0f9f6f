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
  // Through the index's interface, so it works on tasks.db and on a fleet's PostgreSQL.
  const toFix = store.repo.importsToFix();
  const rows = toFix.wrongTitleOrTokens;
  const result: RederiveResult = {
    checked: rows.length,
    titles: 0,
    tokens: 0,
    branches: rederiveBranches(store, toFix.noBranch),
    empty: toFix.empty,
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
    store.repo.fixImport(row.uuid, {
      ...(setTitle && { title }),
      ...(setTokens && { total_tokens: tokens }),
    });
    if (setTitle) result.titles++;
    if (setTokens) result.tokens++;
  }
  return result;
}

/**
 * Earlier imports kept the branch in metadata.json's source only: copy it into the column
 * ('' when the transcript named none, so each task is read once).
 */
function rederiveBranches(store: ContextStore, uuids: string[]): number {
  let found = 0;
  for (const uuid of uuids) {
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
    store.repo.fixImport(uuid, { git_branch: branch });
  }
  return found;
}
