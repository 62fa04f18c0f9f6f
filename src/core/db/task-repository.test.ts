import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, writeTx, type Db } from './open-database';
import { TaskRepository, type TaskQuery } from './task-repository';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** 230 tasks with few distinct values per column, so most sort keys tie. */
function seeded(): { db: Db; repo: TaskRepository } {
  const db = openDatabase(path.join(tempDir(), 'tasks.db'));
  const insert = db.prepare(
    `INSERT INTO tasks (uuid, status, title, prompt, model, user, total_tokens, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  writeTx(db, () => {
    for (let i = 0; i < 230; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + (i % 9) * 60_000).toISOString();
      insert.run(
        // uuids out of insertion order, so a uuid tie-break and a rowid one differ
        `${String((i * 37) % 230).padStart(3, '0')}-task`,
        ['completed', 'failed', 'paused'][i % 3],
        i % 5 === 0 ? null : `title ${i % 4}`,
        `prompt ${i % 2 ? 'needle' : 'hay'} ${i}`,
        `model-${i % 3}`,
        `user-${i % 6}`,
        (i % 7) * 100,
        at,
        at,
      );
    }
  });
  return { db, repo: new TaskRepository(db) };
}

/** Every page of `q`, `size` rows at a time, until a page comes back short. */
function allPages(repo: TaskRepository, q: TaskQuery, size: number, count: number): string[] {
  const uuids: string[] = [];
  for (let offset = 0; ; offset += size) {
    const { rows, total } = repo.query({ ...q, limit: size, offset });
    expect(total, `${JSON.stringify(q)} at ${offset}`).toBe(count);
    uuids.push(...rows.map((r) => r.uuid));
    if (rows.length < size) return uuids;
  }
}

describe('TaskRepository.query', () => {
  it('pages through sorted, filtered and searched lists: every row once, in order, the total on every page', () => {
    const { db, repo } = seeded();
    const queries: TaskQuery[] = [
      {},
      { sort: 'title', order: 'asc' },
      { sort: 'model' },
      { sort: 'total_tokens', order: 'asc' },
      { sort: 'status' },
      { status: ['failed', 'paused'], sort: 'updated_at' },
      { user: 'user-1', sort: 'title' },
      { search: 'needle' },
      { search: 'NEEDLE', status: ['completed'], sort: 'total_tokens' },
      { search: 'needle', user: 'user-3', sort: 'model', order: 'asc' },
    ];
    for (const q of queries) {
      const column = q.sort ?? 'created_at';
      const dir = q.order === 'asc' ? 'ASC' : 'DESC';
      const whole = repo.query({ ...q, limit: 1000 }).rows.map((r) => r.uuid);
      // The order is the column, ties broken by insertion order (rowid), both one way.
      const expected = (
        db.prepare(`SELECT uuid FROM tasks ORDER BY ${column} ${dir}, rowid ${dir}`).all() as {
          uuid: string;
        }[]
      )
        .map((r) => r.uuid)
        .filter((u) => whole.includes(u));
      expect(whole, JSON.stringify(q)).toEqual(expected);
      expect(whole.length, JSON.stringify(q)).toBeGreaterThan(0);
      for (const size of [7, 50, whole.length]) {
        expect(allPages(repo, q, size, whole.length), `${JSON.stringify(q)} by ${size}`).toEqual(
          whole,
        );
      }
    }
    // Past the end: no rows, and the total still counted.
    expect(repo.query({ sort: 'model', offset: 500, limit: 10 })).toEqual({ rows: [], total: 230 });
    expect(repo.query({ search: 'needle', offset: 500, limit: 10 })).toEqual({
      rows: [],
      total: 115,
    });
    expect(repo.query({ limit: 0 })).toEqual({ rows: [], total: 230 });
    db.close();
  });

  it('adds only the counters an event changes, each by its increment', () => {
    const { db, repo } = seeded();
    const uuid = '000-task';
    const before = repo.require(uuid);
    repo.addStats(uuid, { messages: 1 });
    repo.addStats(uuid, { llm_calls: 1, usage: { input_tokens: 30, output_tokens: 12 } });
    repo.addStats(uuid, { tool_calls: 2 });
    repo.addStats(uuid, { messages: 2 });
    repo.addStats(uuid, {
      compressions: 1,
      summaries: 1,
      usage: { cache_read_tokens: 5, cache_creation_tokens: 3, total_tokens: 9 },
    });
    const after = repo.require(uuid);
    expect({
      total_messages: after.total_messages - before.total_messages,
      llm_call_count: after.llm_call_count - before.llm_call_count,
      input_tokens: after.input_tokens - before.input_tokens,
      output_tokens: after.output_tokens - before.output_tokens,
      total_tokens: after.total_tokens - before.total_tokens,
      tool_call_count: after.tool_call_count - before.tool_call_count,
      total_tool_calls: after.total_tool_calls - before.total_tool_calls,
      compression_count: after.compression_count - before.compression_count,
      total_summaries: after.total_summaries - before.total_summaries,
      cache_read_tokens: after.cache_read_tokens - before.cache_read_tokens,
      cache_creation_tokens: after.cache_creation_tokens - before.cache_creation_tokens,
    }).toEqual({
      total_messages: 3,
      llm_call_count: 1,
      input_tokens: 30,
      output_tokens: 12,
      total_tokens: 42 + 9,
      tool_call_count: 2,
      total_tool_calls: 2,
      compression_count: 1,
      total_summaries: 1,
      cache_read_tokens: 5,
      cache_creation_tokens: 3,
    });
    expect(after.updated_at > before.updated_at).toBe(true);
    db.close();
  });
});
