/**
 * Our own archives (see export/archive-manifest.ts) → tasks, restored as they were.
 *
 * Nothing in the archive is trusted: every entry is classified from the central directory
 * before anything is extracted (classifyEntry: names, types, sizes), the manifest is
 * validated (zod) and must list exactly the entries present, and each file is extracted
 * into a private staging folder under the contexts root while its bytes are counted and
 * hashed. Only when every file of every task matches its manifest size and sha256 are
 * tasks committed (restoreTask: row inserted as recorded, folder moved into place, in one
 * transaction each). A truncated or damaged zip, a bad checksum or a refused entry throws
 * a bad_input error and leaves nothing behind.
 *
 * The message index (messages.jsonl.idx) is derived data: it is rebuilt from the restored
 * messages.jsonl instead of being taken from the archive (the result is the same bytes
 * for an index that was right).
 *
 * A uuid that exists already: `keep-both` gives the imported task a new uuid (written into
 * its metadata.json too, with `original_uuid`; children in the same archive follow their
 * parent), `replace` replaces the existing task (refused while it is running).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { restoreTask, type UuidConflict } from '../store/task-import';
import { OffsetIndex, SIDECAR_MIN_BYTES } from '../jsonl/offset-index';
import { TASK_FILES } from '../store/contexts-layout';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { CwbError, badInput } from '../errors';
import { ManifestSchema, type Manifest, type ManifestTask } from '../export/archive-manifest';
import { classifyEntry, type ArchiveEntry } from './archive-entries';
import { ImportReport } from './import-report';
import { formatBytes } from './json-document';
import { isRecord } from './text';
import type { ImportedTask, ImportOptions } from './types';
import { randomHex } from '../random-hex';

export const ARCHIVE_LIMITS = {
  maxEntryBytes: 8 * 1024 ** 3,
  maxTotalBytes: 32 * 1024 ** 3,
  maxEntries: 500_000,
  maxManifestBytes: 64 * 1024 ** 2,
  /** Free space an import leaves on the contexts root's disk (at most 5% of the disk). */
  reserveBytes: 256 * 1024 ** 2,
};

export interface ArchiveImport {
  tasks: ImportedTask[];
  report: ImportReport;
}

interface Listed {
  entry: Entry;
  kind: ArchiveEntry;
}

export async function importArchive(
  store: ContextStore,
  file: string,
  options: ImportOptions = {},
): Promise<ArchiveImport> {
  const base = path.basename(file);
  const limits = {
    maxEntryBytes: options.maxEntryBytes ?? ARCHIVE_LIMITS.maxEntryBytes,
    maxTotalBytes: options.maxTotalBytes ?? ARCHIVE_LIMITS.maxTotalBytes,
    maxEntries: options.maxEntries ?? ARCHIVE_LIMITS.maxEntries,
  };
  const onConflict: UuidConflict = options.onConflict ?? 'keep-both';
  const zip = await openZip(file);
  const staging = path.join(store.root, '.staging', `import-${process.pid}-${randomHex(6)}`);
  try {
    const listed = await listEntries(zip, base, limits);
    await checkFreeSpace(
      store.root,
      listed.reduce((sum, l) => sum + l.entry.uncompressedSize, 0),
      base,
    );
    const manifest = await readManifest(zip, listed, base);
    const files = matchManifest(manifest, listed, base);
    for (const task of manifest.tasks) {
      const dir = path.join(staging, task.uuid);
      await fs.promises.mkdir(dir, { recursive: true });
      const hasToolOutputs =
        task.files.some((f) => f.path.startsWith(`${TASK_FILES.toolOutputs}/`)) ||
        files.has(`${task.uuid}/${TASK_FILES.toolOutputs}/`);
      if (hasToolOutputs) await fs.promises.mkdir(path.join(dir, TASK_FILES.toolOutputs));
      for (const f of task.files) {
        const entry = files.get(`${task.uuid}/${f.path}`)!;
        await extract(zip, entry, path.join(dir, ...f.path.split('/')), f, base);
      }
      rebuildIndex(
        dir,
        task.files.some((f) => f.path === TASK_FILES.messagesIndex),
      );
    }
    const tasks = await commit(store, manifest, staging, onConflict);
    return { tasks, report: new ImportReport(file) };
  } finally {
    zip.close();
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}

/**
 * A zip bomb (or just a big archive) must not fill the disk: extraction would write until
 * ENOSPC and fail on the last byte, and every task running on that disk would pause
 * meanwhile. The sizes are the central directory's, which extraction enforces (yauzl's
 * validateEntrySizes and the manifest's byte counts), so they bound what is written.
 */
async function checkFreeSpace(root: string, needed: number, base: string): Promise<void> {
  let stats: fs.StatsFs;
  try {
    stats = await fs.promises.statfs(root);
  } catch {
    return; // no statfs here: the size limits still bound the import
  }
  const free = stats.bavail * stats.bsize;
  const reserve = Math.min(ARCHIVE_LIMITS.reserveBytes, stats.blocks * stats.bsize * 0.05);
  if (needed + reserve > free) {
    throw badInput(
      `${base}: ${formatBytes(needed)} uncompressed does not fit in the ${formatBytes(free)} free on the disk of ${root} (an import leaves ${formatBytes(reserve)} free); nothing was extracted`,
    );
  }
}

function openZip(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true },
      (err, zip) => {
        if (err || !zip) {
          reject(
            badInput(
              `${path.basename(file)} is not a readable zip archive (${err?.message ?? 'unknown error'}); is it truncated or damaged?`,
            ),
          );
        } else resolve(zip);
      },
    );
  });
}

