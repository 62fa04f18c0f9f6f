/**
 * Goose's older sessions (before 1.10, block/goose `crates/goose/src/session/storage.rs`):
 * `<data>/goose/sessions/<id>.jsonl`, rewritten whole on every save — a first line of
 * metadata (`SessionMetadata`: working_dir, description, schedule_id, message_count, token
 * totals), then one `Message` a line (`{id?, role, created, content, metadata?}`, mapped as
 * sessions.db's rows are: goose-message.ts). A file without its metadata line (Goose reads
 * one) starts with a message. The session id is the file's name (`YYYYMMDD_HHMMSS` or a
 * name given with `--name`).
 *
 * Goose 1.10+ imports these files into sessions.db under the same id and leaves them: a
 * session that sessions.db beside the file holds is read from the database only
 * (gooseJsonlStore), as Goose itself does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../jsonl/jsonl-reader';
import { openForeignDatabase } from '../db/foreign-database';
import { StoreUnavailable, type SessionStore } from '../sources/sync-store';
import { GooseKeys, gooseMessage } from './goose-message';
import type { SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { asNumber, asString, isRecord } from './text';

/** The metadata line: `description` and `message_count`, no role. */
export function isGooseMetadataLine(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    typeof value.description === 'string' &&
    typeof value.message_count === 'number' &&
    !('role' in value)
  );
}

/** A message line: a role, a numeric `created` and a list of typed content. */
function isGooseMessageLine(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    (value.role === 'user' || value.role === 'assistant') &&
    typeof value.created === 'number' &&
    Array.isArray(value.content) &&
    value.content.every((c) => isRecord(c) && typeof c.type === 'string')
  );
}

function sessionMeta(file: string, head: Record<string, unknown> | undefined): SessionMeta {
  const id = path.basename(file, '.jsonl');
  const title = asString(head?.description)?.trim();
  const cwd = asString(head?.working_dir);
  const tokens = (key: string): number | null =>
    head && typeof head[key] === 'number' ? asNumber(head[key]) : null;
  return {
    agent: 'goose',
    sessionId: id,
    ...(title && { title }),
    ...(cwd && { cwd }),
    extra: {
      goose_store: 'jsonl',
      schedule_id: asString(head?.schedule_id) ?? null,
      accumulated_input_tokens: tokens('accumulated_input_tokens'),
      accumulated_output_tokens: tokens('accumulated_output_tokens'),
    },
  };
}

/**
 * The events of one file, read line by line. Unless `final`, a line that does not parse
 * ends the read (Goose may be rewriting the file): the rest is read at a later sync.
 */
async function* gooseJsonlEvents(file: string, final = true): AsyncGenerator<SessionEvent> {
  const keys = new GooseKeys();
  let begun = false;
  const begin = (head?: Record<string, unknown>): SessionEvent => {
    begun = true;
    return { kind: 'session', key: path.basename(file), meta: sessionMeta(file, head) };
  };
  for await (const raw of readJsonl(file)) {
    if (raw.lineNo === 1 && raw.ok && isGooseMetadataLine(raw.value)) {
      yield begin(raw.value);
      continue;
    }
    if (!begun) yield begin();
    const where = `line ${raw.lineNo}`;
    if (!raw.ok) {
      if (!final) return;
      yield { kind: 'skip', key: `L${raw.lineNo}`, where, reason: raw.error };
      continue;
    }
    const m = raw.value;
    if (!isRecord(m) || typeof m.role !== 'string' || typeof m.created !== 'number') {
      yield { kind: 'skip', key: `L${raw.lineNo}`, where, reason: 'not a Goose message' };
      continue;
    }
    const key = keys.next(m.role, m.created, JSON.stringify(m.content));
    yield* gooseMessage(
      { role: m.role, content: m.content, created: m.created, metadata: m.metadata },
      key,
      where,
    );
  }
  if (!begun) yield begin();
}

export const gooseJsonlFormat: SessionFormat = {
  agent: 'goose',
  input: 'text',
  sniff: (head) => {
    if (typeof head !== 'string') return false;
    const first = head.split('\n', 1)[0]!;
    try {
      const value = JSON.parse(first) as unknown;
      return isGooseMetadataLine(value) || isGooseMessageLine(value);
    } catch {
      return false;
    }
  },
  parse: (file) => gooseJsonlEvents(file),
};

/** Whether a parsed first line of a JSON Lines file is Goose's (metadata or a message). */
export function isGooseJsonlHead(value: Record<string, unknown>): boolean {
  return isGooseMetadataLine(value) || isGooseMessageLine(value);
}

/**
 * A session file as a store of one session: its version the file's modification time, its
 * size its record count (the file is rewritten whole). Empty when sessions.db beside it
 * holds the session (Goose 1.10+ imported it there).
 */
export function gooseJsonlStore(file: string): SessionStore {
  const id = path.basename(file, '.jsonl');
  return {
    sessions() {
      if (inDatabaseBeside(file, id)) return [];
      const stat = fs.statSync(file);
      return [{ id, version: Math.floor(stat.mtimeMs), rows: stat.size }];
    },
    events: (_id, final) => gooseJsonlEvents(file, final),
    close: () => undefined,
  };
}

function inDatabaseBeside(file: string, id: string): boolean {
  const db = path.join(path.dirname(file), 'sessions.db');
  if (!fs.existsSync(db)) return false;
  try {
    const conn = openForeignDatabase(db);
    try {
      return conn.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
    } finally {
      conn.close();
    }
  } catch (err) {
    // Locked or half-written now: wait for it rather than make the session twice. A
    // database without Goose's tables is not Goose's.
    return err instanceof StoreUnavailable;
  }
}
