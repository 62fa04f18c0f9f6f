/**
 * Portable archives end to end: byte-identical round trips, uuid clashes, and archives that
 * must be refused (truncated, zip-slip names, links, unknown files, bad checksums, sizes)
 * without leaving anything behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import { ContextStore } from '../src/core/store/context-store';
import { TASK_FILES } from '../src/core/store/contexts-layout';
import { exportTasks } from '../src/core/export';
import { importFile } from '../src/core/import';
import type { Manifest } from '../src/core/export';
import type { TaskRow } from '../src/shared/task-types';
import { rawZip } from './support/raw-zip';
import { useTempDir } from './support/temp-dir';
import { realFixture } from './support/real-fixtures';

const tempDir = useTempDir();
const CLAUDE = realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');

/** A root with native tasks of every shape (tool outputs, summaries, plan, final summary, failed, child) and an imported session with subagents. */
async function seed(root: string): Promise<{ store: ContextStore; uuids: string[] }> {
  const store = ContextStore.open(root);
  const a = store.createTask({
    title: 'native',
    prompt: 'do it',
    key: { owner: 'o', repo: 'r', user: 'u' },
    model: 'm',
    context_length: 1000,
  });
  a.addMessage({ role: 'system', content: 'You are an agent.' });
  a.addMessage({ role: 'user', content: 'do it — 日本語も' });
  a.addMessage({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } },
    ],
  });
  const saved = a.toolOutputs.save('line 1\nline 2\n'.repeat(100), 'read_file');
  a.addMessage({
    role: 'tool',
    content: `[output in ${saved.ref}]`,
    tool_name: 'read_file',
    tool_call_id: 'c1',
  });
  a.recordToolCall({
    tool: 'read_file',
    args: { path: 'x' },
    result: 'ok',
    status: 'success',
    duration_ms: 3,
    tool_call_id: 'c1',
  });
  a.recordLlmCall({ input_tokens: 10, output_tokens: 3 });
  a.recordSummary({
    strategy: 'summarize',
    start_seq: 1,
    end_seq: 2,
    summary: 'did things',
    original_tokens: 20,
    summary_tokens: 3,
    compressed_message_count: 2,
  });
  a.addMessage({
    role: 'user',
    content: 'summary: did things',
    kind: 'summary',
    historyOnly: true,
  });
  a.planning.add('initial', 'step 1\nstep 2');
  await a.complete();
  // every file the store names travels (undo logs, torn-line leftovers); temporary files do not
  const dirA = store.taskPath(store.requireTask(a.uuid));
  for (const name of Object.values(TASK_FILES)) {
    const file = path.join(dirA, name);
    if (name !== TASK_FILES.toolOutputs && !fs.existsSync(file))
      fs.writeFileSync(file, '{"placeholder":true}\n');
  }
  fs.writeFileSync(path.join(dirA, 'messages.jsonl.corrupt'), '{"seq":9,"ro\n');
  fs.writeFileSync(path.join(dirA, '.current.jsonl.tmp-1-abcdef'), 'half');
  fs.writeFileSync(path.join(dirA, 'request.json'), '{}');
  const b = store.createTask({ title: 'failed child', parent_uuid: a.uuid });
  b.addMessage({ role: 'user', content: 'x' });
  b.fail('boom');
  const imported = await importFile(store, CLAUDE);
  return { store, uuids: [a.uuid, b.uuid, ...imported.tasks.map((t) => t.uuid)] };
}

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

function manifestOf(entries: Map<string, Buffer>): Manifest {
  return JSON.parse(entries.get('manifest.json')!.toString('utf8')) as Manifest;
}

/** Every file under a task folder, relative name → sha256. */
function folderHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(name);
      else
        out[name] = crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(dir, name)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

function withoutPid(row: TaskRow | Record<string, unknown>): Record<string, unknown> {
  const { process_id: _pid, ...rest } = row as Record<string, unknown>;
  return rest;
}

