import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, writeTx, type Db } from './open-database';
import { MIGRATIONS } from './schema';
import { taskWhere } from './task-filter';
import { TaskRepository } from './task-repository';
import {
  backfillSearchIndex,
  searchIndexReady,
  trigramQuery,
  withSearchIndexLater,
} from './task-search';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** Texts that stress the equivalence with LIKE: case, non-ASCII folding, wildcards, FTS5 syntax. */
const TEXTS: [string | null, string | null][] = [
  ['Fix FLAKY parser tests', 'The parser fails one run in ten.'],
  ['flaky', null],
  [null, 'only a prompt mentions FlAkY things'],
  ['Café crème', 'ÉCOLE école Ecole'],
  ['Kelvin: 5 \u212Aelvin', 'long \u017Fs and Straße'],
  ['日本語のタスク', '検索できるか確かめる 🚀 rocket'],
  ['100% done', 'a_b and a%b and back\\slash'],
  ['quotes "inside" here', 'NEAR(a b) AND OR NOT * ^ : {col}'],
  ['ab', 'x'],
  ['retry logic', 'retry retry retry'],
];

const TERMS = [
  'flaky',
  'FLAKY',
  'parser te',
  'café',
  'CAFÉ',
  'école',
  'ÉCOLE',
  'kelvin',
  'KELVIN',
  '\u212Aelvin',
  'ſs',
  'sS',
  'straße',
  'STRASSE',
  '日本語',
  'タスク',
  '🚀 r',
  '100%',
  'a_b',
  'a%b',
  'k\\s',
  '"inside"',
  's "i',
  'NEAR(a',
  'AND OR',
  '* ^',
  '{col}',
  'retry retry',
  'no such text',
  'ab',
  'x',
];

function insertTexts(db: Db, texts: readonly [string | null, string | null][], from = 0): void {
  const insert = db.prepare(
    `INSERT INTO tasks (uuid, status, title, prompt, created_at, updated_at)
     VALUES (?, 'completed', ?, ?, ?, ?)`,
  );
  writeTx(db, () =>
    texts.forEach(([title, prompt], i) => {
      const at = new Date(Date.UTC(2026, 0, 1) + (from + i) * 1000).toISOString();
      insert.run(`task-${from + i}`, title, prompt, at, at);
    }),
  );
}

/** uuids matching `search` through LIKE alone (what search has always meant). */
function likeMatches(db: Db, search: string): string[] {
  const { sql, params } = taskWhere({ search });
  return (db.prepare(`SELECT uuid FROM tasks ${sql}`).all(params) as { uuid: string }[])
    .map((r) => r.uuid)
    .sort();
}

/** rowids the trigram index offers as candidates for `text` (no LIKE check). */
function candidates(db: Db, text: string): number[] {
  return (
    db
      .prepare('SELECT rowid AS r FROM tasks_search WHERE tasks_search MATCH ?')
      .all(trigramQuery(text)) as { r: number }[]
  ).map((r) => r.r);
}

/** A version 2 database with `texts`, upgraded to v3 the way migrate() does, backfill not run. */
function upgradedWithoutBackfill(texts: readonly [string | null, string | null][]): Db {
  const file = path.join(tempDir(), 'tasks.db');
  const v2 = new Database(file);
  v2.exec(MIGRATIONS[0]!);
  v2.exec(MIGRATIONS[1]!);
  v2.pragma('user_version = 2');
  insertTexts(v2, texts);
  writeTx(v2, () => {
    v2.exec(MIGRATIONS[2]!);
    v2.pragma('user_version = 3');
  });
  return v2;
}

