/**
 * Agents whose session store is a database (opencode.db, kilo.db): found in the default
 * folder, synced session by session while the agent writes it (rows added, parts rewritten
 * as they stream), every message exactly once and as `cwb import` of the final database
 * gives it; the agent's database and WAL never written; a locked or half-written database
 * is left for a later sync with a notice.
 */
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import { SyncStateRepository } from '../src/core/sources/sync-state';
import { realFixture } from './support/real-fixtures';
import { REPO_ROOT } from './support/run-ts';
import {
  createOpencodeDb,
  insertRecords,
  opencodeDbFrom,
  storageRows,
  type StorageRecord,
} from './support/opencode-db';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const STORAGE = realFixture('opencode', 'storage');

function snapshot(store: ContextStore): unknown[] {
  const rows = store
    .listTasks({ limit: 100 })
    .rows.sort((a, b) => a.task_id!.localeCompare(b.task_id!));
  return rows.map((row: TaskRow) => {
    const dir = store.taskPath(row);
    return {
      row: {
        title: row.title,
        prompt: row.prompt,
        model: row.model,
        workdir: row.workdir,
        agent: row.agent,
        task_source: row.task_source,
        task_id: row.task_id,
        created_at: row.created_at,
        completed_at: row.completed_at,
        llm_call_count: row.llm_call_count,
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        cache_read_tokens: row.cache_read_tokens,
        cache_creation_tokens: row.cache_creation_tokens,
        total_messages: row.total_messages,
        total_tool_calls: row.total_tool_calls,
      },
      messages: lines(path.join(dir, 'messages.jsonl')).map((m) => ({
        role: m.role,
        content: m.content,
        tool_calls: m.tool_calls,
        tool_call_id: m.tool_call_id,
        tool_name: m.tool_name,
        timestamp: m.timestamp,
        history_only: m.history_only,
      })),
      tools: lines(path.join(dir, 'tools.jsonl'))
        .map((t) => JSON.stringify([t.tool, t.tool_call_id, t.status, t.error ?? null]))
        .sort(),
    };
  });
}

const hash = (file: string): string =>
  fs.existsSync(file)
    ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    : 'none';

/**
 * The records as opencode writes them while it runs: an assistant message first without its
 * end (time.completed, tokens), then its parts, then the message again complete; a tool
 * part first `running`, then rewritten with its result; a text part first cut short, then
 * whole; every row stamped now.
 */
function asStreamed(records: StorageRecord[]): StorageRecord[][] {
  const steps: StorageRecord[][] = [];
  const now = (r: StorageRecord, data?: Record<string, unknown>): StorageRecord => ({
    table: r.table,
    row: { ...r.row, ...(data && { data: JSON.stringify(data) }), time_updated: Date.now() },
  });
  let open: StorageRecord | undefined;
  const finish = (): void => {
    if (open) steps.push([now(open)]);
    open = undefined;
  };
  for (const r of records) {
    const data =
      r.table === 'session' ? {} : (JSON.parse(String(r.row.data)) as Record<string, unknown>);
    if (r.table !== 'part') {
      finish();
      if (r.table === 'message' && data.role === 'assistant') {
        const time = data.time as Record<string, unknown>;
        steps.push([now(r, { ...data, time: { created: time.created }, finish: undefined })]);
        open = r;
      } else steps.push([now(r)]);
      continue;
    }
    const state = data.state as Record<string, unknown> | undefined;
    if (data.type === 'tool' && state && state.status !== 'running')
      steps.push([
        now(r, { ...data, state: { status: 'running', input: state.input, time: { start: 1 } } }),
      ]);
    else if (data.type === 'text' && typeof data.text === 'string' && data.text.length > 10)
      steps.push([now(r, { ...data, text: data.text.slice(0, 10) })]);
    steps.push([now(r)]);
  }
  finish();
  return steps;
}