/** Every entry of the central directory, each classified (or the whole archive refused). */
function listEntries(
  zip: ZipFile,
  base: string,
  limits: { maxEntryBytes: number; maxTotalBytes: number; maxEntries: number },
): Promise<Listed[]> {
  if (zip.entryCount > limits.maxEntries) {
    return Promise.reject(
      badInput(`${base}: ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`),
    );
  }
  return new Promise((resolve, reject) => {
    const listed: Listed[] = [];
    const names = new Set<string>();
    let total = 0;
    const fail = (err: unknown): void => {
      zip.removeAllListeners('entry');
      reject(err instanceof CwbError ? err : badInput(`${base}: ${(err as Error).message}`));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve(listed));
    zip.on('entry', (entry: Entry) => {
      try {
        const kind = classifyEntry(
          {
            fileName: entry.fileName,
            uncompressedSize: entry.uncompressedSize,
            externalFileAttributes: entry.externalFileAttributes,
            versionMadeBy: entry.versionMadeBy,
            compressionMethod: entry.compressionMethod,
            encrypted: entry.isEncrypted(),
          },
          limits.maxEntryBytes,
        );
        if (names.has(entry.fileName))
          throw badInput(`${base}: entry ${entry.fileName} appears twice`);
        names.add(entry.fileName);
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes)
          throw badInput(`${base}: more than ${limits.maxTotalBytes} bytes uncompressed in total`);
        listed.push({ entry, kind });
        zip.readEntry();
      } catch (err) {
        fail(err);
      }
    });
    zip.readEntry();
  });
}