describe('task search through the trigram index', () => {
  it('finds exactly what LIKE finds, for every case, script and special character', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    insertTexts(db, TEXTS);
    const repo = new TaskRepository(db);
    expect(repo.searchIndexReady()).toBe(true);
    for (const search of TERMS) {
      const expected = likeMatches(db, search);
      const { rows, total } = repo.query({ search, limit: 100 });
      expect(rows.map((r) => r.uuid).sort(), search).toEqual(expected);
      expect(total, search).toBe(expected.length);
      // combined with another filter and a status the same holds
      const failed = repo.query({ search, status: ['completed'], repo: 'x', limit: 100 });
      expect(failed.total, search).toBe(0);
    }
    // The index is what answers: the search narrows through tasks_search.
    const { sql, params } = taskWhere({ search: 'flaky' }, { searchIndex: true });
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT COUNT(*) FROM tasks ${sql}`).all(params);
    expect(JSON.stringify(plan)).toContain('tasks_search');
    db.close();
  });

  it('leaves rows inserted in bulk to the backfill; search is right before and after it', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    insertTexts(db, TEXTS.slice(0, 3));
    const repo = new TaskRepository(db);
    const at = '2026-02-01T00:00:00.000Z';
    const rows = Array.from({ length: 500 }, (_, i) => ({
      ...repo.require('task-0'),
      uuid: `bulk-${i}`,
      title: `bulk ${i}`,
      prompt: i % 5 === 0 ? 'a FLAKY one' : 'steady',
      created_at: at,
      updated_at: at,
    }));
    repo.insertRows(rows);
    // none tokenized by the trigger: the backfill has all 500 pending
    expect(searchIndexReady(db)).toBe(false);
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual({ n: 3 });
    const reader = new Database(db.name, { readonly: true });
    expect(new TaskRepository(reader).query({ search: 'flaky', limit: 0 }).total).toBe(103);
    reader.close();
    while (!backfillSearchIndex(db, 0));
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual({ n: 503 });
    expect(repo.query({ search: 'flaky', limit: 0 }).total).toBe(103);
    expect(likeMatches(db, 'flaky')).toHaveLength(103);
    // A second bulk insert while nothing is pending, then one while rows indexed by the
    // trigger sit after the pending range: those must never be indexed twice.
    repo.insertRows([{ ...rows[0]!, uuid: 'bulk-a', prompt: 'flaky a' }]);
    insertTexts(db, [['one by one', 'flaky b']], 900);
    repo.insertRows([{ ...rows[0]!, uuid: 'bulk-c', prompt: 'flaky c' }]);
    while (!backfillSearchIndex(db, 0));
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual(
      db.prepare('SELECT COUNT(*) AS n FROM tasks').get(),
    );
    expect(repo.query({ search: 'flaky', limit: 0 }).total).toBe(106);
    db.close();
  });

  it("leaves the rows of a long piece of work (a first sync) to one backfill at its end, another connection's too", async () => {
    const file = path.join(tempDir(), 'tasks.db');
    const db = openDatabase(file);
    insertTexts(db, TEXTS.slice(0, 2));
    const other = openDatabase(file);
    const indexed = (): number =>
      (db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get() as { n: number }).n;
    const repo = new TaskRepository(db);
    const during = await withSearchIndexLater(db, async () => {
      // Row by row, each in its own transaction, from this connection and another one.
      insertTexts(db, [['later one', 'a FLAKY prompt']], 10);
      await Promise.resolve();
      insertTexts(other, [['later two', 'flaky again']], 11);
      insertTexts(db, [['later three', 'steady']], 12);
      // Not tokenized by the trigger; search still answers, through LIKE alone.
      expect(indexed()).toBe(2);
      expect(searchIndexReady(db)).toBe(false);
      expect(repo.query({ search: 'flaky', limit: 0 }).total).toBe(4);
      return 'done';
    });
    expect(during).toBe('done');
    // Indexed together at the end, each row once; rows after it go through the trigger again.
    expect(searchIndexReady(db)).toBe(true);
    expect(indexed()).toBe(5);
    insertTexts(other, [['after', 'flaky after']], 13);
    expect(indexed()).toBe(6);
    expect(repo.query({ search: 'flaky', limit: 0 }).total).toBe(5);
    expect(candidates(db, 'flaky').length).toBe(5);

    // A range another process left open (it died during its work): the next backfill closes it.
    db.prepare('INSERT INTO tasks_search_backfill (id, done, upto) VALUES (1, 6, ?)').run(
      Number.MAX_SAFE_INTEGER,
    );
    insertTexts(other, [['orphan', 'flaky orphan']], 14);
    expect(indexed()).toBe(6);
    expect(backfillSearchIndex(db, Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(searchIndexReady(db)).toBe(true);
    expect(indexed()).toBe(7);

    // An unfinished upgrade backfill ending before the last row: rows go through the trigger.
    db.prepare('INSERT INTO tasks_search_backfill (id, done, upto) VALUES (1, 0, 1)').run();
    await withSearchIndexLater(db, async () => {
      insertTexts(db, [['beside the upgrade', 'flaky']], 15);
      expect(indexed()).toBe(8);
    });
    // That backfill is left as it was, for its own course.
    expect(db.prepare('SELECT done, upto FROM tasks_search_backfill').get()).toEqual({
      done: 0,
      upto: 1,
    });
    other.close();
    db.close();
  });

  it('keeps the index in step with inserts, renames and deletes', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    insertTexts(db, TEXTS);
    const rowid = (uuid: string): number =>
      (db.prepare('SELECT rowid AS r FROM tasks WHERE uuid = ?').get(uuid) as { r: number }).r;
    const renamed = rowid('task-0');
    db.prepare("UPDATE tasks SET title = 'Renamed entirely' WHERE uuid = 'task-0'").run();
    expect(candidates(db, 'FLAKY parser')).not.toContain(renamed);
    expect(candidates(db, 'renamed')).toEqual([renamed]);
    const deleted = rowid('task-9');
    db.prepare("DELETE FROM tasks WHERE uuid = 'task-9'").run();
    expect(candidates(db, 'retry')).not.toContain(deleted);
    // a counter update leaves the index alone and the row still found
    new TaskRepository(db).addStats('task-1', { messages: 1 });
    expect(new TaskRepository(db).query({ search: 'flaky' }).total).toBe(2);
    db.close();
  });

  it('backfills an upgraded database in batches while other writes go on, indexing each row once', () => {
    const texts: [string, string][] = Array.from({ length: 1000 }, (_, i) => [
      `task number ${i}`,
      `prompt ${i % 7 === 0 ? 'with a needle' : 'plain'} ${i}`,
    ]);
    const db = upgradedWithoutBackfill(texts);
    const repo = new TaskRepository(db);
    expect(searchIndexReady(db)).toBe(false);
    // Before the backfill is done, search is still right (LIKE alone; a read-only
    // connection does not take a share of the backfill).
    const reader = new Database(db.name, { readonly: true });
    expect(new TaskRepository(reader).query({ search: 'needle', limit: 0 }).total).toBe(143);
    reader.close();

    expect(backfillSearchIndex(db, 0)).toBe(false); // one batch
    const { done, upto } = db.prepare('SELECT done, upto FROM tasks_search_backfill').get() as {
      done: number;
      upto: number;
    };
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(upto);
    const byRowid = (r: number): string =>
      (db.prepare('SELECT uuid FROM tasks WHERE rowid = ?').get(r) as { uuid: string }).uuid;
    // Writes on both sides of the cursor, and past the end of the backfill.
    db.prepare('UPDATE tasks SET title = ? WHERE uuid = ?').run('needle in the title', byRowid(1));
    db.prepare('UPDATE tasks SET title = ? WHERE uuid = ?').run('needle late', byRowid(done + 5));
    db.prepare('DELETE FROM tasks WHERE uuid = ?').run(byRowid(2));
    db.prepare('DELETE FROM tasks WHERE uuid = ?').run(byRowid(done + 6));
    // Deleting the last row lets the next insert reuse its rowid, still inside the range.
    db.prepare('DELETE FROM tasks WHERE uuid = ?').run(byRowid(upto));
    insertTexts(db, [['reused rowid', 'a needle again']], 5000);
    expect(db.prepare("SELECT rowid AS r FROM tasks WHERE uuid = 'task-5000'").get()).toEqual({
      r: upto,
    });
    // Renamed before the backfill reaches it: only the new title may end up in the index.
    db.prepare("UPDATE tasks SET title = 'reused then renamed' WHERE uuid = 'task-5000'").run();
    insertTexts(db, [['brand new', 'needle new']], 6000);

    while (!backfillSearchIndex(db, 0));
    // No stale text: the row renamed while pending is indexed once, under its new title.
    expect(candidates(db, 'reused rowid')).toEqual([]);
    expect(candidates(db, 'reused then')).toEqual([upto]);
    expect(repo.searchIndexReady()).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM tasks_search').get()).toEqual(
      db.prepare('SELECT COUNT(*) AS n FROM tasks').get(),
    );
    // A row indexed twice would keep its old text in the index after the next rename.
    db.prepare("UPDATE tasks SET title = 'renamed again' WHERE uuid IN (?, 'task-5000')").run(
      byRowid(done + 5),
    );
    expect(candidates(db, 'needle late')).toEqual([]);
    for (const search of ['needle', 'task number', 'number 1', 'renamed', 'brand new', 'plain']) {
      const expected = likeMatches(db, search);
      expect(
        repo
          .query({ search, limit: 2000 })
          .rows.map((r) => r.uuid)
          .sort(),
        search,
      ).toEqual(expected);
      // no stale or missing entries: the candidates are the matches here
      expect(candidates(db, search).length, search).toBe(expected.length);
    }
    db.close();
  });
});
