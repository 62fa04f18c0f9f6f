import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { truncateBack } from './append-log';
import { readByteAt } from './backward-scan';
import { CHUNK_BYTES, NEWLINE } from './constants';
import { readLinesSync } from './line-reader';
import { readFullySync } from './read-fully';
import { writeAllSync } from './write-all';
import { randomHex } from '../random-hex';

const ENTRY_BYTES = 8;
// Entries written per write() while scanning: 64 KiB of index at a time.
const BATCH_ENTRIES = 8192;
/**
 * Appended entries kept in memory before one write: an 8-byte write per message was a third
 * of an append's system calls (issue #17). Losing them in a crash costs nothing but a short
 * scan: open() indexes every complete line past the last entry on disk.
 */
export const PENDING_ENTRIES = 256;
/**
 * A JSONL file shorter than this needs no sidecar: finding its lines is one scan of a few
 * hundred KiB, which costs less than the file. A reader indexes it in memory; a writer given
 * `withoutSidecarBelow` leaves a missing sidecar unmade until the file is this long or it
 * holds as many entries as it may (the sources' sync and `cwb import`, which make a task per
 * session: a file fewer per short one).
 */
export const SIDECAR_MIN_BYTES = 1024 * 1024;

export interface OffsetIndexOptions {
  /**
   * Never modify the sidecar (a reader beside a live writer). If the sidecar needs repair,
   * the repaired index lives in a private temp file that close() removes.
   */
  readonly?: boolean;
  /**
   * Runs before appended entries are written: a writer that holds its lines in memory
   * (a batched AppendLog) writes them here, so an entry never reaches the disk before its line.
   */
  beforeWrite?: () => void;
  /**
   * Appended entries held in memory before they are written (PENDING_ENTRIES by default). A
   * batch writer holding a whole session's lines holds their entries as long.
   */
  pendingEntries?: number;
  /**
   * A writer: a missing sidecar is made only once the indexed lines reach this many bytes or
   * the entries held reach `pendingEntries` (it stays unmade for a short file, whose entries
   * are dropped at close). 0 (the default) makes it at once.
   */
  withoutSidecarBelow?: number;
}

/**
 * Line number → byte offset for a JSON Lines file, kept in a sidecar file of little-endian
 * uint64s (entry i = offset of line i + 1), so any window of a huge file is one seek away.
 * The index is derived data: open() repairs or rebuilds it from the JSONL file, which is the
 * source of truth. Only complete lines (ending in '\n') are indexed.
 *
 * Writers append the line to the JSONL file first, then its offset here; append() keeps up to
 * PENDING_ENTRIES entries in memory and writes them together (or on flush()/close()), so a
 * crash leaves the index up to that many entries short, which open() fills in from the JSONL
 * file (readers beside a live writer do the same, in a private copy). Run recoverTornTail on the JSONL
 * file before opening for writing, so a half-written line is not mistaken for data.
 */
export class OffsetIndex {
  readonly path: string;
  private readonly readonly: boolean;
  /** The file entries are read from: the sidecar, or a private copy in readonly mode; -1 if none. */
  private fd: number;
  private fileBytes: number;
  private privatePath: string | undefined;
  /** Entries in the file (the trusted prefix); the pending ones come after these. */
  private entries = 0;
  private pending: Buffer | undefined;
  private pendingCount = 0;
  private lastOffset = -1;
  private closed = false;
  private beforeWrite: (() => void) | undefined;
  private pendingLimit = PENDING_ENTRIES;
  /**
   * No sidecar: a reader's entries of a short file, all in memory (pending, never written),
   * or a writer's sidecar not made yet (withoutSidecarBelow): its path, made when needed.
   */
  private inMemory = false;
  private unmade: { below: number } | undefined;

  private constructor(idxPath: string, fd: number, readonly: boolean) {
    this.path = idxPath;
    this.fd = fd;
    this.readonly = readonly;
    this.fileBytes = fd < 0 ? 0 : fs.fstatSync(fd).size;
  }

