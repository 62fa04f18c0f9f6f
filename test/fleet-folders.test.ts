import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION } from '../src/core/db/pg-schema';
import { PgTaskRepository } from '../src/core/db/pg-task-repository';
import { SOURCES_DB_FILE } from '../src/core/db/sources-db';
import { sourceKind } from '../src/core/sources/source-kinds';
import { SourceSync } from '../src/core/sources/source-sync';
import type { SourcesConfig } from '../src/core/sources/sources-config';
import { SyncStateRepository } from '../src/core/sources/sync-state';
import { ContextStore } from '../src/core/store/context-store';
import { FOLDER_ID_FILE, readFolderIdentity } from '../src/core/store/folder-identity';
import { importTask } from '../src/core/store/task-import';
import { startPostgres, type PostgresCluster } from './support/postgres';
import { useTempDir } from './support/temp-dir';

/**
 * Contexts folders of a fleet index (issue 29): each folder its own identity, so two
 * folders of one host and folders of other hosts share one PostgreSQL index without
 * touching each other's rows; copies refused; an index of schema v4 upgraded in place.
 */
const tempDir = useTempDir('cwb-fleet-folders-');
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

async function run(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function rows<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

function sourcesOf(folder: string): SourcesConfig {
  return {
    watch: false,
    poll: false,
    pollIntervalMs: 1000,
    quietMs: 5000,
    file: null,
    sources: [
      {
        id: 'claude-code',
        label: 'Claude Code',
        enabled: true,
        folders: [folder],
        configured: true,
        kind: sourceKind('claude-code')!,
      },
    ],
  };
}

/** A Claude Code line: a user turn, or every 2nd line an assistant reply with usage. */
function claudeLine(session: string, i: number): string {
  const base = {
    uuid: `${session}-${i}`,
    sessionId: session,
    timestamp: new Date(Date.UTC(2026, 10, 28, 1, 0, 0, i)).toISOString(),
    cwd: '/work/app',
    isSidechain: false,
  };
  return JSON.stringify(
    i % 2 === 1
      ? {
          ...base,
          type: 'assistant',
          message: {
            id: `${session}-m${i}`,
            role: 'assistant',
            model: 'claude-x',
            content: [{ type: 'text', text: `reply ${i}` }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 10, output_tokens: 3 },
          },
        }
      : { ...base, type: 'user', message: { role: 'user', content: `ask ${i} of ${session}` } },
  );
}

async function importOne(store: ContextStore, title: string): Promise<string> {
  const row = await importTask(
    store,
    { title, status: 'completed', source: { format: 'test' } },
    (task) => {
      task.messages.append({ role: 'user', content: title });
      task.messages.append({ role: 'assistant', content: 'done' });
      return { llm_calls: 1, usage: { input_tokens: 7, output_tokens: 2 } };
    },
  );
  return row.uuid;
}

describe('contexts folders sharing a fleet index', () => {
  it('two folders of one host and a folder of another host: 100 alternating opens, imports and syncs, every listing shows every task, none lost or twice', async () => {
    const index = await cluster.createDatabase();
    const base = tempDir();
    const folders = [
      { name: 'personal', host: 'box', root: path.join(base, 'personal') },
      { name: 'project', host: 'box', root: path.join(base, 'project') },
      { name: 'remote', host: 'far', root: path.join(base, 'remote') },
    ].map((f) => {
      const sessions = path.join(base, `${f.name}-home`, '.claude', 'projects', 'app');
      fs.mkdirSync(sessions, { recursive: true });
      return { ...f, sessions, lines: new Map<string, number>() };
    });
    const expected = new Set<string>();
    /** Source tasks: session file → its task's uuid, and the lines it must hold. */
    const synced = new Map<string, { folder: number; lines: number }>();

    for (let round = 0; round < 100; round++) {
      const f = folders[round % 3]!;
      const store = ContextStore.open(f.root, { index, host: f.host });
      try {
        expect(store.recovery?.rowsWithoutFolder).toEqual([]);
        expect(store.recovery?.foldersWithoutRow).toEqual([]);
        // Every listing, from any folder, shows every task once.
        const listed = store.listTasks({ limit: 10_000 }).rows.map((r) => r.uuid);
        expect(listed.length).toBe(new Set(listed).size);
        expect(new Set(listed)).toEqual(expected);
        if (round % 3 === 0 || round % 5 === 1) {
          expected.add(await importOne(store, `import ${round} in ${f.name}`));
        } else if (round % 3 === 1) {
          const task = store.createTask({ title: `run ${round} in ${f.name}` });
          task.addMessage({ role: 'user', content: `round ${round}` });
          await task.stop();
          expected.add(task.uuid);
        } else {
          // A session of this folder's machine grows; a sync takes the new lines.
          const session = `s${round % 2}-${f.name}`;
          const file = path.join(f.sessions, `${session}.jsonl`);
          const had = f.lines.get(file) ?? 0;
          const lines = Array.from({ length: 4 }, (_, i) => claudeLine(session, had + i));
          fs.appendFileSync(file, `${lines.join('\n')}\n`);
          f.lines.set(file, had + 4);
          synced.set(file, { folder: folders.indexOf(f), lines: had + 4 });
          const results = await new SourceSync(store, sourcesOf(f.sessions)).syncAll();
          expect(results.filter((r) => r.status === 'error')).toEqual([]);
          for (const r of results) for (const uuid of r.uuids) expected.add(uuid);
        }
      } finally {
        store.close();
      }
    }

    // The end: each folder lists all, each source task holds each line once, its row counts exact.
    for (const f of folders) {
      const store = ContextStore.open(f.root, { index, host: f.host });
      const { rows: all, total } = store.listTasks({ limit: 10_000 });
      expect(total).toBe(expected.size);
      expect(new Set(all.map((r) => r.uuid))).toEqual(expected);
      const state = new SyncStateRepository(store.sourcesDb);
      for (const [file, s] of synced) {
        if (folders[s.folder] !== f) continue;
        const row = state.get(file)!;
        expect(row).toMatchObject({ pending: null, error: null, line_no: s.lines });
        const task = store.requireTask(row.task_uuid!);
        expect(task).toMatchObject({
          total_messages: s.lines,
          llm_call_count: s.lines / 2,
          input_tokens: 10 * (s.lines / 2),
          output_tokens: 3 * (s.lines / 2),
        });
        expect((task as { folder_id?: string }).folder_id).toBe(store.folderId);
      }
      store.close();
    }
    const perFolder = await rows<{ host: string; folder_id: string; n: string }>(
      index,
      'SELECT host, folder_id, COUNT(*) AS n FROM tasks GROUP BY host, folder_id ORDER BY host',
    );
    expect(perFolder).toHaveLength(3);
    expect(perFolder.map((r) => r.host)).toEqual(['box', 'box', 'far']);
    expect(perFolder.reduce((n, r) => n + Number(r.n), 0)).toBe(expected.size);
    // sources.db is in each folder that synced; the rows went to the shared index.
    for (const f of folders) expect(fs.existsSync(path.join(f.root, SOURCES_DB_FILE))).toBe(true);
  }, 300_000);

  it('gives each folder an id once and keeps it; lists every folder of every host with its lease', async () => {
    const index = await cluster.createDatabase();
    const base = tempDir();
    const a = path.join(base, 'a');
    const b = path.join(base, 'b');
    const first = ContextStore.open(a, { index, host: 'box' });
    const id = first.folderId;
    expect(readFolderIdentity(a)).toMatchObject({ id, host: 'box' });
    first.close();
    const again = ContextStore.open(a, { index, host: 'box' });
    expect(again.folderId).toBe(id);
    again.close();
    const other = ContextStore.open(b, { index, host: 'box' });
    expect(other.folderId).not.toBe(id);
    const folders = (other.repo as PgTaskRepository).folders();
    expect(folders.map((f) => [f.host, f.contexts_root, f.alive])).toEqual([
      ['box', a, true],
      ['box', b, true],
    ]);
    other.close();
  });
});

describe('sources on a fleet index', () => {
  it('a sync cut off after the rows were written and before its offset was is replayed without counting twice', async () => {
    const index = await cluster.createDatabase();
    const base = tempDir();
    const sessions = path.join(base, 'home', '.claude', 'projects', 'app');
    fs.mkdirSync(sessions, { recursive: true });
    const file = path.join(sessions, 'replay.jsonl');
    const store = ContextStore.open(path.join(base, 'contexts'), { index, host: 'box' });
    const sync = new SourceSync(store, sourcesOf(sessions));
    const write = (from: number, to: number) =>
      fs.appendFileSync(
        file,
        Array.from({ length: to - from }, (_, i) => `${claudeLine('replay', from + i)}\n`).join(''),
      );
    write(0, 6);
    await sync.syncAll();
    // The folder's sources.db refuses the next commit of the offset, as a kill between the
    // index's write and the local commit leaves it: the rows are written, the offset is not.
    store.sourcesDb.exec(`CREATE TRIGGER cut_off BEFORE UPDATE OF offset ON source_files
      BEGIN SELECT RAISE(ABORT, 'cut off'); END`);
    write(6, 10);
    const [cut] = await sync.syncAll();
    expect(cut).toMatchObject({ status: 'error' });
    const uuid = new SyncStateRepository(store.sourcesDb).get(file)!.task_uuid!;
    expect(store.requireTask(uuid).llm_call_count).toBe(5);
    store.sourcesDb.exec('DROP TRIGGER cut_off');
    const [replayed] = await sync.syncAll();
    expect(replayed).toMatchObject({ status: 'synced' });
    expect(store.requireTask(uuid)).toMatchObject({
      total_messages: 10,
      llm_call_count: 5,
      input_tokens: 50,
      output_tokens: 15,
    });
    store.close();
  });
});

describe('a contexts folder copied elsewhere', () => {
  it('is refused on another host with what to do; given its own id, it indexes nothing twice', async () => {
    const index = await cluster.createDatabase();
    const original = path.join(tempDir(), 'alpha');
    const store = ContextStore.open(original, { index, host: 'alpha' });
    const uuid = await importOne(store, 'kept once');
    store.close();

    const copy = path.join(tempDir(), 'beta');
    fs.cpSync(original, copy, { recursive: true });
    expect(() => ContextStore.open(copy, { index, host: 'beta' })).toThrow(
      new RegExp(
        `the contexts folder ${copy} has the id of a folder of host alpha \\(${original}, last seen .*\\); this host is beta\\. .*If it is a copy, remove ${copy}/${FOLDER_ID_FILE} .*CWB_HOST=alpha`,
      ),
    );
    // The advice: a copy gets an id of its own; alpha's task stays alpha's, listed once.
    fs.rmSync(path.join(copy, FOLDER_ID_FILE));
    const beta = ContextStore.open(copy, { index, host: 'beta' });
    expect(beta.recovery?.heldElsewhere).toEqual([uuid]);
    expect(beta.recovery?.foldersWithoutRow).toEqual([]);
    expect(beta.listTasks().rows.map((r) => [r.uuid, r.host])).toEqual([[uuid, 'alpha']]);
    beta.close();
    const alpha = ContextStore.open(original, { index, host: 'alpha' });
    expect(alpha.recovery?.rowsWithoutFolder).toEqual([]);
    alpha.close();
  });

  it('is refused on the same host while the original is still there, and a moved folder just moves', async () => {
    const index = await cluster.createDatabase();
    const original = path.join(tempDir(), 'one');
    const store = ContextStore.open(original, { index, host: 'box' });
    await importOne(store, 'a task');
    store.close();
    const copy = path.join(tempDir(), 'two');
    fs.cpSync(original, copy, { recursive: true });
    expect(() => ContextStore.open(copy, { index, host: 'box' })).toThrow(
      new RegExp(`the contexts folder ${copy} is a copy of ${original} .* which is still there`),
    );
    fs.rmSync(copy, { recursive: true });
    const moved = path.join(tempDir(), 'moved');
    fs.renameSync(original, moved);
    const reopened = ContextStore.open(moved, { index, host: 'box' });
    expect(reopened.recovery?.rowsWithoutFolder).toEqual([]);
    expect(reopened.listTasks().total).toBe(1);
    expect((reopened.repo as PgTaskRepository).folders().map((f) => f.contexts_root)).toEqual([
      moved,
    ]);
    reopened.close();
  });
});

describe('an index from before folders had ids (schema v4)', () => {
  const dump = fs.readFileSync(path.join(__dirname, 'fixtures', 'pg', 'fleet-v4.sql'), 'utf8');
  const uuidOf = (host: number, i: number) =>
    `0000000${host}-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const COLUMNS = `uuid, status, title, prompt, host, hostname, total_messages, llm_call_count,
    input_tokens, output_tokens, total_tokens, created_at, repository, "user", model`;

  /** A contexts folder holding the task folders of some of a host's tasks (as the dump's rows say). */
  function folderWith(root: string, host: number, tasks: number[]): void {
    const folderOf = (i: number) => (i === 0 ? 'running' : i === 1 ? 'paused' : 'completed');
    for (const i of tasks)
      fs.mkdirSync(path.join(root, folderOf(i), uuidOf(host, i)), { recursive: true });
  }

  it('opens, migrates and keeps every row; each host adopts its rows by its folder', async () => {
    const index = await cluster.createDatabase();
    await run(index, dump);
    const before = await rows<Record<string, unknown>>(
      index,
      `SELECT ${COLUMNS} FROM tasks ORDER BY uuid`,
    );
    expect(before).toHaveLength(12);

    // alpha's lease named this folder (its only one): all its rows become the folder's.
    const alphaRoot = path.join(tempDir(), 'alpha');
    folderWith(alphaRoot, 1, [0, 1, 2, 3, 4, 5]);
    await run(index, `UPDATE hosts SET contexts_root = '${alphaRoot}' WHERE name = 'alpha'`);
    const alpha = ContextStore.open(alphaRoot, { index, host: 'alpha' });
    expect((alpha.repo as PgTaskRepository).schemaVersion()).toBe(PG_SCHEMA_VERSION);
    expect(alpha.recovery).toMatchObject({ rowsWithoutFolder: [], foldersWithoutRow: [] });
    expect(alpha.listTasks({ limit: 100 }).total).toBe(12);
    alpha.close();

    // beta's folder is elsewhere now and holds 4 of its 6 tasks: those 4 are adopted, the
    // other 2 stay the host's and are kept (never removed by a folder that lacks them).
    const betaRoot = path.join(tempDir(), 'beta-moved');
    folderWith(betaRoot, 2, [0, 1, 2, 3]);
    const beta = ContextStore.open(betaRoot, { index, host: 'beta' });
    expect(beta.recovery).toMatchObject({ rowsWithoutFolder: [], foldersWithoutRow: [] });
    expect(beta.listTasks({ limit: 100 }).total).toBe(12);
    beta.close();

    const after = await rows<Record<string, unknown>>(
      index,
      `SELECT ${COLUMNS} FROM tasks ORDER BY uuid`,
    );
    // Every row kept as it was (beta's running task: its host's lease ran out long ago).
    expect(after.map((r) => ({ ...r, status: undefined }))).toEqual(
      before.map((r) => ({ ...r, status: undefined })),
    );
    const owners = await rows<{ uuid: string; folder_id: string | null }>(
      index,
      'SELECT uuid, folder_id FROM tasks ORDER BY uuid',
    );
    const alphaId = readFolderIdentity(alphaRoot)!.id;
    const betaId = readFolderIdentity(betaRoot)!.id;
    expect(owners.map((o) => o.folder_id)).toEqual([
      ...Array(6).fill(alphaId),
      betaId,
      betaId,
      betaId,
      betaId,
      null,
      null,
    ]);
    // Search and the pickers' counts still cover every task.
    const reader = new PgTaskRepository(index, { host: 'gamma' });
    expect(reader.query({ search: 'beta test number' }).total).toBe(6);
    expect(reader.facetValues().hosts).toEqual([
      { value: 'alpha', count: 6 },
      { value: 'beta', count: 6 },
    ]);
    reader.close();
  });
});
