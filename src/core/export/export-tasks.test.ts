import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
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
});
