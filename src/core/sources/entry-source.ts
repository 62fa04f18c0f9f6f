import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EntryRef } from '../import/transcript-sink';
import { readJsonlSync } from '../jsonl/jsonl-reader';
import { fingerprint } from './fingerprint';

/** One entry of a source, read from where the last sync stopped. */
export type SourceEntry =
  | { ok: true; value: unknown; lineNo: number; ref: EntryRef; next: number }
  | { ok: false; error: string; lineNo: number; ref: EntryRef; next: number }
  /** Not complete yet (a last line without its newline, an event file still being written). */
  | { partial: true };

/**
 * An append-only source read entry by entry: a JSONL file (positions are byte offsets) or a
 * folder of one JSON file per event, `<n>.json` (OpenHands' `events/`: positions are event
 * numbers). `size` is where the source ends now; a sync reads [offset, size).
 */
export interface EntrySource {
  /** What `size` and offsets count. */
  unit: 'bytes' | 'events';
  size: number;
  mtimeMs: number;
  ino: string;
  /** A fingerprint of what lies before `offset`: changes when the source was replaced. */
  fingerprint(offset: number): string;
  /**
   * The entries in [start, end). `final`: the source has been still for a while, so an entry
   * that is still incomplete (a missing or unreadable event file) is skipped, not waited for.
   * Read synchronously: a sync is a batch job, and awaiting each chunk cost it more than the
   * read itself; its caller gives the event loop its turns.
   */
  read(start: number, end: number, firstLineNo: number, final: boolean): Iterable<SourceEntry>;
  /** An entry read before and held back by the mapper, read again. */
  readAgain(ref: EntryRef): unknown;
}

/** A sync reads whole session files: fewer, larger reads than the 64 KiB of a paged reader. */
const READ_CHUNK = 1024 * 1024;

/** `omitMember`: a top-level member of each line no mapper reads (ReadJsonlOptions). */
export function jsonlSource(file: string, stat: fs.Stats, omitMember?: string): EntrySource {
  return {
    unit: 'bytes',
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ino: String(stat.ino),
    fingerprint: (offset) => fingerprint(file, offset),
    *read(start, end, firstLineNo) {
      const options = { start, end, firstLineNo, chunkBytes: READ_CHUNK, omitMember };
      for (const entry of readJsonlSync(file, options)) {
        // A last line without its newline is still being written: left for the next sync.
        if (entry.partial) {
          yield { partial: true };
          return;
        }
        const ref = { offset: entry.offset, bytes: entry.bytes, lineNo: entry.lineNo };
        const next = entry.offset + entry.bytes + 1;
        yield entry.ok
          ? { ok: true, value: entry.value, lineNo: entry.lineNo, ref, next }
          : { ok: false, error: entry.error, lineNo: entry.lineNo, ref, next };
      }
    },
    readAgain(ref) {
      const fd = fs.openSync(file, 'r');
      try {
        const buffer = Buffer.alloc(ref.bytes + 1);
        const n = fs.readSync(fd, buffer, 0, buffer.length, ref.offset);
        if (n !== buffer.length || buffer[ref.bytes] !== 0x0a)
          throw new Error(`line ${ref.lineNo} is no longer where it was read`);
        return JSON.parse(buffer.toString('utf8', 0, ref.bytes)) as unknown;
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

const EVENT_FILE = /^(\d+)\.json$/;

/** The numbered event files of an events folder: number → name. */
function eventFiles(dir: string): Map<number, string> {
  const files = new Map<number, string>();
  for (const name of fs.readdirSync(dir)) {
    const match = EVENT_FILE.exec(name);
    if (match) files.set(Number.parseInt(match[1]!, 10), name);
  }
  return files;
}

/**
 * A folder of event files, written once each and never changed (OpenHands' file store:
 * `sessions/<id>/events/<n>.json`, n from 0 up). Its size is one past the highest event
 * number; its time the newest of the folder's and its new files'. Events are read in
 * number order; a number not there yet (OpenHands numbers an event before it writes its
 * file) or a file not yet readable as JSON stops the read until the folder is still.
 */
export function eventFolderSource(dir: string, readFrom: number): EntrySource {
  const stat = fs.statSync(dir);
  const files = eventFiles(dir);
  let size = 0;
  let mtimeMs = stat.mtimeMs;
  for (const [n, name] of files) {
    size = Math.max(size, n + 1);
    if (n >= readFrom - 1) {
      try {
        mtimeMs = Math.max(mtimeMs, fs.statSync(path.join(dir, name)).mtimeMs);
      } catch {
        // removed since the listing: the read finds out
      }
    }
  }
  const load = (n: number): unknown =>
    JSON.parse(fs.readFileSync(path.join(dir, files.get(n) ?? `${n}.json`), 'utf8')) as unknown;
  return {
    unit: 'events',
    size,
    mtimeMs,
    ino: String(stat.ino),
    fingerprint(offset) {
      // The first event and the last one read: a session folder made again has other ones.
      const hash = crypto.createHash('sha256').update(`events:${offset}:`);
      for (const n of offset > 0 ? [0, offset - 1] : []) {
        try {
          hash.update(fs.readFileSync(path.join(dir, files.get(n) ?? `${n}.json`)));
        } catch {
          hash.update('missing');
        }
      }
      return hash.digest('hex');
    },
    *read(start, end, _firstLineNo, final) {
      for (let n = start; n < end; n++) {
        const ref = { offset: n, bytes: 0, lineNo: n + 1 };
        let value: unknown;
        try {
          value = load(n);
        } catch (err) {
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          if (!final) {
            yield { partial: true };
            return;
          }
          const error = missing
            ? `event ${n}: no file ${n}.json (the folder has later events)`
            : `event ${n}: ${(err as Error).message}`;
          yield { ok: false, error, lineNo: n + 1, ref, next: n + 1 };
          continue;
        }
        yield { ok: true, value, lineNo: n + 1, ref, next: n + 1 };
      }
    },
    readAgain: (ref) => load(ref.offset),
  };
}
