import fs from 'node:fs';
import path from 'node:path';
import type { ContextStore } from '../store/context-store';
import type { SessionEvent } from '../import/session-format';
import { fileTimes } from '../import/text';
import type { SourceKind } from './source-kinds';
import type { SyncFileOptions, SyncFileResult } from './sync-file';
import { SyncStateRepository } from './sync-state';

/**
 * A session store another agent keeps in one file that holds many sessions: a database
 * (opencode.db, crush.db, Goose's sessions.db, Zed's threads.db) or a session's file of the
 * older opencode JSON storage. It is read, never written (src/core/db/foreign-database.ts).
 */
export interface SessionStore {
  /** Each session with what changes when it does; throws StoreUnavailable when unreadable now. */
  sessions(): StoreSession[];
  /**
   * The events of one session, as a SessionFormat parses them (stable keys). Unless `final`
   * (the session has been still, or an import), a reply still being written is left out: it
   * is read whole by a later sync.
   */
  events(id: string, final: boolean): AsyncIterable<SessionEvent>;
  close(): void;
}

export interface StoreSession {
  id: string;
  /** The newest update of the session or anything in it (epoch ms). */
  version: number;
  /** How many records it has (messages, parts…): changes when one is added or removed. */
  rows: number;
}

/** Opens a store file read-only; throws StoreUnavailable when it cannot be read now. */
export type OpenStore = (file: string) => SessionStore;

/** A store that is locked, half-written or not a database yet: read again at the next sync. */
export class StoreUnavailable extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `${path.basename(file)} could not be read now (${reason}); it is read again at the next sync`,
    );
  }
}

/**
 * A session of a store is a source of its own (one source_files row, its own sync state and
 * lease): `<store file>#<session id>`.
 */
export function storeUnit(file: string, id: string): string {
  return `${file}#${id}`;
}

export function isStoreUnit(unit: string): boolean {
  return path.basename(unit).includes('#');
}

function splitUnit(unit: string): { file: string; id: string } {
  const at = unit.lastIndexOf('#');
  return { file: unit.slice(0, at), id: unit.slice(at + 1) };
}

/**
 * One session of a store read as a document: its size is its record count, its time its
 * newest update, so an unchanged session is left alone and a session still for `quiet_ms`
 * gets its last reply completed, as a file would. Throws when the session or store is gone.
 */
export function storeSession(
  open: OpenStore,
  unit: string,
  opened?: SessionStore,
): {
  mode: 'document';
  stat: {
    size: number;
    mtimeMs: number;
    ino: string;
    times: { created_at: string; completed_at: string };
  };
  parse(final: boolean): AsyncIterable<SessionEvent>;
  settles: true;
} {
  const { file, id } = splitUnit(unit);
  const stat = fs.statSync(file);
  const handle = opened ?? open(file);
  let session: StoreSession | undefined;
  try {
    session = handle.sessions().find((s) => s.id === id);
  } finally {
    if (!opened) handle.close();
  }
  if (!session) throw new Error(`session ${id} is no longer in ${file}`);
  const times = fileTimes(stat);
  return {
    mode: 'document',
    stat: { size: session.rows, mtimeMs: session.version, ino: String(stat.ino), times },
    parse: (final) => (opened ? opened.events(id, final) : eventsOnce(open, file, id, final)),
    settles: true,
  };
}

async function* eventsOnce(
  open: OpenStore,
  file: string,
  id: string,
  final: boolean,
): AsyncIterable<SessionEvent> {
  const handle = open(file);
  try {
    yield* handle.events(id, final);
  } finally {
    handle.close();
  }
}

/**
 * Syncs the sessions of a store file that changed since their last sync (their record
 * count, newest update, or a reply waiting for the session to be still), each through
 * `syncOne` as a source of its own, with the store opened once. A store that cannot be read
 * now (locked, half-written) is `busy` with a notice: the next sync tries again, nothing is
 * recorded as an error.
 */
export async function syncStore(
  store: ContextStore,
  kind: SourceKind,
  open: OpenStore,
  file: string,
  options: SyncFileOptions,
  syncOne: (
    store: ContextStore,
    kind: SourceKind,
    unit: string,
    options: SyncFileOptions,
  ) => Promise<SyncFileResult>,
): Promise<SyncFileResult> {
  const result: SyncFileResult = {
    path: file,
    kind: kind.id,
    status: 'unchanged',
    messages: 0,
    uuids: [],
  };
  if (!fs.existsSync(file)) return { ...result, status: 'missing', error: 'the file is gone' };
  let handle: SessionStore;
  let sessions: StoreSession[];
  try {
    handle = open(file);
  } catch (err) {
    return unavailable(result, err);
  }
  try {
    try {
      sessions = handle.sessions();
    } catch (err) {
      return unavailable(result, err);
    }
    const repo = new SyncStateRepository(store.sourcesDb);
    const quietMs = options.quietMs ?? 5000;
    for (const session of sessions) {
      const unit = storeUnit(file, session.id);
      const row = repo.get(unit);
      if (
        row &&
        row.pending === null &&
        row.lease_pid === null &&
        row.size === session.rows &&
        row.mtime_ms === session.version &&
        !(row.held === 1 && Date.now() - session.version >= quietMs)
      )
        continue;
      const one = await syncOne(store, kind, unit, { ...options, store: handle });
      result.messages += one.messages;
      result.uuids.push(...one.uuids.filter((u) => !result.uuids.includes(u)));
      if (one.held) result.held = true;
      if (one.notice !== undefined) result.notice ??= one.notice;
      if (one.status === 'error') {
        result.status = 'error';
        result.error ??= `${session.id}: ${one.error ?? 'error'}`;
      } else if (one.status === 'synced' && result.status !== 'error') result.status = 'synced';
      else if (one.status === 'busy' && result.status === 'unchanged') result.status = 'busy';
    }
    return result;
  } finally {
    handle.close();
  }
}

function unavailable(result: SyncFileResult, err: unknown): SyncFileResult {
  if (!(err instanceof StoreUnavailable)) {
    const message = err instanceof Error ? err.message : String(err);
    return { ...result, status: 'error', error: message };
  }
  return { ...result, status: 'busy', notice: err.message };
}
