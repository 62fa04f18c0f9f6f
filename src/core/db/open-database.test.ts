import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './open-database';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { SORTABLE_COLUMNS, TaskRepository } from './task-repository';
import { useTempDir } from '../../../test/support/temp-dir';
import { spawnTs, waitForExit } from '../../../test/support/run-ts';

const tempDir = useTempDir();

/** A version 2 tasks.db (before the sort and search indexes) holding `n` tasks. */
function v2Database(file: string, n: number): void {
  const v2 = new Database(file);
  v2.pragma('journal_mode = WAL');
  v2.exec(MIGRATIONS[0]!);
  v2.exec(MIGRATIONS[1]!);
  v2.pragma('user_version = 2');
  const insert = v2.prepare(
    `INSERT INTO tasks (uuid, status, title, prompt, model, total_tokens, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  v2.transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      insert.run(
        `v2-${i}`,
        i % 3 ? 'completed' : 'failed',
        `Task ${i} ${i % 10 === 0 ? 'Flaky' : 'steady'}`,
        `Prompt of task ${i}. `.repeat(20),
        `model-${i % 4}`,
        i * 7,
        at,
        at,
      );
    }
  })();
  v2.close();
}

describe('openDatabase', () => {
  it('creates the union schema of both seeds with WAL, a busy timeout and the indexes', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    // Statement journals of a task row's insert stay in memory: no temporary file per task.
    expect(db.pragma('temp_store', { simple: true })).toBe(2);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const columns = (
      db.prepare('SELECT name FROM pragma_table_xinfo(?)').all('tasks') as { name: string }[]
    ).map((c) => c.name);
    const seed000 = [
      'uuid',
      'task_source',
      'owner',
      'repo',
      'task_type',
      'task_id',
      'status',
      'created_at',
      'started_at',
      'completed_at',
      'process_id',
      'hostname',
      'llm_provider',
      'model',
      'context_length',
      'llm_call_count',
      'tool_call_count',
      'total_tokens',
      'compression_count',
      'error_message',
      'user',
    ];
    const seed001 = [
      'task_identifier',
      'repository',
      'updated_at',
      'metadata',
      'total_messages',
      'total_summaries',
      'total_tool_calls',
      'final_token_count',
      'final_message_count',
    ];
    const ours = [
      'title',
      'prompt',
      'workdir',
      'parent_uuid',
      'input_tokens',
      'output_tokens',
      'cache_creation_tokens',
      'cache_read_tokens',
    ];
    expect(columns).toEqual(expect.arrayContaining([...seed000, ...seed001, ...ours]));
    const indexed = (
      db
        .prepare(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND sql IS NOT NULL",
        )
        .all() as { sql: string }[]
    ).map((r) => r.sql);
    for (const column of ['status', 'created_at', 'completed_at', 'user', 'repo', 'task_type']) {
      expect(
        indexed.some((sql) => sql.includes(`(${column})`)),
        column,
      ).toBe(true);
    }
    db.close();
  });

  it('migrates a version 1 database forward, keeping its rows, and is idempotent on reopen', () => {
    const file = path.join(tempDir(), 'tasks.db');
    const v1 = new Database(file);
    v1.exec(MIGRATIONS[0]!);
    v1.pragma('user_version = 1');
    v1.prepare(
      "INSERT INTO tasks (uuid, status, created_at, updated_at, title) VALUES ('u1', 'completed', 'c', 'u', 'kept')",
    ).run();
    v1.close();
    const migrated = openDatabase(file);
    expect(migrated.prepare('SELECT title, control FROM tasks').get()).toEqual({
      title: 'kept',
      control: null,
    });
    migrated.close();
    const again = openDatabase(file);
    expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    again.close();
  });

  it('refuses a database written by a newer version instead of guessing', () => {
    const file = path.join(tempDir(), 'tasks.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this version of cwb understands/);
  });

  it('upgrades a version 2 database with rows: indexes for every sort, search indexed, rows kept', () => {
    const file = path.join(tempDir(), 'tasks.db');
    v2Database(file, 600);
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const repo = new TaskRepository(db);
    expect(repo.searchIndexReady()).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual({ n: 600 });
    expect(repo.query({ search: 'flaky', limit: 1000 }).total).toBe(60);
    expect(repo.query({ search: 'FLAKY', status: ['failed'], limit: 1000 }).total).toBe(20);
    expect(repo.get('v2-599')).toMatchObject({ title: 'Task 599 steady', total_tokens: 4193 });
    // Every column the UI and CLI sort on walks an index in either direction: no sort
    // of all the rows to return a page.
    // 'cost' has no column: it is computed per matching row from the price table.
    for (const column of SORTABLE_COLUMNS.filter((c) => c !== 'cost')) {
      for (const order of ['ASC', 'DESC']) {
        const plan = db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT rowid FROM tasks ORDER BY ${column} ${order}, rowid ${order} LIMIT 100`,
          )
          .all() as { detail: string }[];
        expect(plan.map((p) => p.detail).join('; '), `${column} ${order}`).not.toMatch(
          /TEMP B-TREE/,
        );
      }
    }
    db.close();
    const again = openDatabase(file);
    expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(again.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual({ n: 600 });
    again.close();
  });

  it('lets several processes open a version 2 database at once: one upgrade, no lost row', async () => {
    const file = path.join(tempDir(), 'tasks.db');
    // Enough text that the search backfill spans many batches and the openers share it.
    v2Database(file, 2000);
    const openers = Array.from({ length: 4 }, (_, i) =>
      spawnTs('test/support/db-opener.ts', [file, String(i)]),
    );
    const results = await Promise.all(openers.map((c) => waitForExit(c)));
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ version: SCHEMA_VERSION, found: 1 });
    }
    const db = openDatabase(file);
    const repo = new TaskRepository(db);
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks').get()).toEqual({ n: 2004 });
    // each task indexed exactly once: the index holds as many rows as the table
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual({ n: 2004 });
    expect(repo.query({ search: 'flaky', limit: 0 }).total).toBe(200);
    expect(repo.query({ search: 'opened by', limit: 0 }).total).toBe(4);
    db.close();
  });
});
