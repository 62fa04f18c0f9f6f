/**
 * Goose, Crush and Zed as live sources: each database found where the agent keeps it
 * (Goose's and Zed's data folders; Crush's `.crush/crush.db` in the working directory of a
 * task already known), synced while the agent writes it — rows added (Goose), a row rewritten
 * as it streams (Crush), a thread rewritten whole (Zed) — every message once, as `cwb import`
 * of the final database gives it, and the database and its WAL never written.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind, type SourceKind } from '../src/core/sources/source-kinds';
import { SourceSync } from '../src/core/sources/source-sync';
import type { SourcesConfig } from '../src/core/sources/sources-config';
import { syncFile } from '../src/core/sources/sync-file';
import {
  CRUSH_SCHEMA,
  GOOSE_SCHEMA,
  gooseDb,
  ZED_SCHEMA,
  crushRows,
  gooseRows,
  insertRow,
  openWal,
  zedRows,
} from './support/agent-dbs';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const hash = (file: string): string =>
  fs.existsSync(file)
    ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    : 'none';

/** What must be equal between the synced and the imported task (Zed records no message times). */
function snapshot(store: ContextStore, agent: string, times: boolean): unknown[] {
  const rows = store.listTasks({ limit: 10 }).rows.filter((r) => r.agent === agent);
  return rows.map((row: TaskRow) => ({
    row: [
      row.title,
      row.agent,
      row.task_id,
      row.workdir,
      row.model,
      row.llm_call_count,
      row.input_tokens,
      row.output_tokens,
      row.total_messages,
      row.total_tool_calls,
      row.created_at,
      row.completed_at,
    ],
    messages: lines(path.join(store.taskPath(row), 'messages.jsonl')).map((m) => [
      m.role,
      m.content,
      m.tool_calls,
      m.tool_call_id,
      m.tool_name,
      m.history_only,
      times ? m.timestamp : null,
    ]),
    tools: lines(path.join(store.taskPath(row), 'tools.jsonl'))
      .map((t) => JSON.stringify([t.tool, t.tool_call_id, t.status]))
      .sort(),
  }));
}

/** Writes `steps` with `writer`, syncing after each; the files' bytes are unchanged by every sync. */
async function growAndSync(
  live: ContextStore,
  kind: SourceKind,
  file: string,
  writer: Database.Database,
  steps: (() => void)[],
  sync: () => Promise<unknown> = () => syncFile(live, kind, file),
): Promise<void> {
  writer.pragma('wal_autocheckpoint = 0');
  for (const step of steps) {
    step();
    const before = [hash(file), hash(`${file}-wal`)];
    await sync();
    expect([hash(file), hash(`${file}-wal`)]).toEqual(before);
  }
  await syncFile(live, kind, file, { quietMs: 0 });
  expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('unchanged');
  writer.close();
}

async function expectAsImported(
  root: string,
  live: ContextStore,
  file: string,
  agent: string,
  times = true,
): Promise<void> {
  const imported = ContextStore.open(path.join(root, 'imported'));
  await importFile(imported, file);
  const got = snapshot(live, agent, times);
  expect(got).toHaveLength(1);
  expect(got).toEqual(snapshot(imported, agent, times));
  imported.close();
  live.close();
}

