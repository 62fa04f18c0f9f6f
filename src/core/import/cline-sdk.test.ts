import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { clineSdkSessions, sourceKind } from '../sources/source-kinds';
import { discoverFiles } from '../sources/discover';
import { syncFile } from '../sources/sync-file';
import { SyncStateRepository } from '../sources/sync-state';
import { importPaths } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { CLINE_SDK_ROOT, layClineSdkData } from '../../../test/support/cline-sdk-data';
import { jsonlLines as lines } from '../../../test/support/jsonl-lines';
import { holdDatabaseLock } from '../../../test/support/lock-holder';

const tempDir = useTempDir();
const ROOT = CLINE_SDK_ROOT;

const layData = layClineSdkData;

async function discoverAll(folders: string[]): Promise<string[]> {
  const kind = sourceKind('cline')!;
  const files: string[] = [];
  for (const folder of folders) files.push(...(await discoverFiles(kind, folder)));
  return files.sort();
}

/** Every task: its figures and messages, parents by title. */
function tasks(store: ContextStore): Record<string, unknown>[] {
  const rows = store.listTasks({ limit: 20 }).rows;
  const title = new Map(rows.map((r) => [r.uuid, r.title]));
  return rows
    .map((r) => ({
      title: r.title,
      parent: r.parent_uuid ? title.get(r.parent_uuid) : null,
      task_type: r.task_type,
      agent: r.agent,
      model: r.model,
      cwd: r.workdir,
      cache_creation_tokens: r.cache_creation_tokens,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      created_at: r.created_at,
      messages: lines(path.join(store.taskPath(r), 'messages.jsonl')).map((m) => [
        m.role,
        m.content,
        m.tool_name ?? null,
        m.tool_call_id ?? null,
      ]),
    }))
    .sort((a, b) => String(a.title).localeCompare(String(b.title)));
}

const OLD_TASK = '1762353105322';

/** The old extension's task folder in VS Code's globalStorage (Linux): the folder and its history file. */
function layOldTask(home: string): { task: string; old: string } {
  const task = path.join(
    home,
    '.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks',
    OLD_TASK,
  );
  fs.cpSync(realFixture('cline', OLD_TASK), task, { recursive: true });
  return { task, old: path.join(task, 'api_conversation_history.json') };
}

/** The SDK's messages file Cline writes for an old task it migrates (same id), plus `more`. */
function migrateToSdk(home: string, task: string, ...more: unknown[]): string {
  const history = JSON.parse(
    fs.readFileSync(path.join(task, 'api_conversation_history.json'), 'utf8'),
  ) as { role: string; content: unknown; ts?: number }[];
  const sdkDir = path.join(home, '.cline', 'data', 'sessions', OLD_TASK);
  fs.mkdirSync(sdkDir, { recursive: true });
  const messages = [...history, ...(more as typeof history)].map((m, i) => ({
    id: `msg_${i}`,
    role: m.role,
    content: m.content,
    ts: m.ts,
  }));
  const file = path.join(sdkDir, `${OLD_TASK}.messages.json`);
  const doc = {
    version: 1,
    updated_at: '2025-11-05T15:00:00.000Z',
    agent: 'lead',
    sessionId: OLD_TASK,
  };
  fs.writeFileSync(file, JSON.stringify({ ...doc, messages }, null, 2));
  return file;
}

/** The old folder's reader looks for the SDK's copy under the process's HOME. */
async function withHome(home: string, run: () => Promise<void>): Promise<void> {
  const previous = process.env.HOME;
  process.env.HOME = home;
  try {
    await run();
  } finally {
    process.env.HOME = previous;
  }
}

