import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { exportTasks } from './export-tasks';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

async function twoTasks(): Promise<{ store: ContextStore; uuids: string[] }> {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const uuids: string[] = [];
  for (const title of ['one', 'two']) {
    const t = store.createTask({ title });
    t.addMessage({ role: 'user', content: title });
    await t.complete();
    uuids.push(t.uuid);
  }
  return { store, uuids };
}

describe('exportTasks', () => {
  it('one file per task for markdown/openai into a folder; one zip for an archive', async () => {
    const { store, uuids } = await twoTasks();
    const dir = path.join(tempDir(), 'out');
    const md = await exportTasks(store, { uuids, format: 'markdown', output: dir });
    expect(md.files.map((f) => path.basename(f.path!))).toEqual(uuids.map((u) => `${u}.md`));
    expect(fs.readFileSync(path.join(dir, `${uuids[1]}.md`), 'utf8')).toMatch(/^# two/);
    const json = await exportTasks(store, { uuids: [uuids[0]!], format: 'openai', output: dir });
    expect(json.files[0]!.path).toBe(path.join(dir, `${uuids[0]}.json`));
    const zip = await exportTasks(store, {
      uuids,
      format: 'archive',
      output: path.join(dir, 'all.zip'),
    });
    expect(zip.files).toEqual([
      {
        path: path.join(dir, 'all.zip'),
        bytes: fs.statSync(path.join(dir, 'all.zip')).size,
        tasks: uuids,
      },
    ]);
    // no temporary files left beside the outputs
    expect(fs.readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    store.close();
  });

  it('streams to stdout when asked, and refuses what cannot work before writing anything', async () => {
    const { store, uuids } = await twoTasks();
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    await exportTasks(store, { uuids: [uuids[0]!], format: 'openai', stdout });
    expect(JSON.parse(Buffer.concat(chunks).toString())).toEqual({
      messages: [{ role: 'user', content: 'one' }],
    });
    await expect(exportTasks(store, { uuids, format: 'openai' })).rejects.toThrow(/pass -o DIR/);
    await expect(exportTasks(store, { uuids, format: 'archive', current: true })).rejects.toThrow(
      /--current applies/,
    );
    await expect(
      exportTasks(store, {
        uuids: ['550e8400-e29b-41d4-a716-446655440000'],
        format: 'markdown',
        output: path.join(tempDir(), 'x.md'),
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    store.close();
  });

  it('an output file that fails part way (a full disk): an io error naming it, nothing left behind', async () => {
    const { store, uuids } = await bigTask();
    const dir = path.join(tempDir(), 'out');
    fs.mkdirSync(dir);
    failFileWritesAfter(4096);
    for (const format of ['markdown', 'openai', 'archive'] as const) {
      const output = path.join(dir, `t.${format}`);
      await expect(exportTasks(store, { uuids, format, output })).rejects.toMatchObject({
        code: 'io',
        message: `cannot write ${output}: ENOSPC: no space left on device, write`,
      });
      expect(fs.readdirSync(dir)).toEqual([]);
    }
    store.close();
  });

  it('an archive to stdout that fails part way ends with that error instead of waiting forever', async () => {
    const { store, uuids } = await bigTask();
    let left = 4096;
    const stdout = new Writable({
      write(chunk: Buffer, _enc, done) {
        left -= chunk.length;
        done(left < 0 ? enospc() : null);
      },
    });
    // As `cwb export` does for stdout: the error is heard, and comes back from exportTasks.
    stdout.on('error', () => undefined);
    await expect(
      exportTasks(store, { uuids, format: 'archive', output: '-', stdout }),
    ).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    store.close();
  });
});

const restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});

/** One task with 300 KB of random text (it does not compress): more than any buffer holds. */
async function bigTask(): Promise<{ store: ContextStore; uuids: string[] }> {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({ title: 'big' });
  for (let i = 0; i < 20; i++)
    task.addMessage({ role: 'user', content: crypto.randomBytes(15_000).toString('base64') });
  await task.stop();
  return { store, uuids: [task.uuid] };
}

function enospc(): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error('ENOSPC: no space left on device, write');
  err.code = 'ENOSPC';
  err.syscall = 'write';
  return err;
}

/** Files opened with fs.createWriteStream take `budget` bytes, then fail like a full disk. */
function failFileWritesAfter(budget: number): void {
  const real = fs.createWriteStream;
  fs.createWriteStream = ((...args: Parameters<typeof real>) => {
    const stream = real(...args);
    let left = budget;
    const fail = (size: number, done: (err?: Error | null) => void): void => {
      left -= size;
      if (left < 0) done(enospc());
      else done();
    };
    Object.assign(stream, {
      _write: (chunk: Buffer, _enc: string, done: (err?: Error | null) => void) =>
        fail(chunk.length, done),
      _writev: (chunks: { chunk: Buffer }[], done: (err?: Error | null) => void) =>
        fail(
          chunks.reduce((n, c) => n + c.chunk.length, 0),
          done,
        ),
    });
    return stream;
  }) as typeof real;
  restores.push(() => {
    fs.createWriteStream = real;
  });
}