  static open(
    jsonlPath: string,
    idxPath: string = `${jsonlPath}.idx`,
    options: OffsetIndexOptions = {},
  ): OffsetIndex {
    const readonly = options.readonly ?? false;
    const below = readonly ? 0 : (options.withoutSidecarBelow ?? 0);
    // a+: reads at any position, writes always land at the end.
    const fd =
      readonly || below > 0
        ? openIfExists(idxPath, readonly ? 'r' : 'a+')
        : fs.openSync(idxPath, 'a+');
    let index: OffsetIndex | undefined;
    try {
      index = new OffsetIndex(idxPath, fd, readonly);
      index.pendingLimit = Math.max(1, options.pendingEntries ?? PENDING_ENTRIES);
      if (fd < 0) {
        const size = sizeOrZero(jsonlPath);
        if (readonly) index.inMemory = size < SIDECAR_MIN_BYTES;
        else if (size < below) index.unmade = { below };
        else index.make();
        // Held in memory until the file is long enough (a line is at least 2 bytes).
        if (index.inMemory || index.unmade)
          index.pendingLimit = Math.max(index.pendingLimit, Math.ceil(SIDECAR_MIN_BYTES / 2));
      }
      index.reconcile(jsonlPath);
      index.beforeWrite = options.beforeWrite;
      return index;
    } catch (error) {
      if (index) index.close();
      else if (fd >= 0) fs.closeSync(fd);
      throw error;
    }
  }

  /** Number of indexed lines. */
  get count(): number {
    return this.entries + this.pendingCount;
  }

  /** Byte offset where line `lineNo` (1-based) starts. */
  offsetOf(lineNo: number): number {
    this.requireOpen();
    const total = this.count;
    if (!Number.isInteger(lineNo) || lineNo < 1 || lineNo > total) {
      throw new RangeError(`${this.path}: line ${lineNo} is outside 1..${total}`);
    }
    if (lineNo > this.entries) return this.pendingAt(lineNo - 1 - this.entries);
    return this.entryAt(lineNo - 1);
  }

  /** Records the start offset of the next line; offsets must strictly increase. */
  append(offset: number): void {
    this.requireOpen();
    if (this.readonly) throw new Error(`${this.path}: append on an index opened readonly`);
    if (!Number.isSafeInteger(offset) || offset <= this.lastOffset) {
      throw new RangeError(`${this.path}: offset ${offset} does not follow ${this.lastOffset}`);
    }
    // Written before the new entry joins, so a failed write leaves the count as it was.
    if (this.pendingCount === this.pendingLimit) this.flush();
    this.holdEntry(offset);
    this.lastOffset = offset;
  }

  /** Adds a pending entry, growing the buffer (by doubling, up to the limit) as needed. */
  private holdEntry(offset: number): void {
    const needed = (this.pendingCount + 1) * ENTRY_BYTES;
    if (!this.pending || this.pending.length < needed) {
      const entries = Math.min(
        this.pendingLimit,
        Math.max(PENDING_ENTRIES, (this.pending?.length ?? 0) / (ENTRY_BYTES / 2)),
      );
      const grown = Buffer.allocUnsafe(entries * ENTRY_BYTES);
      this.pending?.copy(grown, 0, 0, this.pendingCount * ENTRY_BYTES);
      this.pending = grown;
    }
    // Offsets are below 2^53 (checked in append), so two 32-bit halves need no BigInt.
    const at = this.pendingCount * ENTRY_BYTES;
    this.pending.writeUInt32LE(offset % 0x1_0000_0000, at);
    this.pending.writeUInt32LE(Math.floor(offset / 0x1_0000_0000), at + 4);
    this.pendingCount += 1;
  }

  /** Whether every entry is still in memory (none written to the sidecar yet). */
  get allPending(): boolean {
    return this.entries === 0;
  }

  /**
   * Replaces the offsets of an index whose entries are all in memory (allPending): its lines
   * were rewritten before they reached the disk (MessageStore's history-only flags).
   */
  replacePending(offsets: readonly number[]): void {
    this.requireOpen();
    if (!this.allPending || offsets.length !== this.pendingCount) {
      throw new Error(`${this.path}: only an index held whole in memory can be rewritten`);
    }
    this.pendingCount = 0;
    this.lastOffset = -1;
    for (const offset of offsets) {
      if (!Number.isSafeInteger(offset) || offset <= this.lastOffset) {
        throw new RangeError(`${this.path}: offset ${offset} does not follow ${this.lastOffset}`);
      }
      this.holdEntry(offset);
      this.lastOffset = offset;
    }
  }

  /** Writes the entries appended since the last write (a step's end, close). */
  flush(): void {
    this.requireOpen();
    if (this.pendingCount === 0 || !this.pending) return;
    // Kept in memory: a reader's index of a short file, a writer's whose sidecar is not made
    // (made once its lines are long enough, or it holds as many entries as it may).
    if (this.inMemory) return;
    if (this.unmade && this.lastOffset < this.unmade.below && this.pendingCount < this.pendingLimit)
      return;
    this.beforeWrite?.();
    this.writeEntries(this.pending.subarray(0, this.pendingCount * ENTRY_BYTES));
    this.pendingCount = 0;
  }

