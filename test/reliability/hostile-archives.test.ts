/**
 * Hostile archives on import (issue 18): zip-slip, absolute paths, symbolic links, duplicate
 * names, declared sizes past the limits, many entries, and a real zip bomb (a high
 * compression ratio) on a disk too small for it. Each is refused with a clear bad_input
 * error; the contexts root keeps no row, folder or staging leftover; and nothing in the
 * folder that holds the contexts root changes (it is snapshotted before and after).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import { ContextStore } from '../../src/core/store/context-store';
import { exportTasks } from '../../src/core/export';
import type { Manifest } from '../../src/core/export';
import { importFile } from '../../src/core/import';
import { rawZip, type RawEntry } from '../support/raw-zip';
import { useTempDir } from '../support/temp-dir';
import { probeTmpfs, useTmpfs } from '../support/tmpfs';

const tempDir = useTempDir('cwb-hostile-archives-');

async function readZip(file: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  const out = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry))
        chunks.push(chunk as Buffer);
      out.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return out;
}

async function zipOf(entries: Iterable<[string, Buffer]>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, data] of entries) zip.addBuffer(data, name, { compress: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Every path under `dir` with its size and sha256, the contexts root left out. */
function snapshot(dir: string, skip: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (rel === skip || rel.startsWith(`${skip}/`)) continue;
    const full = path.join(dir, rel);
    const stat = fs.lstatSync(full);
    out[rel] = stat.isFile()
      ? crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex')
      : stat.isSymbolicLink()
        ? `link → ${fs.readlinkSync(full)}`
        : 'dir';
  }
  return out;
}

/** A real archive of one task, its entries, and a parent folder holding the contexts root. */
async function setup(root?: string) {
  const dir = tempDir();
  const source = ContextStore.open(path.join(dir, 'source'));
  const task = source.createTask({ title: 'archived', workdir: dir });
  task.addMessage({ role: 'system', content: 'sys' });
  task.addMessage({ role: 'user', content: 'hello' });
  await task.complete();
  const good = path.join(dir, 'good.zip');
  await exportTasks(source, { uuids: [task.uuid], format: 'archive', output: good });
  source.close();
  const parent = path.join(dir, 'parent');
  fs.mkdirSync(parent);
  fs.writeFileSync(path.join(parent, 'canary.txt'), 'do not touch\n');
  const store = ContextStore.open(root ?? path.join(parent, 'contexts'));
  return { dir, parent, store, uuid: task.uuid, entries: await readZip(good) };
}

async function expectRefused(
  ctx: Awaited<ReturnType<typeof setup>>,
  bytes: Buffer,
  why: RegExp,
  options = {},
): Promise<void> {
  const before = snapshot(ctx.parent, 'contexts');
  const file = path.join(ctx.dir, `case-${crypto.randomBytes(4).toString('hex')}.zip`);
  fs.writeFileSync(file, bytes);
  const err = await importFile(ctx.store, file, options).then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );
  expect(err?.message).toMatch(why);
  expect(err?.code).toBe('bad_input');
  expect(ctx.store.listTasks().total).toBe(0);
  const staging = path.join(ctx.store.root, '.staging');
  expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
  for (const f of ['running', 'paused', 'completed', 'failed']) {
    const folder = path.join(ctx.store.root, f);
    expect(fs.existsSync(folder) ? fs.readdirSync(folder) : [], f).toEqual([]);
  }
  expect(snapshot(ctx.parent, 'contexts')).toEqual(before);
  expect(fs.existsSync(path.join(os.tmpdir(), 'cwb-evil.txt'))).toBe(false);
}

/** Sets the central directory's uncompressed size of the n-th entry. */
function declareSize(zip: Buffer, n: number, size: number): Buffer {
  const copy = Buffer.from(zip);
  let at = copy.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  for (let i = 0; i < n; i++) {
    at += 46 + copy.readUInt16LE(at + 28) + copy.readUInt16LE(at + 30) + copy.readUInt16LE(at + 32);
  }
  copy.writeUInt32LE(size, at + 24);
  return copy;
}

