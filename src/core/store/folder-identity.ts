import fs from 'node:fs';
import path from 'node:path';
import { CwbError } from '../errors';
import { isoTimestamp } from '../iso-timestamp';

/**
 * A contexts folder's own identity (docs/fleet.md): an id written once inside the folder
 * the first time it opens a fleet index. Rows of a fleet index carry it, so two folders
 * of one host keep their rows apart, and a folder copied to another host (the same id
 * registered by another host) is recognised.
 */
export const FOLDER_ID_FILE = 'folder-id.json';

export interface FolderIdentity {
  id: string;
  /** When and on which host the id was made (for people reading the file). */
  created_at: string;
  host: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The folder's id, if it has one. A file that is not one is an error naming it. */
export function readFolderIdentity(root: string): FolderIdentity | undefined {
  const file = path.join(root, FOLDER_ID_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CwbError('io', `cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: Partial<FolderIdentity> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<FolderIdentity>;
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed.id !== 'string' || !UUID.test(parsed.id)) {
    throw new CwbError(
      'bad_input',
      `${file} is not a contexts folder id (expected {"id": "<uuid>", …}); restore it from a backup, or remove it to give the folder a new identity`,
    );
  }
  return {
    id: parsed.id,
    created_at: String(parsed.created_at ?? ''),
    host: String(parsed.host ?? ''),
  };
}

/**
 * The folder's id, made now if it has none. Written to a temp file and linked into place,
 * so processes opening a new folder together all end with the one id that won.
 */
export function folderIdentity(root: string, host: string): FolderIdentity {
  const known = readFolderIdentity(root);
  if (known) return known;
  const identity: FolderIdentity = {
    id: process.getBuiltinModule('node:crypto').randomUUID(),
    created_at: isoTimestamp(),
    host,
  };
  const file = path.join(root, FOLDER_ID_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, `${JSON.stringify(identity)}\n`, { flag: 'w', mode: 0o644 });
    fs.linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new CwbError('io', `cannot write ${file}: ${(err as Error).message}`);
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return readFolderIdentity(root)!;
}
