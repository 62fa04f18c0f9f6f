import fs from 'node:fs';
import crypto from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { findLastNewline } from '../jsonl/backward-scan';
import { CwbError } from '../errors';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  MANIFEST_NAME,
  type Manifest,
  type ManifestFile,
} from './archive-manifest';
import { listTaskFiles, type TaskFile } from './task-file-list';
import { isoTimestamp } from '../iso-timestamp';
import type { Redactor } from './redaction';
import { redactingLines } from './redacting-lines';

export interface ArchivedTask {
  uuid: string;
  files: number;
  bytes: number;
  /** Names in the task folder that are not task files (temporary files) and were not archived. */
  left_out: string[];
}

/**
 * Writes tasks as one zip (see archive-manifest.ts for the layout), streamed: each file
 * is opened only when the zip writer reaches it, read once, hashed on the way through
 * and compressed into `out`; the manifest with every file's sha256 and size comes last.
 * Memory does not depend on task size.
 *
 * A task still running is archived as it is at that moment: each file up to its size
 * when reached, JSONL files cut after their last complete line (a line being written is
 * left out), the index to whole entries.
 */
export async function writeArchive(
  store: ContextStore,
  uuids: readonly string[],
  out: Writable,
  redactor: Redactor | null = null,
): Promise<ArchivedTask[]> {
  const rows = [...new Set(uuids)].map((uuid) => store.requireTask(uuid));
  const zip = new ZipFile();
  const zipError = new Promise<never>((_, reject) => zip.on('error', reject));
  // A target that fails (a full disk, a closed pipe) stops taking bytes: the zip would wait
  // for it forever, and its 'error' unheard would end the process. Raced with the work.
  let outFailure: Error | undefined;
  let failOut!: (err: Error) => void;
  const outError = new Promise<never>((_, reject) => {
    failOut = (err) => {
      outFailure ??= err;
      reject(err);
    };
  });
  out.on('error', failOut);
  if (out.errored) failOut(out.errored);
  // The target decides when it ends (stdout never does), so the zip's end is awaited instead.
  zip.outputStream.pipe(out, { end: false });
  const written = finished(zip.outputStream);
  written.catch(() => undefined); // awaited by the work; a failure before that is the race's
  const work = (async () => {
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: isoTimestamp(),
      tasks: [],
    };
    const report: ArchivedTask[] = [];
    for (const row of rows) {
      const listed = listTaskFiles(store.taskPath(row));
      // A redacted file changes length, so its offset index would point into the wrong
      // places: left out, the importer rebuilds it from the messages.
      const files = redactor
        ? listed.files.filter((f) => !f.relative.endsWith('.idx'))
        : listed.files;
      const leftOut = listed.leftOut;
      const entries = await Promise.all(files.map((file) => addFile(zip, row, file, redactor)));
      manifest.tasks.push({
        uuid: row.uuid,
        row: {
          ...(redactor ? (JSON.parse(redactor.redact(JSON.stringify(row))) as TaskRow) : row),
        },
        files: entries,
      });
      report.push({
        uuid: row.uuid,
        files: entries.length,
        bytes: entries.reduce((sum, e) => sum + e.bytes, 0),
        left_out: leftOut,
      });
    }
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), MANIFEST_NAME, {
      mode: 0o100644,
    });
    zip.end();
    await written;
    return report;
  })();
  try {
    return await Promise.race([work, zipError, outError]);
  } catch (err) {
    zip.outputStream.unpipe(out);
    // yazl's output is a PassThrough (typed as the older ReadableStream): stop it reading files.
    (zip.outputStream as Readable).destroy();
    // The target's own error goes up as it is: the caller knows which file (or stdout) it is.
    if (outFailure) throw outFailure;
    throw err instanceof CwbError ? err : new CwbError('io', `archive: ${(err as Error).message}`);
  } finally {
    out.off('error', failOut);
  }
}

/**
 * Files are read in pieces of this size: every piece is one trip through the hash, the CRC
 * and zlib's thread pool, and with Node's default 64 KiB the trips cost more than deflate.
 */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * zlib level 3, not the default 6: on task folders (JSONL of code and prose) it writes a
 * 100 MB task about 1.5× as fast for an archive ~9 % larger (measured on the bench's task).
 */
export const ARCHIVE_COMPRESSION_LEVEL = 3;

/** Queues one file; resolves with its manifest entry once the zip writer has read it. */
function addFile(
  zip: ZipFile,
  row: TaskRow,
  file: TaskFile,
  redactor: Redactor | null,
): Promise<ManifestFile> {
  return new Promise<ManifestFile>((resolve, reject) => {
    const name = `${row.uuid}/${file.relative}`;
    let size: number;
    let mtime: Date;
    try {
      ({ size, mtime } = completeSize(file));
    } catch (err) {
      reject(new CwbError('io', `${name}: ${(err as Error).message}`));
      return;
    }
    zip.addReadStreamLazy(
      name,
      // yazl checks a declared size; a redacted file's is known only once it is written.
      {
        ...(redactor ? {} : { size }),
        mtime,
        mode: 0o100644,
        compressionLevel: ARCHIVE_COMPRESSION_LEVEL,
      },
      (cb) => {
        const hash = crypto.createHash('sha256');
        let bytes = 0;
        const source: Readable =
          size === 0
            ? Readable.from([])
            : fs.createReadStream(file.absolute, {
                start: 0,
                end: size - 1,
                highWaterMark: READ_CHUNK_BYTES,
              });
        const tap = new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            bytes += chunk.length;
            done(null, chunk);
          },
          flush(done) {
            resolve({ path: file.relative, bytes, sha256: hash.digest('hex') });
            done();
          },
        });
        source.on('error', (err) => {
          tap.destroy(err);
          reject(new CwbError('io', `${name}: ${err.message}`));
        });
        cb(null, redactor ? source.pipe(redactingLines(redactor)).pipe(tap) : source.pipe(tap));
      },
    );
  });
}

/** The bytes of a file that are complete now (see writeArchive). */
function completeSize(file: TaskFile): { size: number; mtime: Date } {
  const fd = fs.openSync(file.absolute, 'r');
  try {
    const { size, mtime } = fs.fstatSync(fd);
    if (file.relative.endsWith('.jsonl')) return { size: findLastNewline(fd, size) + 1, mtime };
    if (file.relative.endsWith('.idx')) return { size: size - (size % 8), mtime };
    return { size, mtime };
  } finally {
    fs.closeSync(fd);
  }
}
