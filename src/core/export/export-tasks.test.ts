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

describe('exportTasks with redaction', () => {
  // Built at run time so that no secret scanner takes this file for a leak.
  const key = ['sk', 'proj', 'Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd9Ss8Aa7'].join('-');

  async function taskWithKey(): Promise<{ store: ContextStore; uuid: string }> {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const t = store.createTask({ title: 'deploy', prompt: `use ${key}` });
    t.addMessage({ role: 'user', content: `OPENAI_API_KEY=${key}` });
    t.addMessage({ role: 'assistant', content: 'ok' });
    await t.complete();
    return { store, uuid: t.uuid };
  }

  it('a redacted archive holds no key, leaves out the offset index, and imports back whole', async () => {
    const { store, uuid } = await taskWithKey();
    const zip = path.join(tempDir(), 'redacted.zip');
    const result = await exportTasks(store, {
      uuids: [uuid],
      format: 'archive',
      output: zip,
      redaction: {},
    });
    // One key, in every file that holds it (messages, current context, final summary…) and
    // in the manifest's copy of the tasks.db row (its prompt).
    expect(Object.keys(result.redactions!)).toEqual(['openai-key']);
    expect(result.redactions!['openai-key']!.secrets).toBe(1);
    expect(result.redactions!['openai-key']!.places).toBeGreaterThanOrEqual(3);
    const { default: yauzl } = await import('yauzl');
    const entries = await new Promise<Map<string, string>>((resolve, reject) => {
      const out = new Map<string, string>();
      yauzl.open(zip, { lazyEntries: true }, (err, file) => {
        if (err) return reject(err);
        file.on('entry', (entry: { fileName: string }) => {
          file.openReadStream(entry as never, (e, stream) => {
            if (e) return reject(e);
            const parts: Buffer[] = [];
            stream.on('data', (c: Buffer) => parts.push(c));
            stream.on('end', () => {
              out.set(entry.fileName, Buffer.concat(parts).toString('utf8'));
              file.readEntry();
            });
          });
        });
        file.on('end', () => resolve(out));
        file.readEntry();
      });
    });
    const all = [...entries.values()].join('\n');
    expect(all).not.toContain(key);
    expect(all).toContain('OPENAI_API_KEY=[REDACTED:openai-key]');
    expect([...entries.keys()].some((n) => n.endsWith('.idx'))).toBe(false);
    // Every file's checksum matches the redacted bytes: the archive imports as usual.
    const target = ContextStore.open(path.join(tempDir(), 'elsewhere'));
    const { importPaths } = await import('../import');
    const back = await importPaths(target, [zip]);
    expect(back.failed).toEqual([]);
    const imported = back.results[0]!.tasks[0]!;
    expect(imported.messages).toBe(2);
    expect(target.readTask(imported.uuid).row.prompt).toBe('use [REDACTED:openai-key]');
    target.close();
    store.close();
  });

  it('markdown is redacted only when asked, and then ends with what was removed', async () => {
    const { store, uuid } = await taskWithKey();
    const plain = path.join(tempDir(), 'plain.md');
    const asIs = await exportTasks(store, { uuids: [uuid], format: 'markdown', output: plain });
    expect(asIs.redactions).toBeNull();
    expect(fs.readFileSync(plain, 'utf8')).toContain(key);
    const safe = path.join(tempDir(), 'safe.md');
    await exportTasks(store, { uuids: [uuid], format: 'markdown', output: safe, redaction: {} });
    const text = fs.readFileSync(safe, 'utf8');
    expect(text).not.toContain(key);
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      '_Redacted before export: 1 OpenAI API key (in 2 places)._',
    );
    store.close();
  });
});
