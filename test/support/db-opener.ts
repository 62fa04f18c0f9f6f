/**
 * One of several processes opening the same tasks.db at once (the migration test): opens
 * it as a task process does (migrating it if needed), adds a task, takes its share of the
 * search index backfill until the index is complete, and prints what it saw.
 * Usage: db-opener.ts FILE ID
 */
import { openDatabase } from '../../src/core/db/open-database';
import { TaskRepository } from '../../src/core/db/task-repository';

const [file, id] = process.argv.slice(2) as [string, string];
const db = openDatabase(file);
const repo = new TaskRepository(db);
repo.insert({
  uuid: `opener-${id}`,
  key: { task_source: 'test', owner: '', repo: '', task_type: '', task_id: id, user: '' },
  title: `opened by ${id}`,
});
while (!repo.searchIndexReady());
const version = db.pragma('user_version', { simple: true }) as number;
process.stdout.write(
  `${JSON.stringify({ version, found: repo.query({ search: `opened by ${id}` }).total })}\n`,
);
db.close();