async function readManifest(zip: ZipFile, listed: Listed[], base: string): Promise<Manifest> {
  const found = listed.find((l) => l.kind.kind === 'manifest');
  if (!found) throw badInput(`${base}: no manifest.json; not a cwb task archive`);
  if (found.entry.uncompressedSize > ARCHIVE_LIMITS.maxManifestBytes)
    throw badInput(
      `${base}: manifest.json is larger than ${ARCHIVE_LIMITS.maxManifestBytes} bytes`,
    );
  const chunks: Buffer[] = [];
  try {
    const stream = await zip.openReadStreamPromise(found.entry);
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (err) {
    throw badInput(`${base}: manifest.json cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw badInput(`${base}: manifest.json is not valid JSON (${(err as Error).message})`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badInput(
      `${base}: manifest.json is not a cwb archive manifest (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unexpected shape'})`,
    );
  }
  return parsed.data;
}

/** The manifest must describe exactly the archive's files; returns entries by name. */
function matchManifest(manifest: Manifest, listed: Listed[], base: string): Map<string, Entry> {
  // Files and folders by name (folders end with '/').
  const files = new Map<string, Entry>();
  for (const l of listed) if (l.kind.kind !== 'manifest') files.set(l.entry.fileName, l.entry);
  const claimed = new Set<string>();
  const uuids = new Set<string>();
  for (const task of manifest.tasks) {
    if (task.row.uuid !== task.uuid)
      throw badInput(`${base}: manifest task ${task.uuid} carries the row of ${task.row.uuid}`);
    if (uuids.has(task.uuid)) throw badInput(`${base}: task ${task.uuid} is listed twice`);
    uuids.add(task.uuid);
    for (const f of task.files) {
      const name = `${task.uuid}/${f.path}`;
      const entry = files.get(name);
      if (!entry) throw badInput(`${base}: ${name} is in the manifest but not in the archive`);
      if (claimed.has(name)) throw badInput(`${base}: ${name} is listed twice in the manifest`);
      if (entry.uncompressedSize !== f.bytes)
        throw badInput(
          `${base}: ${name} holds ${entry.uncompressedSize} bytes, the manifest says ${f.bytes}`,
        );
      claimed.add(name);
    }
  }
  for (const l of listed) {
    if (l.kind.kind === 'file' && !claimed.has(l.entry.fileName))
      throw badInput(`${base}: ${l.entry.fileName} is not listed in the manifest`);
    if (l.kind.kind === 'directory' && !uuids.has(l.kind.uuid))
      throw badInput(`${base}: folder ${l.entry.fileName} is not a task of the manifest`);
  }
  return files;
}

/** Extracts one entry, counting and hashing the bytes; a mismatch with the manifest throws. */
async function extract(
  zip: ZipFile,
  entry: Entry,
  dest: string,
  expected: { bytes: number; sha256: string },
  base: string,
): Promise<void> {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > expected.bytes) {
        done(new Error(`more bytes than the manifest's ${expected.bytes}`));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    const source = await zip.openReadStreamPromise(entry);
    await pipeline(source, counter, fs.createWriteStream(dest, { flags: 'wx' }));
  } catch (err) {
    throw badInput(`${base}: ${entry.fileName} cannot be extracted (${(err as Error).message})`);
  }
  const sha256 = hash.digest('hex');
  if (bytes !== expected.bytes || sha256 !== expected.sha256) {
    throw badInput(
      `${base}: ${entry.fileName} does not match its checksum in the manifest (got ${bytes} bytes, sha256 ${sha256.slice(0, 12)}…); the archive is damaged`,
    );
  }
}

/**
 * The offset index made anew from the messages (an archived one is not trusted). A task
 * archived without one (a short task of the sync or an import, or a redacted export) gets one
 * only if its messages are long enough to need it (SIDECAR_MIN_BYTES).
 */
function rebuildIndex(dir: string, archived: boolean): void {
  const messages = path.join(dir, TASK_FILES.messages);
  const index = path.join(dir, TASK_FILES.messagesIndex);
  fs.rmSync(index, { force: true });
  if (!fs.existsSync(messages)) return;
  const below = archived ? 0 : SIDECAR_MIN_BYTES;
  OffsetIndex.open(messages, index, { withoutSidecarBelow: below }).close();
}

async function commit(
  store: ContextStore,
  manifest: Manifest,
  staging: string,
  onConflict: UuidConflict,
): Promise<ImportedTask[]> {
  // Decide every task's uuid first, so parents and children in one archive stay linked.
  const renamed = new Map<string, string>();
  for (const task of manifest.tasks) {
    const existing = store.repo.get(task.uuid);
    if (!existing) continue;
    if (onConflict === 'keep-both') renamed.set(task.uuid, crypto.randomUUID());
    else if (existing.status === 'running')
      throw new CwbError(
        'conflict',
        `task ${task.uuid} is running here; stop it before replacing it`,
      );
  }
  const imported: ImportedTask[] = [];
  for (const task of manifest.tasks) {
    const dir = path.join(staging, task.uuid);
    const row = rowFor(task, renamed);
    if (row.uuid !== task.uuid || row.parent_uuid !== task.row.parent_uuid)
      patchMetadata(dir, row, task.uuid);
    const replaced = onConflict === 'replace' && store.repo.get(task.uuid) !== undefined;
    const uuid = await restoreTask(
      store,
      row,
      async (target) => {
        for (const name of await fs.promises.readdir(dir))
          await fs.promises.rename(path.join(dir, name), path.join(target, name));
      },
      { onConflict },
    );
    const restored = store.requireTask(uuid);
    imported.push({
      uuid,
      title: restored.title,
      parent_uuid: restored.parent_uuid,
      messages: restored.total_messages,
      tool_calls: restored.tool_call_count,
      llm_calls: restored.llm_call_count,
      ...(uuid !== task.uuid && { original_uuid: task.uuid }),
      ...(replaced && { replaced: true }),
    });
  }
  return imported;
}

function rowFor(task: ManifestTask, renamed: Map<string, string>): TaskRow {
  const row = { ...task.row } as unknown as TaskRow;
  row.uuid = renamed.get(task.uuid) ?? task.uuid;
  if (row.parent_uuid !== null) row.parent_uuid = renamed.get(row.parent_uuid) ?? row.parent_uuid;
  return row;
}

/** A copy under a new uuid says so in its metadata.json (read with a size bound, rewritten atomically). */
function patchMetadata(dir: string, row: TaskRow, originalUuid: string): void {
  const file = path.join(dir, TASK_FILES.metadata);
  let meta: Record<string, unknown> = {};
  try {
    if (fs.statSync(file).size <= 4 * 1024 * 1024) {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (isRecord(parsed)) meta = parsed;
    }
  } catch {
    // no usable metadata.json: write the essentials
  }
  writeFileAtomic(
    file,
    `${JSON.stringify(
      {
        ...meta,
        uuid: row.uuid,
        parent_uuid: row.parent_uuid,
        ...(row.uuid !== originalUuid && { original_uuid: originalUuid }),
      },
      null,
      2,
    )}\n`,
  );
}