  /** Keeps the first `count` entries only: forgets lines that were rolled back. */
  truncate(count: number): void {
    this.requireOpen();
    if (this.readonly) throw new Error(`${this.path}: truncate on an index opened readonly`);
    if (!Number.isInteger(count) || count < 0 || count > this.count) {
      throw new RangeError(`${this.path}: cannot keep ${count} of ${this.count} entries`);
    }
    if (count >= this.entries) {
      this.pendingCount = count - this.entries;
      this.lastOffset = count > 0 ? this.offsetOf(count) : -1;
      return;
    }
    this.pendingCount = 0;
    this.entries = count;
    this.lastOffset = count > 0 ? this.entryAt(count - 1) : -1;
    this.settle(false);
  }

  close(): void {
    if (this.closed) return;
    try {
      // A short file's entries are dropped with its sidecar never made; a longer one's written.
      if (this.unmade && this.lastOffset >= this.unmade.below) this.make();
      this.flush();
    } catch {
      // The index is derived: entries that could not be written are rebuilt on open.
    }
    this.closed = true;
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    if (this.privatePath) fs.rmSync(this.privatePath, { force: true });
  }

  /**
   * Makes the index match the JSONL file. Only the sidecar's tail is read unless it is
   * damaged; the file is changed only if it disagrees with the JSONL file.
   */
  private reconcile(jsonlPath: string): void {
    // Measured after the sidecar (constructor): a writer appends the line before its entry,
    // so every entry seen already has its line inside this size.
    const jsonlSize = sizeOrZero(jsonlPath);
    // A torn last entry (crash mid-write of its 8 bytes) is simply not counted.
    this.entries = Math.floor(this.fileBytes / ENTRY_BYTES);
    if (this.entries > 0 && this.entryAt(0) !== 0) this.entries = 0;
    // Entries at or past the end of the JSONL file point at lines that were cut off.
    if (this.entries > 0 && this.entryAt(this.entries - 1) >= jsonlSize) {
      this.entries = this.countBelow(jsonlSize);
    }
    if (jsonlSize > 0 && this.entries > 0 && !this.lastEntryIsPlausible(jsonlPath)) {
      this.entries = 0;
    }
    this.lastOffset = this.entries > 0 ? this.entryAt(this.entries - 1) : -1;
    if (jsonlSize > 0) this.catchUp(jsonlPath);
    this.settle(false);
  }

  /**
   * Cheap checks on the last entry: it starts a line, grows from the one before, and leaves
   * room for one byte per earlier line. A zero-filled or shifted tail fails one of these.
   */
  private lastEntryIsPlausible(jsonlPath: string): boolean {
    const last = this.entryAt(this.entries - 1);
    if (last < this.entries - 1) return false;
    if (this.entries > 1 && this.entryAt(this.entries - 2) >= last) return false;
    if (last === 0) return true;
    const jsonlFd = fs.openSync(jsonlPath, 'r');
    try {
      return readByteAt(jsonlFd, last - 1) === NEWLINE;
    } finally {
      fs.closeSync(jsonlFd);
    }
  }

  /**
   * Scans the JSONL file from the last indexed line onwards and indexes every complete line
   * after it. With an empty index this is the full rebuild.
   */
  private catchUp(jsonlPath: string): void {
    if (this.inMemory || this.unmade) {
      this.holdAll(jsonlPath);
      return;
    }
    const alreadyIndexed = this.entries > 0;
    const resumeFrom = alreadyIndexed ? this.lastOffset : 0;
    const batch = Buffer.allocUnsafe(BATCH_ENTRIES * ENTRY_BYTES);
    let batched = 0;
    const flush = (): void => {
      if (batched === 0) return;
      this.writeEntries(batch.subarray(0, batched * ENTRY_BYTES));
      batched = 0;
    };
    // maxLineBytes 0: only line boundaries are needed, so no line text is ever buffered.
    for (const line of readLinesSync(jsonlPath, { start: resumeFrom, maxLineBytes: 0 })) {
      if (line.partial) {
        // The last indexed line lost its '\n' (file cut mid-line): it is no longer a line.
        if (line.offset === resumeFrom && alreadyIndexed) this.entries -= 1;
        break;
      }
      if (line.offset === resumeFrom && alreadyIndexed) continue;
      batch.writeBigUInt64LE(BigInt(line.offset), batched * ENTRY_BYTES);
      batched += 1;
      if (batched === BATCH_ENTRIES) flush();
    }
    flush();
    this.lastOffset = this.entries > 0 ? this.entryAt(this.entries - 1) : -1;
  }