describe('database sources (Goose, Crush, Zed)', () => {
  it('goose: sessions.db in its data folder, messages added between syncs, each once', async () => {
    const root = tempDir();
    const kind = sourceKind('goose')!;
    const folder = kind.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    const file = path.join(folder, 'sessions.db');
    const writer = openWal(file, GOOSE_SCHEMA);
    const { sessions, messages } = gooseRows();
    insertRow(writer, 'sessions', sessions[0]!);
    expect(await discoverFiles(kind, folder)).toEqual([file]);
    const live = ContextStore.open(path.join(root, 'live'));
    // Goose stamps each message when it adds it.
    const steps = messages.map(
      (m) => () =>
        insertRow(writer, 'messages', { ...m, created_timestamp: Math.floor(Date.now() / 1000) }),
    );
    await growAndSync(live, kind, file, writer, steps);
    await expectAsImported(root, live, file, 'goose');
  });

  it('goose: the older JSON Lines sessions beside sessions.db, synced as imported; one Goose moved into sessions.db is read from there only', async () => {
    const root = tempDir();
    const kind = sourceKind('goose')!;
    const folder = kind.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    const db = gooseDb(path.join(folder, 'sessions.db'));
    const file = path.join(folder, '20250612_093015.jsonl');
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(realFixture('goose', '20250612_093015.jsonl'), file);
    // Goose 1.10 imported this one into sessions.db (same id) and left the file.
    const migrated = path.join(folder, `${String(gooseRows().sessions[0]!.id)}.jsonl`);
    fs.copyFileSync(file, migrated);
    expect((await discoverFiles(kind, folder)).sort()).toEqual([migrated, file, db].sort());
    const live = ContextStore.open(path.join(root, 'live'));
    const before = hash(file);
    expect((await syncFile(live, kind, migrated, { quietMs: 0 })).messages).toBe(0);
    const synced = await syncFile(live, kind, file, { quietMs: 0 });
    expect(synced.messages).toBe(10);
    expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('unchanged');
    expect(hash(file)).toBe(before);
    await expectAsImported(root, live, file, 'goose');
  });

  it('goose: a session synced from its JSON Lines file goes on in the same task once Goose moves it into sessions.db', async () => {
    const root = tempDir();
    const kind = sourceKind('goose')!;
    const folder = kind.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    const id = '20250612_093015';
    const jsonl = path.join(folder, `${id}.jsonl`);
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(realFixture('goose', `${id}.jsonl`), jsonl);
    const [head, ...messages] = lines(jsonl) as Record<string, unknown>[];
    /** Goose 1.10's import of the file: the session's row and its messages' (content re-serialized). */
    const moveIntoDb = (): Database.Database => {
      const writer = openWal(path.join(folder, 'sessions.db'), GOOSE_SCHEMA);
      insertRow(writer, 'sessions', {
        id,
        description: head!.description,
        working_dir: head!.working_dir,
        created_at: '2025-06-12 09:30:15',
        updated_at: '2025-06-12 09:41:00',
      });
      for (const m of messages)
        writer
          .prepare(
            'INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)',
          )
          .run(id, m.role, JSON.stringify(m.content, null, 1), m.created);
      return writer;
    };
    const db = path.join(folder, 'sessions.db');

    // Synced from the file first; then Goose moves it and the person goes on with it.
    const live = ContextStore.open(path.join(root, 'live'));
    expect((await syncFile(live, kind, jsonl, { quietMs: 0 })).messages).toBe(10);
    const [before] = live.listTasks({ limit: 10 }).rows;
    const writer = moveIntoDb();
    expect(await syncFile(live, kind, db, { quietMs: 0 })).toMatchObject({
      status: 'synced',
      messages: 0,
    });
    writer
      .prepare(
        'INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)',
      )
      .run(id, 'user', JSON.stringify([{ type: 'text', text: 'Also handle PDT.' }]), 1749721000);
    expect(await syncFile(live, kind, db, { quietMs: 0 })).toMatchObject({
      status: 'synced',
      messages: 1,
      uuids: [before!.uuid],
    });
    expect((await syncFile(live, kind, jsonl, { quietMs: 0 })).messages).toBe(0);
    writer.close();
    const rows = live.listTasks({ limit: 10 }).rows;
    expect(rows.map((r) => [r.uuid, r.total_messages])).toEqual([[before!.uuid, 11]]);
    expect(lines(path.join(live.taskPath(rows[0]!), 'messages.jsonl')).at(-1)).toMatchObject({
      role: 'user',
      content: 'Also handle PDT.',
    });

    // Both there at the first sync, in either order: one task.
    for (const order of [
      [jsonl, db],
      [db, jsonl],
    ]) {
      const store = ContextStore.open(path.join(root, `both-${order.indexOf(db)}`));
      for (const f of order)
        expect((await syncFile(store, kind, f, { quietMs: 0 })).status).not.toBe('error');
      expect(store.listTasks({ limit: 10 }).rows.map((r) => r.total_messages)).toEqual([11]);
      store.close();
    }
    live.close();
  });

  it('goose: a delegate’s sub_agent session is a sub-agent task under the session whose tool result names it, imported or synced while Goose writes it', async () => {
    const root = tempDir();
    const kind = sourceKind('goose')!;
    const folder = kind.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    const file = path.join(folder, 'sessions.db');
    const writer = openWal(file, GOOSE_SCHEMA);
    const { sessions, messages } = gooseRows('delegate.json');
    const live = ContextStore.open(path.join(root, 'live'));
    // As Goose writes them, stamped now: the parent's call, the sub-agent's whole run, then
    // the call's result naming the sub-agent session, and the parent's answer.
    const added = new Set<unknown>();
    const steps = messages.map((m) => () => {
      const now = Math.floor(Date.now() / 1000);
      const at = new Date(now * 1000).toISOString().replace('T', ' ').slice(0, 19);
      if (!added.has(m.session_id)) {
        added.add(m.session_id);
        const s = sessions.find((x) => x.id === m.session_id)!;
        insertRow(writer, 'sessions', { ...s, created_at: at, updated_at: at });
      }
      insertRow(writer, 'messages', { ...m, created_timestamp: now });
    });
    await growAndSync(live, kind, file, writer, steps, async () => {
      await syncFile(live, kind, file);
      // Never a top-level task for the sub-agent while its parent has not named it yet.
      const rows = live.listTasks({ limit: 10 }).rows;
      expect(rows.filter((r) => r.task_type === '').map((r) => r.task_id)).toEqual(
        rows.length > 0 ? ['20251201_1'] : [],
      );
    });
    // Read once it has been still (the watcher syncs a held session again quiet_ms later).
    expect(live.listTasks({ limit: 10 }).rows).toHaveLength(2);
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    for (const store of [live, imported]) {
      const rows = store.listTasks({ limit: 10 }).rows;
      const parent = rows.find((r) => r.task_id === '20251201_1')!;
      const child = rows.find((r) => r.task_id === '20251201_2')!;
      expect(child).toMatchObject({
        task_type: 'subagent',
        parent_uuid: parent.uuid,
        title: expect.stringMatching(/^Subagent: List every catch block under src\//),
      });
    }
    expect(snapshot(live, 'goose', true)).toEqual(snapshot(imported, 'goose', true));
    live.close();
    imported.close();
  });

  it('crush: found in the working directory of a known task; a reply rewritten as it streams is written once, whole', async () => {
    const root = tempDir();
    const project = path.join(root, 'api');
    const file = path.join(project, '.crush', 'crush.db');
    const writer = openWal(file, CRUSH_SCHEMA);
    const { sessions, messages } = crushRows();
    insertRow(writer, 'sessions', sessions[0]!);
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('crush')!;
    const config: SourcesConfig = {
      watch: false,
      poll: false,
      pollIntervalMs: 1000,
      quietMs: 5000,
      file: null,
      sources: [
        { id: 'crush', label: 'Crush', enabled: true, folders: [], configured: false, kind },
      ],
    };
    const sync = new SourceSync(live, config);
    expect(await sync.syncAll()).toEqual([]); // no task works in the project yet
    // A task of another agent in the same project makes its Crush database known.
    live.createTask({ title: 'other agent', workdir: project }).close();
    const now = (): number => Math.floor(Date.now() / 1000);
    const steps: (() => void)[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') {
        // Crush writes the reply row at once, then rewrites its parts as they stream.
        steps.push(() => insertRow(writer, 'messages', { ...m, parts: '[]', updated_at: now() }));
        steps.push(() =>
          insertRow(writer, 'messages', {
            ...m,
            parts: JSON.stringify([{ type: 'text', data: { text: 'CI inst' } }]),
            updated_at: now(),
          }),
        );
      }
      steps.push(() => insertRow(writer, 'messages', { ...m, updated_at: now() }));
    }
    await growAndSync(live, kind, file, writer, steps, () => sync.syncAll());
    await expectAsImported(root, live, file, 'crush');
  });

  it('zed: threads.db rewritten whole as the thread grows (json, then zstd), each message once', async () => {
    const root = tempDir();
    const kind = sourceKind('zed')!;
    const folder = kind.defaultFolders({ HOME: path.join(root, 'home') })[0]!;
    const file = path.join(folder, 'threads.db');
    const writer = openWal(file, ZED_SCHEMA);
    const [thread] = zedRows();
    const full = JSON.parse(
      fs.readFileSync(realFixture('zed', `${String(thread!.id)}.json`), 'utf8'),
    ) as { messages: unknown[] };
    const live = ContextStore.open(path.join(root, 'live'));
    const steps = full.messages.map((_, i) => () => {
      const partial = { ...full, messages: full.messages.slice(0, i + 1) };
      insertRow(writer, 'threads', {
        ...thread,
        updated_at: new Date(Date.now() + i).toISOString(),
        data_type: 'json',
        data: Buffer.from(JSON.stringify(partial)),
      });
    });
    steps.push(() => insertRow(writer, 'threads', thread!));
    await growAndSync(live, kind, file, writer, [
      () => {
        steps[0]!();
        expect(fs.existsSync(file)).toBe(true);
      },
      ...steps.slice(1),
    ]);
    expect(await discoverFiles(kind, folder)).toEqual([file]);
    await expectAsImported(root, live, file, 'zed', false);
  });

  it('a sub-agent’s session (Zed, Crush) hangs under its parent’s task, even when synced first', async () => {
    const root = tempDir();
    const live = ContextStore.open(path.join(root, 'live'));
    // Zed: the sub-agent's thread is saved before its parent's first save.
    const zed = sourceKind('zed')!;
    const zedFile = path.join(
      zed.defaultFolders({ HOME: path.join(root, 'home') })[0]!,
      'threads.db',
    );
    const zedWriter = openWal(zedFile, ZED_SCHEMA);
    const [parentThread] = zedRows();
    const childThread = {
      version: '0.3.0',
      title: 'Find callers of peek',
      updated_at: '2025-11-21T09:20:00Z',
      subagent_context: { parent_thread_id: parentThread!.id },
      messages: [
        { User: { id: 'u-1', content: [{ Text: 'List the callers of Parser::peek.' }] } },
        { Agent: { content: [{ Text: 'Two.' }], tool_results: {} } },
      ],
    };
    insertRow(zedWriter, 'threads', {
      id: 'a41c2d7e-7b3f-4f0e-8d11-5e6a9c0b2f44',
      parent_id: parentThread!.id,
      summary: childThread.title,
      updated_at: childThread.updated_at,
      created_at: '2025-11-21T09:15:00.000+00:00',
      data_type: 'json',
      data: Buffer.from(JSON.stringify(childThread)),
    });
    await syncFile(live, zed, zedFile, { quietMs: 0 });
    insertRow(zedWriter, 'threads', parentThread!);
    await syncFile(live, zed, zedFile, { quietMs: 0 });
    zedWriter.close();
    // Crush: the agent tool's session (`<message id>$$<call id>`) beside its parent's.
    const project = path.join(root, 'api');
    const crushFile = path.join(project, '.crush', 'crush.db');
    const crushWriter = openWal(crushFile, CRUSH_SCHEMA);
    const { sessions, messages } = crushRows();
    for (const row of sessions) insertRow(crushWriter, 'sessions', row);
    for (const row of messages) insertRow(crushWriter, 'messages', row);
    const child = `${String(messages[5]!.id)}$$call_a3`;
    insertRow(crushWriter, 'sessions', {
      id: child,
      parent_session_id: sessions[0]!.id,
      title: 'New Agent Session',
      updated_at: 1763650020,
      created_at: 1763650009,
    });
    const prompt = [{ type: 'text', data: { text: 'Find where CI installs golangci-lint.' } }];
    insertRow(crushWriter, 'messages', {
      id: 'c-1',
      session_id: child,
      role: 'user',
      parts: JSON.stringify(prompt),
      created_at: 1763650010,
      updated_at: 1763650010,
    });
    crushWriter.close();
    await syncFile(live, sourceKind('crush')!, crushFile, { quietMs: 0 });

    const rows = live.listTasks({ limit: 20 }).rows;
    const byId = (id: unknown) => rows.find((r) => r.task_id === id)!;
    expect(byId('a41c2d7e-7b3f-4f0e-8d11-5e6a9c0b2f44')).toMatchObject({
      parent_uuid: byId(parentThread!.id).uuid,
      task_type: 'subagent',
      title: 'Subagent: List the callers of Parser::peek.',
    });
    expect(byId(child)).toMatchObject({
      parent_uuid: byId(sessions[0]!.id).uuid,
      task_type: 'subagent',
      title: 'Subagent: Find where CI installs golangci-lint.',
    });
    live.close();
  });
});
