import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/open-database';
import { MIGRATIONS } from '../db/schema';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/**
 * A tasks.db as the importers before the agent column left it: updated_at = the import
 * time, repo empty though the workdir was known.
 */
function previousDatabase(file: string): void {
  const db = new Database(file);
  const agentMigration = MIGRATIONS.findIndex((sql) => sql.includes('ADD COLUMN agent'));
  for (const sql of MIGRATIONS.slice(0, agentMigration)) db.exec(sql);
  db.pragma(`user_version = ${agentMigration}`);
  const insert = db.prepare(
    `INSERT INTO tasks (uuid, status, task_source, owner, repo, workdir, created_at, started_at, updated_at, completed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const imported = '2026-11-25T14:00:00.000Z';
  insert.run(
    'cc',
    'completed',
    'claude-code',
    '',
    '',
    '/home/me/src/demo',
    '2025-09-07T09:52:03.071Z',
    '2025-09-07T09:52:03.071Z',
    imported,
    '2025-09-07T09:54:26.499Z',
  );
  insert.run(
    'cx',
    'completed',
    'codex',
    '',
    '',
    'C:\\Users\\me\\naya\\',
    '2026-05-11T10:28:45.482Z',
    null,
    imported,
    '2026-05-11T11:48:14.988Z',
  );
  insert.run(
    'oa',
    'completed',
    'openai-chat',
    '',
    '',
    null,
    imported,
    imported,
    imported,
    imported,
  );
  insert.run(
    'sw',
    'failed',
    'swe-agent',
    'pydicom',
    'pydicom',
    '/pydicom__pydicom',
    imported,
    imported,
    imported,
    imported,
  );
  // Our own task: not touched.
  insert.run(
    'own',
    'completed',
    '',
    '',
    '',
    '/home/me/work',
    '2026-01-01T00:00:00.000Z',
    null,
    '2026-02-01T00:00:00.000Z',
    '2026-01-02T00:00:00.000Z',
  );
  db.close();
}

describe('the agent migration', () => {
  it('names the agent of earlier imports, dates them by the session, and fills the repository from the workdir', () => {
    const file = path.join(tempDir(), 'tasks.db');
    previousDatabase(file);
    const db = openDatabase(file);
    const rows = db
      .prepare('SELECT uuid, agent, repo, repository, updated_at FROM tasks ORDER BY uuid')
      .all() as {
      uuid: string;
      agent: string;
      repo: string;
      repository: string;
      updated_at: string;
    }[];
    expect(rows).toEqual([
      {
        uuid: 'cc',
        agent: 'claude-code',
        repo: 'demo',
        repository: 'demo',
        updated_at: '2025-09-07T09:54:26.499Z',
      },
      {
        uuid: 'cx',
        agent: 'codex',
        repo: 'naya',
        repository: 'naya',
        updated_at: '2026-05-11T11:48:14.988Z',
      },
      {
        uuid: 'oa',
        agent: 'openai',
        repo: '',
        repository: '',
        updated_at: '2026-11-25T14:00:00.000Z',
      },
      { uuid: 'own', agent: '', repo: '', repository: '', updated_at: '2026-02-01T00:00:00.000Z' },
      {
        uuid: 'sw',
        agent: 'swe-agent',
        repo: 'pydicom',
        repository: 'pydicom/pydicom',
        updated_at: '2026-11-25T14:00:00.000Z',
      },
    ]);
    const facet = db
      .prepare("SELECT value, n FROM task_counts WHERE facet = 'repository' ORDER BY value")
      .all();
    expect(facet).toEqual(
      expect.arrayContaining([
        { value: 'demo', n: 1 },
        { value: 'naya', n: 1 },
      ]),
    );
    db.close();
  });
});