  /** Indexes every complete line of a short file without a sidecar, in memory. */
  private holdAll(jsonlPath: string): void {
    for (const line of readLinesSync(jsonlPath, { start: 0, maxLineBytes: 0 })) {
      if (line.partial) break;
      this.holdEntry(line.offset);
      this.lastOffset = line.offset;
    }
  }

  /** Appends entries after the first `this.entries`, which become the whole file first. */
  private writeEntries(entries: Buffer): void {
    if (this.unmade) this.make();
    this.settle(true);
    try {
      writeAllSync(this.fd, entries);
    } catch (error) {
      // Part of an entry may have landed: cut back to the last whole one, so later entries
      // stay aligned (in readonly mode the file is a private copy, ours to cut).
      this.fileBytes = truncateBack(this.fd, this.fileBytes);
      this.entries = Math.min(this.entries, Math.floor(this.fileBytes / ENTRY_BYTES));
      throw error;
    }
    this.fileBytes += entries.length;
    this.entries += entries.length / ENTRY_BYTES;
  }

  /** Makes the sidecar a writer left unmade (withoutSidecarBelow): its entries go there now. */
  private make(): void {
    this.fd = fs.openSync(this.path, 'a+');
    this.fileBytes = fs.fstatSync(this.fd).size;
    this.unmade = undefined;
  }

  /** Makes the file hold exactly the `this.entries` entries that are counted. */
  private settle(forWrite: boolean): void {
    const bytes = this.entries * ENTRY_BYTES;
    const ownsFile = !this.readonly || this.privatePath !== undefined;
    if (ownsFile) {
      if (this.fileBytes === bytes) return;
      fs.ftruncateSync(this.fd, bytes);
      this.fileBytes = bytes;
    } else if (forWrite || this.fileBytes !== bytes) {
      this.switchToPrivateCopy(bytes);
    }
  }

  /** Readonly repair: copy the trusted prefix to a temp file the caller owns alone. */
  private switchToPrivateCopy(bytes: number): void {
    const privatePath = path.join(os.tmpdir(), `cwb-offset-index-${process.pid}-${randomHex(6)}`);
    const copy = fs.openSync(privatePath, 'ax+');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(bytes, 1)));
      for (let position = 0; position < bytes;) {
        const chunk = buffer.subarray(0, Math.min(buffer.length, bytes - position));
        readFullySync(this.fd, chunk, position);
        writeAllSync(copy, chunk);
        position += chunk.length;
      }
    } catch (error) {
      fs.closeSync(copy);
      fs.rmSync(privatePath, { force: true });
      throw error;
    }
    if (this.fd >= 0) fs.closeSync(this.fd);
    if (this.privatePath) fs.rmSync(this.privatePath, { force: true });
    this.fd = copy;
    this.fileBytes = bytes;
    this.privatePath = privatePath;
  }

  /** How many leading entries are below `limit` (entries strictly increase). */
  private countBelow(limit: number): number {
    let low = 0;
    let high = this.entries;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (this.entryAt(middle) < limit) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private entryAt(index: number): number {
    const entry = Buffer.allocUnsafe(ENTRY_BYTES);
    readFullySync(this.fd, entry, index * ENTRY_BYTES);
    const offset = entry.readBigUInt64LE();
    // Anything beyond 2^53 is garbage, not a real offset; report it as unreachable.
    return offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(offset);
  }

  private pendingAt(index: number): number {
    const at = index * ENTRY_BYTES;
    // pending is set whenever pendingCount > 0, the only time this is called.
    const pending = this.pending!;
    return pending.readUInt32LE(at) + pending.readUInt32LE(at + 4) * 0x1_0000_0000;
  }

  private requireOpen(): void {
    if (this.closed) throw new Error(`${this.path}: index used after close`);
  }
}

/** The sidecar if it exists: for reading, or (a+ without creating it) for appending. */
function openIfExists(filePath: string, flags: 'r' | 'a+'): number {
  try {
    return fs.openSync(filePath, flags === 'r' ? 'r' : fs.constants.O_RDWR | fs.constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw error;
  }
}

function sizeOrZero(filePath: string): number {
  try {
    return fs.statSync(filePath).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