describe('Cline SDK sessions (~/.cline/data)', () => {
  it('imports a session and its spawn_agent child, linked, with sessions.db’s title and cwd', async () => {
    const data = layData(tempDir());
    const store = ContextStore.open(tempDir());
    // The folder: its two messages files (the manifest beside them is no session).
    const run = await importPaths(store, [path.join(data, 'sessions', ROOT)]);
    expect(run.failed).toEqual([]);
    expect(run.results.map((r) => [path.basename(r.file), r.skipped])).toEqual([
      [`${ROOT}.messages.json`, []],
      ['explorer_7f2a.messages.json', []],
    ]);
    const [child, parent] = tasks(store);
    expect(parent).toMatchObject({
      title: expect.stringMatching(/^the retry test in @test\/retry\.test\.ts fails/),
      parent: null,
      agent: 'cline',
      model: 'anthropic/claude-sonnet-4.6',
      cwd: '/home/dev/src/ledger-api',
      // inputTokens counts the cache reads: the uncached part of each request.
      input_tokens: 18342 + (19104 - 18338) + (19783 - 19098) + (20211 - 19777) + (20602 - 20205),
      output_tokens: 212 + 148 + 301 + 96 + 118,
      created_at: '2026-11-19T09:00:00.000Z',
      cache_creation_tokens: 18338 + 760,
    });
    expect(child).toMatchObject({
      title: expect.stringMatching(/Find every caller of retry\(\)/),
      parent: parent!.title,
      task_type: 'subagent',
      input_tokens: 6120 + (6402 - 6116),
    });
    const messages = parent!.messages as unknown[][];
    // The system prompt, the request with its attached file, every call and its result.
    expect(messages[0]).toEqual(['system', expect.stringMatching(/^You are Cline/), null, null]);
    expect(messages[1]![1]).toMatch(
      /<file path="\/home\/dev\/src\/ledger-api\/test\/retry\.test\.ts">/,
    );
    const calls = messages.filter((m) => m[0] === 'tool').map((m) => [m[2], m[3]]);
    expect(calls).toEqual([
      ['read_files', 'toolu_01Hc8vKq2WmT9sXe4Lb7Rn3A'],
      ['spawn_agent', 'toolu_01Nf5Yd8bR4cJ2wQ7kZp1Vt6'],
      ['editor', 'toolu_01Qm4Gs7aT1pV9eX3nL8Cw2B'],
      ['run_commands', 'toolu_01Wb6Tn3eK8sH5rD2mY9Jq4F'],
    ]);
    expect(child!.messages).toEqual([
      ['user', expect.stringMatching(/^Find every caller/), null, null],
      ['assistant', '', null, null],
      [
        'tool',
        expect.stringMatching(/src\/http\/client\.ts:42/),
        'search_codebase',
        'toolu_01Ld3Xr6mF9qB2vN8sK4Hc7E',
      ],
      ['assistant', expect.stringMatching(/^Two callers/), null, null],
    ]);
    store.close();
  });

  it('without sessions.db (or with it locked) the manifest and the file itself give the same tasks', async () => {
    const withDb = ContextStore.open(tempDir());
    await importPaths(withDb, [path.join(layData(tempDir()), 'sessions', ROOT)]);
    const without = ContextStore.open(tempDir());
    await importPaths(without, [path.join(layData(tempDir(), false), 'sessions', ROOT)]);
    expect(tasks(without)).toEqual(tasks(withDb));
    // Cline holding a write lock: the read waits briefly, then goes on without the rows.
    const home = tempDir();
    const data = layData(home);
    const writer = new Database(path.join(data, 'db', 'sessions.db'));
    writer.exec('BEGIN EXCLUSIVE');
    const locked = ContextStore.open(tempDir());
    try {
      const run = await importPaths(locked, [path.join(data, 'sessions', ROOT)]);
      expect(run.failed).toEqual([]);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    expect(tasks(locked)).toEqual(tasks(withDb));
    withDb.close();
    without.close();
    locked.close();
  });

  it('a sessions.db Cline is writing leaves the sync for later with a notice; the next sync reads it', async () => {
    const data = layData(tempDir());
    const kind = sourceKind('cline')!;
    const file = path.join(data, 'sessions', ROOT, `${ROOT}.messages.json`);
    const db = path.join(data, 'db', 'sessions.db');
    const live = ContextStore.open(tempDir());
    const holder = await holdDatabaseLock(db);
    try {
      const busy = await syncFile(live, kind, file, { quietMs: 0 });
      expect(busy).toMatchObject({
        status: 'busy',
        notice: expect.stringMatching(
          /^sessions\.db could not be read now \(SQLITE_BUSY.*read again at the next sync$/,
        ),
      });
      expect(busy.error).toBeUndefined();
      expect(live.listTasks({ limit: 20 }).rows).toEqual([]);
    } finally {
      await holder.release();
    }
    const after = await syncFile(live, kind, file, { quietMs: 0 });
    expect(after).toMatchObject({ status: 'synced', uuids: [expect.any(String)] });
    expect(after.error).toBeUndefined();
    const imported = ContextStore.open(tempDir());
    await importPaths(imported, [file]);
    expect(tasks(live)).toEqual(tasks(imported));
    expect(live.listTasks({ limit: 20 }).rows[0]!.total_messages).toBeGreaterThan(0);

    // Unreadable and unchanged for minutes: broken, not busy; the manifest stands in.
    const stale = layData(tempDir());
    const staleDb = path.join(stale, 'db', 'sessions.db');
    fs.writeFileSync(staleDb, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(84)]));
    const old = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(staleDb, old, old);
    const other = ContextStore.open(tempDir());
    const staleFile = path.join(stale, 'sessions', ROOT, `${ROOT}.messages.json`);
    expect((await syncFile(other, kind, staleFile, { quietMs: 0 })).status).toBe('synced');
    expect(tasks(other)).toEqual(tasks(imported));
    live.close();
    imported.close();
    other.close();
  });

  it('is found in ~/.cline/data/sessions and synced as imported; a rewrite syncs the new messages only', async () => {
    const home = tempDir();
    const data = layData(home);
    const env = { HOME: home };
    expect(clineSdkSessions(env)).toBe(path.join(data, 'sessions'));
    expect(clineSdkSessions({ HOME: home, CLINE_DATA_DIR: '/x/data' })).toBe('/x/data/sessions');
    expect(clineSdkSessions({ HOME: home, CLINE_DIR: '/y' })).toBe('/y/data/sessions');
    const kind = sourceKind('cline')!;
    const found = (await discoverAll(kind.defaultFolders(env))).map((f) => path.relative(data, f));
    expect(found.sort()).toEqual([
      `sessions/${ROOT}/${ROOT}.messages.json`,
      `sessions/${ROOT}/explorer_7f2a.messages.json`,
    ]);

    const file = path.join(data, 'sessions', ROOT, `${ROOT}.messages.json`);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { messages: unknown[] };
    const whole = doc.messages;
    // Cline rewrites the file whole as the session grows.
    fs.writeFileSync(file, JSON.stringify({ ...doc, messages: whole.slice(0, 5) }, null, 2));
    const live = ContextStore.open(tempDir());
    for (const f of await discoverAll(kind.defaultFolders(env)))
      expect((await syncFile(live, kind, f, { quietMs: 0 })).status).toBe('synced');
    fs.writeFileSync(file, JSON.stringify({ ...doc, messages: whole }, null, 2));
    expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('synced');
    expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('unchanged');

    const imported = ContextStore.open(tempDir());
    await importPaths(imported, [path.join(data, 'sessions', ROOT)]);
    expect(tasks(live)).toEqual(tasks(imported));
    live.close();
    imported.close();
  });

  it('cwb import of sessions.db imports every session from its messages file, as the folder does', async () => {
    const data = layData(tempDir());
    const fromDb = ContextStore.open(tempDir());
    const run = await importPaths(fromDb, [path.join(data, 'db', 'sessions.db')]);
    expect(run.failed).toEqual([]);
    expect(run.results.map((r) => [r.format, r.skipped])).toEqual([['cline', []]]);
    const fromFolder = ContextStore.open(tempDir());
    await importPaths(fromFolder, [path.join(data, 'sessions', ROOT)]);
    expect(tasks(fromDb)).toHaveLength(2);
    expect(tasks(fromDb)).toEqual(tasks(fromFolder));
    fromDb.close();
    fromFolder.close();
  });

  it('an old globalStorage task that Cline migrated (same id) is listed once, from its SDK file', async () => {
    const home = tempDir();
    const { task } = layOldTask(home);
    migrateToSdk(home, task);
    await withHome(home, async () => {
      const kind = sourceKind('cline')!;
      const live = ContextStore.open(tempDir());
      const files = await discoverAll(kind.defaultFolders({ HOME: home }));
      expect(files).toHaveLength(2);
      // Both orders: the old folder's file first, and the SDK file first.
      for (const f of files) await syncFile(live, kind, f, { quietMs: 0 });
      const other = ContextStore.open(tempDir());
      for (const f of [...files].reverse()) await syncFile(other, kind, f, { quietMs: 0 });
      for (const store of [live, other]) {
        const rows = store.listTasks({ limit: 20 }).rows;
        expect(rows).toHaveLength(1);
        expect(rows[0]!.total_messages).toBeGreaterThan(0);
        // The old folder's file, read once the SDK's copy existed, made no task to go on from.
        const rowsOf = new SyncStateRepository(store.sourcesDb).list('cline');
        expect(rowsOf.map((r) => r.notice)).toEqual([null, null]);
        store.close();
      }
    });
  });

  it('a task synced from its old folder goes on in the same task once Cline migrates it', async () => {
    const home = tempDir();
    const { task, old } = layOldTask(home);
    await withHome(home, async () => {
      const kind = sourceKind('cline')!;
      const live = ContextStore.open(tempDir());
      expect((await syncFile(live, kind, old, { quietMs: 0 })).status).toBe('synced');
      const [before] = live.listTasks({ limit: 20 }).rows;
      const messagesBefore = lines(path.join(live.taskPath(before!), 'messages.jsonl'));
      // Cline migrates the task (same id) and the person goes on with it there.
      const sdk = migrateToSdk(home, task, {
        role: 'user',
        content: [{ type: 'text', text: 'Now add a test for the empty title.' }],
        ts: 1762400000000,
      });
      const moved = await syncFile(live, kind, sdk, { quietMs: 0 });
      expect(moved).toMatchObject({ status: 'synced', messages: 1, uuids: [before!.uuid] });
      expect((await syncFile(live, kind, old, { quietMs: 0 })).messages).toBe(0);
      expect((await syncFile(live, kind, sdk, { quietMs: 0 })).status).toBe('unchanged');
      const rows = live.listTasks({ limit: 20 }).rows;
      expect(rows.map((r) => r.uuid)).toEqual([before!.uuid]);
      const after = lines(path.join(live.taskPath(rows[0]!), 'messages.jsonl'));
      expect(after.slice(0, -1)).toEqual(messagesBefore);
      expect(after.at(-1)).toMatchObject({
        role: 'user',
        content: 'Now add a test for the empty title.',
      });
      expect(rows[0]!.total_messages).toBe(messagesBefore.length + 1);
      live.close();
    });
  });
});
