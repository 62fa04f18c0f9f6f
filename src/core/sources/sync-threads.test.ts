import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { searchIndexReady } from '../db/task-search';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { registerSourceKind, sourceKind } from './source-kinds';
import { SourceSync, summarize } from './source-sync';
import type { SourcesConfig } from './sources-config';

const tempDir = useTempDir();

/**
 * A home with Claude Code projects (sessions, compacted sessions, a 2.1 session with its
 * sub-agent) and Codex rollouts (a parent and its sub-agent thread): lanes enough for two
 * threads, and sessions that link to one another within a lane.
 */
function home(): SourcesConfig {
  const dir = tempDir();
  const projects = path.join(dir, 'projects');
  for (const [project, names] of [
    [
      '-work-a',
      ['5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'],
    ],
    ['-work-b', ['entire-15b634ab-compacted.jsonl', '624a4a58-compacted.jsonl']],
  ] as const) {
    fs.mkdirSync(path.join(projects, project), { recursive: true });
    for (const name of names) {
      const folder = project === '-work-a' ? 'claude-code' : 'claude-code-compacted';
      fs.copyFileSync(realFixture(folder, name), path.join(projects, project, name));
    }
  }
  const worktree = '-home-dev-acme-parser--claude-worktrees-fix-slug';
  fs.cpSync(realFixture('claude-code-2.1', worktree), path.join(projects, worktree), {
    recursive: true,
  });
  const sessions = path.join(dir, 'codex', 'sessions');
  fs.cpSync(realFixture('codex-subagents'), path.join(sessions, '2026', '11', '21'), {
    recursive: true,
  });
  const source = (id: string, folder: string): SourcesConfig['sources'][number] => ({
    id,
    label: id,
    enabled: true,
    folders: [folder],
    configured: true,
    kind: sourceKind(id)!,
  });
  return {
    watch: false,
    poll: false,
    pollIntervalMs: 1000,
    quietMs: 0,
    file: null,
    sources: [source('claude-code', projects), source('codex', sessions)],
  };
}

/**
 * What a contexts folder holds, without the task ids a sync draws at random: each task by its
 * agent's session (source, session id, type, title) with its parent's, counters and files.
 */
function snapshot(store: ContextStore): string[] {
  const rows = store.db
    .prepare(
      `SELECT t.uuid, t.task_source, t.task_id, t.task_type, t.title, t.total_messages,
              t.compression_count, p.task_id AS parent
         FROM tasks t LEFT JOIN tasks p ON p.uuid = t.parent_uuid`,
    )
    .all() as Record<string, string | number | null>[];
  const names = new Map(
    rows.map((r) => [r.uuid as string, `${r.task_source}:${r.task_id}:${r.title}`]),
  );
  const anonymous = (text: string): string =>
    text.replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      (id) => names.get(id) ?? id,
    );
  return rows
    .map((row) => {
      const dir = path.join(store.root, 'completed', row.uuid as string);
      const files = fs
        .readdirSync(dir)
        .filter((f) => f !== 'metadata.json')
        .sort()
        .map((f) => `${f}\n${anonymous(fs.readFileSync(path.join(dir, f), 'latin1'))}`);
      const { uuid: _uuid, ...fields } = row;
      return JSON.stringify(fields) + '\n' + files.join('\n');
    })
    .sort();
}

/** One first sync of `config` on this thread alone, and one on two threads: both stores. */
async function bothWays(
  config: SourcesConfig,
  check: (run: {
    one: ContextStore;
    two: ContextStore;
    parallel: SourceSync;
    sequential: ReturnType<typeof summarize>;
    shared: ReturnType<typeof summarize>;
  }) => Promise<void>,
): Promise<void> {
  const one = ContextStore.open(path.join(tempDir(), 'one'));
  const two = ContextStore.open(path.join(tempDir(), 'two'));
  try {
    const alone = new SourceSync(one, config);
    alone.threads = 0;
    const sequential = summarize(await alone.syncAll());
    // Whether each row's search entry was left for the end (the insert trigger skipped it).
    two.db.exec(`CREATE TABLE deferred_rows (task INTEGER, deferred INTEGER);
      CREATE TRIGGER deferred_row AFTER INSERT ON tasks BEGIN
        INSERT INTO deferred_rows VALUES (new.rowid, EXISTS (SELECT 1 FROM tasks_search_backfill
          WHERE new.rowid > done AND new.rowid <= upto));
      END;`);
    const parallel = new SourceSync(two, config);
    parallel.threads = 1;
    parallel.minParallelBytes = 0;
    parallel.threadsFirst = true;
    const shared = summarize(await parallel.syncAll());
    await check({ one, two, parallel, sequential, shared });
  } finally {
    one.close();
    two.close();
  }
}

describe('a first sync on more than one thread', () => {
  it('makes the same tasks, links and files as one thread, each file synced once', () =>
    bothWays(home(), async ({ one, two, parallel, sequential, shared }) => {
      // The other thread did its share (a lane at least), the results are the same.
      expect(parallel.lastOnThreads).toBeGreaterThan(0);
      expect(shared).toEqual(sequential);
      expect(sequential.errors).toEqual([]);
      const expected = snapshot(one);
      expect(expected.length).toBeGreaterThanOrEqual(8);
      expect(snapshot(two)).toEqual(expected);
      // Linked across files of a lane: the sub-agents hang under their sessions.
      const children = two.db
        .prepare('SELECT count(*) AS n FROM tasks WHERE parent_uuid IS NOT NULL')
        .get() as { n: number };
      expect(children.n).toBeGreaterThanOrEqual(2);
      // Every row's title and prompt search entry made at the end, once, by either thread's
      // inserts: the other thread's store, opened meanwhile, did not end the deferral.
      expect(
        two.db.prepare('SELECT count(*) AS n, sum(deferred) AS d FROM deferred_rows').get(),
      ).toEqual({ n: expected.length, d: expected.length });
      expect(searchIndexReady(two.db)).toBe(true);
      expect(two.db.prepare('SELECT count(*) AS n FROM tasks_search').get()).toEqual({
        n: expected.length,
      });
      // Exactly once: a second sync finds nothing new, and with nothing to read it needs no
      // other thread (a poll's pass over unchanged files).
      const again = summarize(await parallel.syncAll());
      expect(again.messages).toBe(0);
      expect(parallel.lastOnThreads).toBe(0);
      expect(snapshot(two)).toEqual(expected);
    }));

  it('leaves to its own thread a lane the other thread stops short of (a kind it does not know)', () => {
    // Known to this thread only: registered at run time, after the sync thread loaded its kinds.
    registerSourceKind({ ...sourceKind('claude-code')!, id: 'claude-code-copy' });
    const config = home();
    const copy = config.sources[0]!;
    config.sources = [
      { ...copy, id: 'claude-code-copy', kind: sourceKind('claude-code-copy')! },
      config.sources[1]!,
    ];
    return bothWays(config, async ({ one, two, parallel, sequential, shared }) => {
      expect(shared).toEqual(sequential);
      expect(sequential.errors).toEqual([]);
      expect(snapshot(two)).toEqual(snapshot(one));
      // The largest lane (a Claude Code project) went to the thread first, which gave it back.
      expect(parallel.lastOnThreads).toBeLessThan(sequential.files);
    });
  });
});
