import os from 'node:os';
import path from 'node:path';
import { CwbError } from '../errors';
import { openDatabase } from './open-database';
import { PgTaskRepository } from './pg-task-repository';
import type { TaskIndex } from './task-index';
import { TaskRepository } from './task-repository';

/** The environment variable naming a PostgreSQL task index (set by `--index` and config `index`). */
export const INDEX_URL_ENV = 'CWB_INDEX_URL';
/** This host's name in a fleet (default: the OS host name); lets one machine simulate several. */
export const HOST_ENV = 'CWB_HOST';

export function hostName(env: NodeJS.ProcessEnv = process.env): string {
  return env[HOST_ENV] || os.hostname();
}

/**
 * The index a process uses: `--index` first, then $CWB_INDEX_URL, then config.yaml's
 * `index`; undefined = tasks.db in the contexts folder (the default).
 */
export function resolveIndexUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  configured: string | null | undefined,
): string | undefined {
  const url = flag ?? (env[INDEX_URL_ENV] || undefined) ?? configured ?? undefined;
  if (url === undefined || url === '' || url === 'sqlite') return undefined;
  assertIndexUrl(url);
  return url;
}

export function assertIndexUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol) || !parsed.hostname) {
    throw new CwbError(
      'usage',
      `index: expected a PostgreSQL URL like postgres://user@host/db (or "sqlite"), got ${JSON.stringify(url.replace(/:[^:@/]*@/, ':***@'))}`,
    );
  }
}

/** Opens the task index: PostgreSQL when `url` is set, else tasks.db in `root`. */
export function openTaskIndex(
  root: string,
  options: {
    url?: string;
    host?: string;
    databaseFile: string;
    /** The contexts folder's identity (folder-identity.ts): a fleet index's rows carry it. */
    folder?: { id: string; root: string };
    /** tasks.db: go on with an unfinished search index backfill for a moment (default true). */
    searchBackfill?: boolean;
  },
): TaskIndex {
  if (options.url) {
    assertIndexUrl(options.url);
    return new PgTaskRepository(options.url, {
      host: options.host ?? hostName(),
      ...(options.folder && { folder: options.folder }),
    });
  }
  return new TaskRepository(
    openDatabase(path.join(root, options.databaseFile), {
      searchBackfill: options.searchBackfill ?? true,
    }),
  );
}
