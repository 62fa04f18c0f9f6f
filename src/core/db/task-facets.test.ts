import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, writeTx, type Db } from './open-database';
import { MIGRATIONS } from './schema';
import { taskFacetValues, taskStatusCounts, tasksTableStamp } from './task-facets';
import { TaskRepository } from './task-repository';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** The facets as counting every row says they are (what task_counts must agree with). */
function counted(db: Db): unknown {
  const values = (column: string): { value: string; count: number }[] =>
    db
      .prepare(
        `SELECT ${column} AS value, COUNT(*) AS count FROM tasks
         WHERE ${column} IS NOT NULL AND ${column} <> ''
         GROUP BY ${column} ORDER BY count DESC, value`,
      )
      .all() as { value: string; count: number }[];
  const status = { running: 0, paused: 0, completed: 0, failed: 0 } as Record<string, number>;
  for (const r of db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as {
    status: string;
    n: number;
  }[])
    status[r.status] = r.n;
  // Agents count '' too: the tasks this app ran are a choice of the agent filter.
  const agents = db
    .prepare(
      'SELECT agent AS value, COUNT(*) AS count FROM tasks GROUP BY agent ORDER BY count DESC, value',
    )
    .all();
  return {
    status,
    repos: values('repository'),
    users: values('user'),
    models: values('model'),
    agents,
    hosts: values('host'),
  };
}

function facets(db: Db): unknown {
  return { status: taskStatusCounts(db, {}), ...taskFacetValues(db) };
}

function insert(db: Db, i: number, owner: string, repo: string, user: string | null): void {
  db.prepare(
    `INSERT INTO tasks (uuid, status, owner, repo, user, model, hostname, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'c', 'u')`,
  ).run(
    `t${i}`,
    ['running', 'failed', 'completed'][i % 3],
    owner,
    repo,
    user,
    `m${i % 2}`,
    i % 5 ? `box${i % 2}` : null,
  );
}

describe('task facets', () => {
  it('keeps the counts of statuses, repositories, users, models and hosts in step with every write', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    const repo = new TaskRepository(db);
    writeTx(db, () => {
      for (let i = 0; i < 30; i++) insert(db, i, i % 4 ? 'acme' : '', `r${i % 3}`, `u${i % 5}`);
      insert(db, 30, '', '', null);
      insert(db, 31, 'solo', 'x', '');
    });
    expect(facets(db)).toEqual(counted(db));
    repo.setStatus('t0', 'completed');
    repo.setStatus('t3', 'paused');
    db.prepare("UPDATE tasks SET owner = 'globex' WHERE uuid IN ('t1', 't2')").run();
    db.prepare("UPDATE tasks SET repo = 'renamed' WHERE uuid = 't4'").run();
    db.prepare("UPDATE tasks SET user = NULL WHERE uuid = 't5'").run();
    db.prepare("UPDATE tasks SET user = 'newcomer', model = NULL WHERE uuid = 't30'").run();
    db.prepare("UPDATE tasks SET model = 'm1' WHERE uuid = 't6'").run();
    repo.addStats('t7', { messages: 1 });
    repo.setStatus('t9', 'running', { process_id: 1, hostname: 'box7' });
    repo.setStatus('t10', 'running', { process_id: 1, hostname: 'box1' });
    db.prepare("UPDATE tasks SET hostname = NULL WHERE uuid = 't11'").run();
    repo.delete('t8');
    repo.delete('t31'); // its repository and user values go with it
    expect(facets(db)).toEqual(counted(db));
    expect(JSON.stringify(taskFacetValues(db))).not.toContain('solo/x');
    db.close();
  });

  it('counts an upgraded version 2 database, and follows the other filters', () => {
    const file = path.join(tempDir(), 'tasks.db');
    const v2 = new Database(file);
    v2.exec(MIGRATIONS[0]!);
    v2.exec(MIGRATIONS[1]!);
    v2.pragma('user_version = 2');
    v2.transaction(() => {
      for (let i = 0; i < 50; i++) insert(v2, i, 'acme', `r${i % 4}`, `u${i % 3}`);
    })();
    v2.close();
    const db = openDatabase(file);
    expect(facets(db)).toEqual(counted(db));
    // With another filter the chips count the matching tasks; status and paging do not filter.
    expect(
      taskStatusCounts(db, { repo: 'acme/r1', status: ['failed'], offset: 10 } as never),
    ).toEqual({ running: 4, failed: 5, completed: 4, paused: 0 });
    db.close();
  });

  it('changes the table stamp when a counter moves', () => {
    const db = openDatabase(path.join(tempDir(), 'tasks.db'));
    insert(db, 1, '', 'r', 'u');
    const before = tasksTableStamp(db);
    new TaskRepository(db).addStats('t1', { messages: 1 });
    expect(tasksTableStamp(db)).not.toBe(before);
    db.close();
  });
});