async function zipOf(build: (zip: ZipFile) => void): Promise<Buffer> {
  const zip = new ZipFile();
  build(zip);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Nothing of a refused import remains: no rows, no folders, no staging. */
function expectUntouched(store: ContextStore, tasksBefore: number): void {
  expect(store.listTasks().total).toBe(tasksBefore);
  const staging = path.join(store.root, '.staging');
  expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
  const folders = ['running', 'paused', 'completed'].flatMap((f) =>
    fs.readdirSync(path.join(store.root, f)),
  );
  expect(folders).toHaveLength(tasksBefore);
}

describe('archive round trip', () => {
  it('export → import (replace) into a fresh root → export: every task file and row identical', async () => {
    const dir = tempDir();
    const { store: a, uuids } = await seed(path.join(dir, 'a'));
    const first = path.join(dir, 'first.zip');
    const exported = await exportTasks(a, { uuids, format: 'archive', output: first });
    expect(exported.files[0]).toMatchObject({ path: first, tasks: uuids });
    expect(exported.archived!.map((t) => t.left_out)).toEqual(
      uuids.map((_, i) => (i === 0 ? ['.current.jsonl.tmp-1-abcdef', 'request.json'] : [])),
    );

    const b = ContextStore.open(path.join(dir, 'b'));
    const back = await importFile(b, first, { onConflict: 'replace' });
    expect(back.format).toBe('cwb');
    expect(back.tasks.map((t) => t.uuid)).toEqual(uuids);
    const restoredA = Object.keys(folderHashes(b.taskPath(b.requireTask(uuids[0]!))));
    expect(restoredA).toContain('messages.jsonl.corrupt');
    expect(restoredA.some((n) => /^tool_outputs\/read_file_\w+\.txt$/.test(n))).toBe(true);
    expect(restoredA).not.toContain('request.json');
    for (const uuid of uuids) {
      const rowA = a.requireTask(uuid);
      const rowB = b.requireTask(uuid);
      // a pid means nothing on another machine: restoreTask clears it; the rest is verbatim
      expect(rowB.process_id).toBeNull();
      expect(rowB.hostname).toBe(rowA.hostname);
      expect(withoutPid(rowB)).toEqual(withoutPid(rowA));
      const leftOut = ['.current.jsonl.tmp-1-abcdef', 'request.json'];
      const hashesA = Object.fromEntries(
        Object.entries(folderHashes(a.taskPath(rowA))).filter(([n]) => !leftOut.includes(n)),
      );
      expect(folderHashes(b.taskPath(rowB))).toEqual(hashesA);
    }
    // browsable: the index was rebuilt and agrees
    expect(b.readTask(uuids[0]!).messages(4, 1).messages[0]).toMatchObject({
      seq: 4,
      role: 'tool',
    });
    expect(b.readTask(uuids[0]!).finalSummary()).toBe(a.readTask(uuids[0]!).finalSummary());

    const second = path.join(dir, 'second.zip');
    await exportTasks(b, { uuids, format: 'archive', output: second });
    const one = await readZip(first);
    const two = await readZip(second);
    expect([...two.keys()].sort()).toEqual([...one.keys()].sort());
    for (const [name, bytes] of one)
      if (name !== 'manifest.json') expect(two.get(name)!.equals(bytes)).toBe(true);
    const m1 = manifestOf(one);
    const m2 = manifestOf(two);
    expect(m2.tasks.map((t) => t.files)).toEqual(m1.tasks.map((t) => t.files));
    expect(m2.tasks.map((t) => withoutPid(t.row))).toEqual(m1.tasks.map((t) => withoutPid(t.row)));

    // and once more: from here on the rows are equal byte for byte, process_id included
    const c = ContextStore.open(path.join(dir, 'c'));
    await importFile(c, second, { onConflict: 'replace' });
    const third = path.join(dir, 'third.zip');
    await exportTasks(c, { uuids, format: 'archive', output: third });
    const m3 = manifestOf(await readZip(third));
    expect(m3.tasks).toEqual(m2.tasks);
    for (const s of [a, b, c]) s.close();
  });

  it('a uuid that exists: keep-both gives new uuids (children follow), replace replaces', async () => {
    const dir = tempDir();
    const { store, uuids } = await seed(path.join(dir, 'a'));
    const file = path.join(dir, 'x.zip');
    await exportTasks(store, { uuids, format: 'archive', output: file });
    const before = store.listTasks().total;

    const kept = await importFile(store, file);
    expect(store.listTasks().total).toBe(before * 2);
    const newUuid = new Map(kept.tasks.map((t) => [t.original_uuid!, t.uuid]));
    expect([...newUuid.keys()]).toEqual(uuids);
    for (const [old, fresh] of newUuid) {
      expect(fresh).not.toBe(old);
      const row = store.requireTask(fresh);
      const meta = store.readTask(fresh).metadata() as Record<string, unknown>;
      expect(meta).toMatchObject({ uuid: fresh, original_uuid: old });
      const originalParent = store.requireTask(old).parent_uuid;
      expect(row.parent_uuid).toBe(originalParent ? newUuid.get(originalParent) : null);
      expect(meta.parent_uuid).toBe(row.parent_uuid);
    }

    const replaced = await importFile(store, file, { onConflict: 'replace' });
    expect(replaced.tasks.map((t) => [t.uuid, t.replaced])).toEqual(uuids.map((u) => [u, true]));
    expect(store.listTasks().total).toBe(before * 2);

    // a running task is never replaced, and then nothing of the archive is committed
    const running = store.createTask({ title: 'live' });
    running.close();
    const live = path.join(dir, 'live.zip');
    await exportTasks(store, { uuids: [uuids[0]!, running.uuid], format: 'archive', output: live });
    const count = store.listTasks().total;
    await expect(importFile(store, live, { onConflict: 'replace' })).rejects.toThrow(
      /is running here/,
    );
    expectUntouched(store, count);
    store.close();
  });

  it('a running task is archived as it is: JSONL cut after the last complete line; it imports as failed', async () => {
    const dir = tempDir();
    const store = ContextStore.open(path.join(dir, 'a'));
    const task = store.createTask({ title: 'live' });
    task.addMessage({ role: 'user', content: 'one' });
    task.addMessage({ role: 'assistant', content: 'two' });
    fs.appendFileSync(
      path.join(task.dir, 'messages.jsonl'),
      '{"seq":3,"role":"user","content":"hal',
    );
    const file = path.join(dir, 'live.zip');
    await exportTasks(store, { uuids: [task.uuid], format: 'archive', output: file });
    const entries = await readZip(file);
    expect(
      entries.get(`${task.uuid}/messages.jsonl`)!.toString().trimEnd().split('\n'),
    ).toHaveLength(2);
    const other = ContextStore.open(path.join(dir, 'b'));
    await importFile(other, file);
    expect(other.requireTask(task.uuid)).toMatchObject({
      status: 'failed',
      error_message: 'imported while it was running',
    });
    expect(
      other
        .readTask(task.uuid)
        .messages(1, 10)
        .messages.map((m) => m.content),
    ).toEqual(['one', 'two']);
    task.close();
    store.close();
    other.close();
  });
});

describe('archives that are refused, leaving nothing behind', () => {
  async function setup(): Promise<{
    store: ContextStore;
    dir: string;
    good: Buffer;
    uuid: string;
    before: number;
  }> {
    const dir = tempDir();
    const { store, uuids } = await seed(path.join(dir, 'src'));
    const file = path.join(dir, 'good.zip');
    await exportTasks(store, { uuids, format: 'archive', output: file });
    store.close();
    const target = ContextStore.open(path.join(dir, 'target'));
    const keep = target.createTask({ title: 'already here' });
    await keep.complete();
    return { store: target, dir, good: fs.readFileSync(file), uuid: uuids[0]!, before: 1 };
  }

  async function refused(
    store: ContextStore,
    dir: string,
    bytes: Buffer,
    why: RegExp,
    options = {},
  ): Promise<void> {
    const file = path.join(dir, `case-${crypto.randomBytes(4).toString('hex')}.zip`);
    fs.writeFileSync(file, bytes);
    const err = await importFile(store, file, options).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(err?.message).toMatch(why);
    expect(err?.code).toBe('bad_input');
  }

  it('truncated zips', async () => {
    const { store, dir, good, before } = await setup();
    await refused(
      store,
      dir,
      good.subarray(0, Math.floor(good.length / 2)),
      /not a readable zip archive .*truncated or damaged/,
    );
    await refused(store, dir, good.subarray(0, good.length - 10), /not a readable zip archive/);
    await refused(store, dir, Buffer.from('PK\u0003\u0004'), /not a readable zip archive/);
    expectUntouched(store, before);
    store.close();
  });

  it('zip-slip names, links and files that are not task files', async () => {
    const { store, dir, uuid, before } = await setup();
    const outside = path.join(dir, 'evil.txt');
    for (const name of [
      '../evil.txt',
      `${uuid}/../../evil.txt`,
      `${uuid}/../${uuid}/messages.jsonl`,
      '/tmp/cwb-evil.txt',
    ]) {
      await refused(
        store,
        dir,
        rawZip([{ name, data: 'pwned' }]),
        /invalid relative path|absolute path|refused/,
      );
    }
    await refused(
      store,
      dir,
      rawZip([{ name: `${uuid}/run.sh`, data: 'rm -rf /' }]),
      /run\.sh" refused: not a task file/,
    );
    await refused(
      store,
      dir,
      rawZip([{ name: `${uuid}/messages.jsonl`, data: '/etc/passwd', mode: 0o120777 }]),
      /symbolic link or special file/,
    );
    const link = await zipOf((zip) =>
      zip.addBuffer(Buffer.from('/etc/passwd'), `${uuid}/current.jsonl`, { mode: 0o120777 }),
    );
    await refused(store, dir, link, /symbolic link or special file/);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync('/tmp/cwb-evil.txt')).toBe(false);
    expectUntouched(store, before);
    store.close();
  });

  it('checksums, manifests and sizes are verified before any task is committed', async () => {
    const { store, dir, good, uuid, before } = await setup();
    const goodFile = path.join(dir, 'good-copy.zip');
    fs.writeFileSync(goodFile, good);
    const entries = await readZip(goodFile);
    const manifest = manifestOf(entries);
    // a damaged byte in the LAST task: the earlier ones must not be committed either
    const lastTask = manifest.tasks.at(-1)!.uuid;
    const rebuilt = (
      change: (name: string, data: Buffer) => Buffer | undefined,
      extra: [string, string][] = [],
    ): Promise<Buffer> =>
      zipOf((zip) => {
        for (const [name, data] of entries) {
          const next = change(name, data);
          if (next) zip.addBuffer(next, name);
        }
        for (const [name, data] of extra) zip.addBuffer(Buffer.from(data), name);
      });
    const flipped = await rebuilt((name, data) => {
      if (name !== `${lastTask}/messages.jsonl`) return data;
      const copy = Buffer.from(data);
      copy[10] = copy[10] === 0x41 ? 0x42 : 0x41;
      return copy;
    });
    await refused(
      store,
      dir,
      flipped,
      /messages\.jsonl does not match its checksum in the manifest/,
    );
    await refused(
      store,
      dir,
      await rebuilt((name, data) => (name === `${uuid}/current.jsonl` ? undefined : data)),
      /current\.jsonl is in the manifest but not in the archive/,
    );
    await refused(
      store,
      dir,
      await rebuilt((_n, d) => d, [[`${uuid}/tool_outputs/extra.txt`, 'x']]),
      /extra\.txt is not listed in the manifest/,
    );
    await refused(
      store,
      dir,
      await rebuilt((name, data) => (name === 'manifest.json' ? undefined : data)),
      /no manifest\.json/,
    );
    await refused(
      store,
      dir,
      await rebuilt((name, data) =>
        name === 'manifest.json' ? Buffer.from('{"format":"cwb-task-archive","version":9}') : data,
      ),
      /manifest\.json is not a cwb archive manifest/,
    );
    await refused(store, dir, good, /more than the limit of 1000/, { maxEntryBytes: 1000 });
    await refused(store, dir, good, /bytes uncompressed in total/, { maxTotalBytes: 50_000 });
    await refused(store, dir, good, /entries, more than the limit of 3/, { maxEntries: 3 });
    expectUntouched(store, before);
    // and the intact archive still imports
    const ok = await importFile(store, goodFile);
    expect(ok.tasks).toHaveLength(manifest.tasks.length);
    store.close();
  });
});