describe('database sources (opencode, Kilo CLI)', () => {
  for (const id of ['opencode', 'kilo'] as const) {
    it(`${id}: synced row by row while the agent writes, every message once, as imported; its database untouched`, async () => {
      const root = tempDir();
      const home = path.join(root, 'home');
      const kind = sourceKind(id)!;
      const folder = kind.defaultFolders({ HOME: home })[0]!;
      fs.mkdirSync(folder, { recursive: true });
      const file = path.join(folder, `${id}.db`);
      const writer = createOpencodeDb(file);
      writer.pragma('wal_autocheckpoint = 0'); // the WAL keeps every row: its bytes are compared
      const live = ContextStore.open(path.join(root, 'live'));
      const steps = asStreamed(storageRows(STORAGE));
      let synced = 0;
      for (let i = 0; i < steps.length; i += 3) {
        insertRecords(writer, steps.slice(i, i + 3).flat());
        if (i === 0) expect(await discoverFiles(kind, folder)).toEqual([file]);
        const before = [hash(file), hash(`${file}-wal`)];
        const result = await syncFile(live, kind, file);
        expect(result.status).not.toBe('error');
        synced += result.messages;
        expect([hash(file), hash(`${file}-wal`)]).toEqual(before);
      }
      // Still for a while: the last reply (a call still running) is taken as it is.
      const last = await syncFile(live, kind, file, { quietMs: 0 });
      synced += last.messages;
      expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('unchanged');
      writer.close();

      const imported = ContextStore.open(path.join(root, 'imported'));
      const result = await importFile(imported, file);
      expect(result.format).toBe(id);
      const got = snapshot(live);
      expect(got).toEqual(snapshot(imported));
      expect(synced).toBe(result.tasks.reduce((n, t) => n + t.messages, 0));
      expect(got).toHaveLength(2);
      // One row per session, none in error.
      const rows = new SyncStateRepository(live.db).list(id);
      expect(rows.map((r) => r.path.slice(file.length)).sort()).toEqual([
        '#ses_53c4e8b21ffeT7wRj3kD9aHqZe',
        '#ses_53c4f1a0dffeYmQ2pL8sV1xKcN',
      ]);
      expect(rows.every((r) => r.error === null)).toBe(true);
      // The `task` tool's child session hangs under its parent's task, synced as imported.
      for (const store of [live, imported]) {
        const tasks = store.listTasks({ limit: 10 }).rows;
        const main = tasks.find((t) => t.task_id === 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN')!;
        expect(tasks.find((t) => t.task_id === 'ses_53c4e8b21ffeT7wRj3kD9aHqZe')).toMatchObject({
          parent_uuid: main.uuid,
          task_type: 'subagent',
          title: 'Subagent: Find other date helpers',
        });
      }
      live.close();
      imported.close();
    });
  }

  it('a database locked by its writer, or half-written, is left for a later sync with a notice', async () => {
    const root = tempDir();
    const folder = sourceKind('opencode')!.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'opencode.db');
    const kind = sourceKind('opencode')!;
    const live = ContextStore.open(path.join(root, 'live'));

    // Half-written: the header is there, the rest not yet.
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]),
    );
    const half = await syncFile(live, kind, file);
    expect(half).toMatchObject({
      status: 'busy',
      notice: expect.stringContaining('read again at the next sync'),
    });
    fs.rmSync(file);

    // A rollback-journal database (not WAL) whose writer holds an exclusive lock.
    opencodeDbFrom(STORAGE, file);
    const plain = createOpencodeDb(path.join(root, 'x.db'));
    plain.close();
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
         db.pragma('journal_mode = DELETE'); db.exec('BEGIN EXCLUSIVE');
         db.prepare("UPDATE session SET title = title").run();
         process.stdout.write('locked\\n'); process.stdin.on('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
        file,
      ],
      { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const before = hash(file);
    const locked = await syncFile(live, kind, file);
    expect(locked).toMatchObject({ status: 'busy', notice: expect.stringMatching(/SQLITE_BUSY/) });
    expect(new SyncStateRepository(live.db).list('opencode')).toEqual([]);
    expect(hash(file)).toBe(before);
    holder.stdin.write('go\n');
    await new Promise((resolve) => holder.once('exit', resolve));
    const after = await syncFile(live, kind, file);
    expect(after.status).toBe('synced');
    expect(after.uuids).toHaveLength(2);
    live.close();
  });

  it('the older JSON storage is synced session by session, unless opencode.db beside has the session', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const kind = sourceKind('opencode')!;
    const [data, sessions] = kind.defaultFolders({ HOME: home }) as [string, string];
    fs.cpSync(STORAGE, path.join(data, 'storage'), { recursive: true });
    const files = await discoverFiles(kind, sessions);
    expect(files.map((f) => path.basename(f)).sort()).toEqual([
      'ses_53c4e8b21ffeT7wRj3kD9aHqZe.json',
      'ses_53c4f1a0dffeYmQ2pL8sV1xKcN.json',
    ]);
    expect(await discoverFiles(kind, data)).toEqual([]); // depth 1: never walks storage/part
    const live = ContextStore.open(path.join(root, 'live'));
    for (const f of files)
      expect((await syncFile(live, kind, f, { quietMs: 0 })).status).toBe('synced');
    const imported = ContextStore.open(path.join(root, 'imported'));
    for (const f of files) await importFile(imported, f);
    expect(snapshot(live)).toEqual(snapshot(imported));

    // Migrated into opencode.db: the JSON files are no longer read.
    const other = ContextStore.open(path.join(root, 'other'));
    opencodeDbFrom(STORAGE, path.join(data, 'opencode.db'));
    for (const f of files) expect((await syncFile(other, kind, f)).status).toBe('unchanged');
    expect(other.listTasks({ limit: 10 }).rows).toHaveLength(0);
    live.close();
    imported.close();
    other.close();
  });
});
