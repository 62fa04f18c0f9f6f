/**
 * opencode's older JSON storage (`~/.local/share/opencode/storage/`), one file per record:
 * `session/<project id>/<session id>.json` (id, title, directory, parentID, version, time),
 * `message/<session id>/<message id>.json` (the message info) and
 * `part/<message id>/<part id>.json` (each part). Importing or syncing a session file reads
 * its messages and parts from the folders beside; mapped by opencode.ts as opencode.db is.
 * Releases since 1.2 move these records into opencode.db: a session that is in the
 * database beside the storage folder is read from there only (opencodeStorageStore).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openForeignDatabase } from '../db/foreign-database';
import type { SessionStore } from '../sources/sync-store';
import { readJsonDocument } from './json-document';
import { opencodeEvents, type OpencodeMessage, type OpencodeSession } from './opencode';
import type { SessionEvent, SessionFormat } from './session-format';
import { asNumber, asString, isRecord } from './text';

export function isOpencodeSessionDocument(doc: unknown): boolean {
  return (
    isRecord(doc) &&
    typeof doc.id === 'string' &&
    doc.id.startsWith('ses_') &&
    isRecord(doc.time) &&
    (typeof doc.projectID === 'string' || typeof doc.directory === 'string')
  );
}

/** The storage folder of a session file: `<storage>/session/<project>/<id>.json`. */
function storageRoot(file: string): string {
  return path.resolve(path.dirname(file), '..', '..');
}

function jsonFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

function readRecord(file: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function* storageEvents(file: string, doc: unknown, final = true): Generator<SessionEvent> {
  if (!isRecord(doc) || typeof doc.id !== 'string') {
    yield { kind: 'skip', key: 'document', where: 'document', reason: 'not an opencode session' };
    return;
  }
  const root = storageRoot(file);
  const time = isRecord(doc.time) ? doc.time : {};
  const session: OpencodeSession = {
    id: doc.id,
    ...(typeof doc.title === 'string' && { title: doc.title }),
    ...(typeof doc.directory === 'string' && { directory: doc.directory }),
    ...(typeof doc.parentID === 'string' && { parentId: doc.parentID }),
    ...(typeof doc.projectID === 'string' && { projectId: doc.projectID }),
    ...(typeof doc.version === 'string' && { version: doc.version }),
    ...(asNumber(time.created) > 0 && { created: asNumber(time.created) }),
    ...(asNumber(time.updated) > 0 && { updated: asNumber(time.updated) }),
  };
  const bad: SessionEvent[] = [];
  const messages: OpencodeMessage[] = [];
  for (const messageFile of jsonFiles(path.join(root, 'message', doc.id))) {
    const info = readRecord(messageFile);
    const id = asString(info?.id) ?? path.basename(messageFile, '.json');
    if (!info) {
      // opencode writes a record whole; one that does not parse is still being written.
      bad.push({
        kind: 'skip',
        key: `opencode:${id}`,
        where: messageFile,
        reason: 'not a JSON object',
      });
      continue;
    }
    const parts: Record<string, unknown>[] = [];
    for (const partFile of jsonFiles(path.join(root, 'part', id))) {
      const part = readRecord(partFile);
      if (part) parts.push({ ...part, id: asString(part.id) ?? path.basename(partFile, '.json') });
      else
        bad.push({
          kind: 'skip',
          key: `opencode:${path.basename(partFile, '.json')}`,
          where: partFile,
          reason: 'not a JSON object',
        });
    }
    parts.sort((a, b) => String(a.id).localeCompare(String(b.id)));
    messages.push({ id, info, parts });
  }
  const created = (m: OpencodeMessage): number =>
    isRecord(m.info.time) ? asNumber(m.info.time.created) : 0;
  messages.sort((a, b) => created(a) - created(b) || a.id.localeCompare(b.id));
  const all = opencodeEvents('opencode', session, messages, final);
  const first = all.next();
  if (!first.done) yield first.value;
  yield* bad;
  yield* all;
}

export const opencodeStorageFormat: SessionFormat = {
  agent: 'opencode',
  input: 'document',
  sniff: (doc) => isOpencodeSessionDocument(doc),
  async *parse(file, doc, options) {
    yield* storageEvents(file, doc ?? (await readJsonDocument(file, options?.maxJsonBytes)));
  },
};

/**
 * A session file of the JSON storage as a store of one session: its version is the newest
 * modification of its file, message files and part files (opencode rewrites a part in
 * place as it streams), its size their count. Empty when opencode.db beside the storage
 * folder has the session (migrated: read from the database only).
 */
export function opencodeStorageStore(file: string): SessionStore {
  return {
    sessions() {
      const doc = readRecord(file);
      if (!doc || typeof doc.id !== 'string') return [];
      if (inDatabaseBeside(file, doc.id)) return [];
      const root = storageRoot(file);
      let version = fs.statSync(file).mtimeMs;
      let rows = 1;
      for (const m of jsonFiles(path.join(root, 'message', doc.id))) {
        const id = path.basename(m, '.json');
        for (const f of [m, ...jsonFiles(path.join(root, 'part', id))]) {
          rows++;
          try {
            version = Math.max(version, fs.statSync(f).mtimeMs);
          } catch {
            // removed since the listing
          }
        }
      }
      return [{ id: doc.id, version: Math.floor(version), rows }];
    },
    async *events(_id, final) {
      yield* storageEvents(file, readRecord(file), final);
    },
    close: () => undefined,
  };
}

function inDatabaseBeside(file: string, id: string): boolean {
  const db = path.join(storageRoot(file), '..', 'opencode.db');
  if (!fs.existsSync(db)) return false;
  try {
    const conn = openForeignDatabase(db);
    try {
      return conn.prepare('SELECT 1 FROM session WHERE id = ?').get(id) !== undefined;
    } finally {
      conn.close();
    }
  } catch {
    return false;
  }
}
