import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './open-database';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('openDatabase', () => {
  it('creates the union schema of both seeds with WAL, a busy timeout and the indexes', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
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
});
