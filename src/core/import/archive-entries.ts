import { isTaskUuid } from '../../shared/uuid';
import { badInput } from '../errors';
import { MANIFEST_NAME, isTaskFilePath } from '../export/archive-manifest';
import { TASK_FILES } from '../store/contexts-layout';

/** What the central directory says about one entry (a subset of yauzl's Entry). */
export interface ZipEntryInfo {
  fileName: string;
  uncompressedSize: number;
  externalFileAttributes: number;
  versionMadeBy: number;
  compressionMethod: number;
  encrypted: boolean;
}

export type ArchiveEntry =
  | { kind: 'manifest' }
  | { kind: 'directory'; uuid: string }
  | { kind: 'file'; uuid: string; relative: string };

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const MADE_BY_UNIX = 3;
const STORED = 0;
const DEFLATED = 8;

/**
 * Decides what an archive entry is before a byte of it is read, or refuses it: names must
 * be relative, `/`-separated, without `.`/`..`/empty segments, backslashes or NUL, and
 * spell exactly `manifest.json`, `<uuid>/`, `<uuid>/tool_outputs/` or `<uuid>/<task file>`
 * (see isTaskFilePath); the entry must be a plain file or folder (no symbolic links,
 * devices or pipes), unencrypted, stored or deflated, and no larger than `maxBytes`.
 */
export function classifyEntry(entry: ZipEntryInfo, maxBytes: number): ArchiveEntry {
  const name = entry.fileName;
  const shown = JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
  const refuse = (why: string): never => {
    throw badInput(`archive entry ${shown} refused: ${why}`);
  };
  if (name.includes('\0') || name.includes('\\')) refuse('backslash or NUL in its name');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) refuse('absolute path');
  const isDirectoryName = name.endsWith('/');
  const segments = (isDirectoryName ? name.slice(0, -1) : name).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    refuse('".", ".." or empty path segment');
  const type = fileType(entry);
  if (type === 'special') refuse('a symbolic link or special file');
  if (type === 'directory' && !isDirectoryName) refuse('a folder whose name does not end with "/"');
  if (entry.encrypted) refuse('encrypted');
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED)
    refuse(`unsupported compression method ${entry.compressionMethod}`);
  if (entry.uncompressedSize > maxBytes)
    refuse(`${entry.uncompressedSize} bytes uncompressed, more than the limit of ${maxBytes}`);

  if (name === MANIFEST_NAME) return { kind: 'manifest' };
  const [uuid, ...rest] = segments;
  if (uuid === undefined || !isTaskUuid(uuid)) refuse('not inside a task folder named by its uuid');
  const relative = rest.join('/');
  if (isDirectoryName) {
    if (relative === '' || relative === TASK_FILES.toolOutputs)
      return { kind: 'directory', uuid: uuid! };
    return refuse('not a task folder');
  }
  if (type === 'directory' || !isTaskFilePath(relative)) refuse('not a task file');
  return { kind: 'file', uuid: uuid!, relative };
}

/** Unix mode bits when the archive was made on Unix; MS-DOS attributes otherwise. */
function fileType(entry: ZipEntryInfo): 'file' | 'directory' | 'special' {
  if (entry.versionMadeBy >> 8 === MADE_BY_UNIX) {
    const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
    if (mode === 0 || mode === S_IFREG) return 'file';
    if (mode === S_IFDIR) return 'directory';
    return 'special';
  }
  return (entry.externalFileAttributes & 0x10) !== 0 ? 'directory' : 'file';
}