describe('hostile archives', () => {
  it('zip-slip and absolute names: refused, nothing written beside the contexts root', async () => {
    const ctx = await setup();
    for (const name of [
      '../evil.txt',
      '../../evil.txt',
      `${ctx.uuid}/../../evil.txt`,
      `${ctx.uuid}/../../../parent/canary.txt`,
      `${ctx.uuid}/./messages.jsonl`,
      `${ctx.uuid}//messages.jsonl`,
      path.join(os.tmpdir(), 'cwb-evil.txt'),
      'C:/evil.txt',
      '..\\evil.txt',
    ]) {
      await expectRefused(
        ctx,
        rawZip([{ name, data: 'pwned' }]),
        /refused: (absolute path|"\.", "\.\." or empty path segment|backslash or NUL)|(invalid relative path|absolute path|invalid characters in fileName): /,
      );
    }
    ctx.store.close();
  });

  it('symbolic links, as a file or as a folder a later entry would write through: refused', async () => {
    const ctx = await setup();
    const link = (name: string, target: string): RawEntry => ({
      name,
      data: target,
      mode: 0o120777,
    });
    await expectRefused(
      ctx,
      rawZip([link(`${ctx.uuid}/messages.jsonl`, '/etc/passwd')]),
      /symbolic link or special file/,
    );
    await expectRefused(
      ctx,
      rawZip([
        link(`${ctx.uuid}/tool_outputs`, ctx.parent),
        { name: `${ctx.uuid}/tool_outputs/canary.txt`, data: 'overwritten' },
      ]),
      /symbolic link or special file/,
    );
    // A device and a FIFO are no better.
    for (const mode of [0o020666, 0o010644]) {
      await expectRefused(
        ctx,
        rawZip([{ name: `${ctx.uuid}/current.jsonl`, data: '', mode }]),
        /symbolic link or special file/,
      );
    }
    ctx.store.close();
  });

  it('duplicate names (a second manifest, a file given twice): refused before anything is extracted', async () => {
    const ctx = await setup();
    const entries = [...ctx.entries].map(([name, data]) => ({ name, data }));
    const messages = entries.find((e) => e.name.endsWith('/messages.jsonl'))!;
    await expectRefused(
      ctx,
      rawZip([...entries, { name: messages.name, data: 'a second version\n' }]),
      /messages\.jsonl appears twice/,
    );
    await expectRefused(
      ctx,
      rawZip([{ name: 'manifest.json', data: '{}' }, ...entries]),
      /manifest\.json appears twice/,
    );
    ctx.store.close();
  });

  it('declared sizes past the limits (one entry, the total) and an entry count past the limit: refused from the central directory', async () => {
    const ctx = await setup();
    const entries = [...ctx.entries];
    const big = await zipOf(entries);
    // 4 GiB - 1 declared for every entry: each under the per-entry limit, together over the total.
    let huge = big;
    for (let i = 0; i < entries.length; i++) huge = declareSize(huge, i, 0xffffffff);
    await expectRefused(ctx, huge, /more than \d+ bytes uncompressed in total|does not fit/, {
      maxTotalBytes: 4 * 0xffffffff,
    });
    await expectRefused(ctx, declareSize(big, 1, 0xffffffff), /more than the limit of 1000000/, {
      maxEntryBytes: 1_000_000,
    });
    await expectRefused(ctx, big, /entries, more than the limit of 2/, { maxEntries: 2 });
    // 5 000 entries, every one a file no manifest lists: refused at the first.
    const many = rawZip(
      Array.from({ length: 5_000 }, (_, i) => ({
        name: `${ctx.uuid}/tool_outputs/${i}.txt`,
        data: 'x',
      })),
    );
    await expectRefused(ctx, many, /no manifest\.json|is not listed in the manifest/);
    ctx.store.close();
  });
});

// ------------------------------------------------------------------ a real zip bomb

const TMPFS = probeTmpfs();
const disks = useTmpfs();

describe.skipIf(!TMPFS.ok)(
  `a zip bomb on a small disk${TMPFS.ok ? '' : ` (skipped: ${TMPFS.reason})`}`,
  () => {
    // Was: a valid archive (right sizes, right checksums) whose 64 MiB messages.jsonl
    // compresses to 64 KiB was extracted until the disk was full — every task running on
    // that disk would have been paused — and only then refused.
    it('a valid archive that inflates 1000× beyond the free space: refused before a byte is extracted, the disk left as it was', async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-zip-bomb-'));
      const root = path.join(base, 'contexts');
      disks.removeAfter(base);
      disks.mount(root, '8m');
      const ctx = await setup(root);
      const manifest = JSON.parse(ctx.entries.get('manifest.json')!.toString()) as Manifest;
      const bomb = Buffer.alloc(64 * 1024 * 1024, '\n');
      const file = manifest.tasks[0]!.files.find((f) => f.path === 'messages.jsonl')!;
      file.bytes = bomb.length;
      file.sha256 = crypto.createHash('sha256').update(bomb).digest('hex');
      const entries = new Map(ctx.entries);
      entries.set(`${ctx.uuid}/messages.jsonl`, bomb);
      entries.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
      const zip = await zipOf(entries);
      expect(zip.length).toBeLessThan(bomb.length / 500);
      const free = () => fs.statfsSync(root).bavail;
      const before = free();
      const bombFile = path.join(ctx.dir, 'bomb.zip');
      fs.writeFileSync(bombFile, zip);
      const err = await importFile(ctx.store, bombFile).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err?.code).toBe('bad_input');
      expect(err?.message).toMatch(
        /^bomb\.zip: 64\.0 MiB uncompressed does not fit in the [\d.]+ MiB free on the disk of .*; nothing was extracted$/,
      );
      expect(free()).toBe(before);
      expect(ctx.store.listTasks().total).toBe(0);
      ctx.store.close();
    });
  },
);
