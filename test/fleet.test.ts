import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgTaskRepository } from '../src/core/db/pg-task-repository';
import { ContextStore } from '../src/core/store/context-store';
import { startPostgres, type PostgresCluster } from './support/postgres';
import { spawnCwb, spawnTs, waitForExit } from './support/run-ts';
import { startScriptedLlm } from './support/scripted-llm-server';
import { makeTaskEnv } from './support/task-env';
import { useTempDir } from './support/temp-dir';

/** Fleet mode (docs/fleet.md): several hosts, one PostgreSQL task index, on a real server. */
const tempDir = useTempDir();
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe('hosts sharing a PostgreSQL task index', () => {
  it('2 hosts × 2 writer processes at once: every counter exact, every host lists every task', async () => {
    const index = await cluster.createDatabase();
    const HOSTS = 2;
    const WRITERS = 2;
    const TASKS = 3;
    const UPDATES = 30;
    const roots = Array.from({ length: HOSTS }, (_, h) => path.join(tempDir(), `host${h}`));
    const children = roots.flatMap((root, h) =>
      Array.from({ length: WRITERS }, (_, w) =>
        spawnTs(
          'test/support/concurrent-writer.ts',
          [root, `${h}-${w}`, String(TASKS), String(UPDATES)],
          { CWB_INDEX_URL: index, CWB_HOST: `host${h}` },
        ),
      ),
    );
    const results = await Promise.all(children.map(waitForExit));
    for (const r of results) expect(r.stderr).toBe('');
    for (const r of results) expect(r.code).toBe(0);

    for (const [h, root] of roots.entries()) {
      const store = ContextStore.open(root, { index, host: `host${h}` });
      const { rows, total } = store.listTasks({ limit: 1000 });
      expect(total).toBe(HOSTS * WRITERS * TASKS);
      for (const row of rows) {
        expect(row).toMatchObject({
          status: 'completed',
          total_messages: UPDATES,
          llm_call_count: UPDATES,
          tool_call_count: UPDATES,
          input_tokens: 3 * UPDATES,
          total_tokens: 5 * UPDATES,
        });
      }
      // Recovery on this host left the other hosts' rows alone.
      expect(store.recovery?.rowsWithoutFolder).toEqual([]);
      const own = rows.filter((r) => (r as { host?: string }).host === `host${h}`);
      expect(own).toHaveLength(WRITERS * TASKS);
      for (const row of own) {
        expect(fs.existsSync(path.join(root, 'completed', row.uuid, 'final_summary.txt'))).toBe(
          true,
        );
      }
      store.close();
    }
  }, 240_000);

  it("opens another host's task from its folder, names the host when it cannot, and never writes it", async () => {
    const index = await cluster.createDatabase();
    const rootA = path.join(tempDir(), 'a');
    const rootB = path.join(tempDir(), 'b');
    const a = ContextStore.open(rootA, { index, host: 'alpha' });
    const task = a.createTask({ title: 'on alpha', prompt: 'p' });
    task.addMessage({ role: 'user', content: 'hello from alpha' });
    await task.stop();
    a.close();

    const b = ContextStore.open(rootB, { index, host: 'beta' });
    expect(b.listTasks().rows.map((r) => r.title)).toEqual(['on alpha']);
    // Reachable (the same path from here): it opens as usual.
    expect(b.readTask(task.uuid).dir).toBe(path.join(rootA, 'paused', task.uuid));
    // Only alpha writes alpha's tasks.
    expect(() => b.resumeTask(task.uuid)).toThrow(/belongs to host alpha/);
    expect(() => b.openForMaintenance(task.uuid)).toThrow(/belongs to host alpha/);
    // Unreachable: the error says which host holds it.
    fs.renameSync(rootA, `${rootA}-away`);
    expect(() => b.readTask(task.uuid)).toThrow(
      /task .* is held by host alpha in .*, which this host \(beta\) cannot reach/,
    );
    fs.renameSync(`${rootA}-away`, rootA);
    b.close();
  });

  it("marks a dead host's running tasks interrupted by its lease, and the host resumes them", async () => {
    const index = await cluster.createDatabase();
    const rootA = path.join(tempDir(), 'a');
    const a = ContextStore.open(rootA, { index, host: 'alpha' });
    const task = a.createTask({ title: 'long job' });
    task.addMessage({ role: 'user', content: 'step 1' });
    const uuid = task.uuid;
    // alpha dies without a word: its process and lease simply stop.
    a.close();

    const b = ContextStore.open(path.join(tempDir(), 'b'), { index, host: 'beta' });
    expect(b.interruptedElsewhere).toEqual([]); // alpha's lease still runs
    expect(b.requireTask(uuid).status).toBe('running');
    b.close();

    await sql(
      index,
      "UPDATE folders SET lease_expires = now() - interval '1 second' WHERE host = 'alpha'",
    );
    const c = ContextStore.open(path.join(tempDir(), 'c'), { index, host: 'gamma' });
    expect(c.interruptedElsewhere).toEqual([{ uuid, host: 'alpha' }]);
    expect(c.requireTask(uuid)).toMatchObject({ status: 'failed' });
    expect(c.requireTask(uuid).error_message).toMatch(
      /interrupted: host alpha stopped renewing its lease/,
    );
    c.close();

    // alpha comes back: its recovery moves the folder to match, and the task resumes.
    const back = ContextStore.open(rootA, { index, host: 'alpha' });
    expect(back.recovery?.moved).toEqual([{ uuid, from: 'running', to: 'completed' }]);
    const resumed = back.resumeTask(uuid);
    resumed.addMessage({ role: 'assistant', content: 'step 2' });
    expect(back.requireTask(uuid)).toMatchObject({ status: 'running' });
    // Nothing lost: both messages are in the task's file (the counters are written in
    // batches, so a killed process's last ones are not in the row).
    const file = path.join(back.taskPath(back.requireTask(uuid)), 'messages.jsonl');
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    back.close();
  });
});

describe('a PostgreSQL task index that is wrong or away', () => {
  it('rejects a URL that is not PostgreSQL, naming it', () => {
    expect(() => ContextStore.open(tempDir(), { index: 'mysql://u@h/db' })).toThrow(
      /index: expected a PostgreSQL URL like postgres:\/\/user@host\/db .*mysql:\/\/u@h\/db/,
    );
  });

  it('says the server is not running, naming the index without its password', () => {
    const url = `postgres://cwb:secret@127.0.0.1:1/none`;
    let message = '';
    try {
      new PgTaskRepository(url);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(
      /PostgreSQL index postgres:\/\/cwb:\*\*\*@127\.0\.0\.1:1\/none: .*ECONNREFUSED.*is the server running/,
    );
    expect(message).not.toContain('secret');
  });

  it('names a database that does not exist', () => {
    const url = cluster.url.replace(/\/postgres$/, '/nope');
    expect(() => new PgTaskRepository(url)).toThrow(/database "nope" does not exist/);
  });

  it('refuses a schema from a newer version', async () => {
    const url = await cluster.createDatabase();
    new PgTaskRepository(url).close();
    await sql(url, 'UPDATE cwb_schema SET version = 99');
    expect(() => new PgTaskRepository(url)).toThrow(
      /schema version 99 is newer than this version of cwb understands \(\d+\); upgrade cwb/,
    );
  });

  it('says a read-only role may not write, and keeps reading', async () => {
    const url = await cluster.createDatabase();
    const owner = new PgTaskRepository(url, { host: 'h' });
    owner.insert({
      uuid: 't1',
      key: { task_source: '', owner: '', repo: '', task_type: '', task_id: '', user: '' },
    });
    owner.close();
    const db = new URL(url).pathname.slice(1);
    const readerUrl = await cluster.roleUrl(db, 'reader');
    await sql(url, 'GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader');
    const reader = new PgTaskRepository(readerUrl, { host: 'h' });
    expect(reader.get('t1')?.uuid).toBe('t1');
    expect(() => reader.addStats('t1', { messages: 1 })).toThrow(
      /permission denied for table tasks \(the role may not write here: a read-only role/,
    );
    reader.close();
  });

  it('a task whose database goes away mid-run waits with its files kept, and goes on when it is back', async () => {
    const own = await startPostgres();
    const llm = await startScriptedLlm({
      flavor: 'openai',
      requireKey: 'sk-fleet-outage-1234',
      models: ['gpt-4o'],
      script: (_request, i) => {
        if (i === 0) {
          // The database goes away while the model answers, and comes back 3 s later.
          own.halt();
          setTimeout(() => own.restart(), 3000);
          return {
            tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
            usage: { prompt_tokens: 50, completion_tokens: 5 },
          };
        }
        return { content: 'beta is on line 2', usage: { prompt_tokens: 80, completion_tokens: 6 } };
      },
    });
    try {
      const index = await own.createDatabase();
      const env = makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
      const run = await waitForExit(
        spawnCwb(
          ['--contexts', env.root, '--config', env.configFile, 'run', '--prompt', 'Where is beta?'],
          { OPENAI_API_KEY: 'sk-fleet-outage-1234', CWB_INDEX_URL: index, CWB_HOST: 'solo' },
        ),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const uuid = run.stdout.trim().split('\n')[0]!;
      const store = ContextStore.open(env.root, { index, host: 'solo' });
      const row = store.requireTask(uuid);
      const lines = fs
        .readFileSync(path.join(env.root, 'completed', uuid, 'messages.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean);
      expect(row).toMatchObject({
        status: 'completed',
        llm_call_count: 2,
        tool_call_count: 1,
        input_tokens: 130,
        output_tokens: 11,
        total_messages: lines.length,
      });
      expect(lines.length).toBeGreaterThanOrEqual(4);
      store.close();
    } finally {
      await llm.close();
      own.stop();
    }
  });

  it('reports a database that goes away mid-run as unreachable, and works again when it is back', async () => {
    const own = await startPostgres();
    try {
      const url = await own.createDatabase();
      const index = new PgTaskRepository(url, { host: 'h', connectTimeoutMs: 2000 });
      index.insert({
        uuid: 't1',
        key: { task_source: '', owner: '', repo: '', task_type: '', task_id: '', user: '' },
      });
      await sql(
        own.url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${new URL(url).pathname.slice(1)}'`,
      );
      // The pool's connection was cut: the next call says so (or reconnects transparently).
      let first: Error | undefined;
      try {
        index.addStats('t1', { messages: 1 });
      } catch (err) {
        first = err as Error;
      }
      if (first) expect(first.message).toMatch(/PostgreSQL index .*(terminat|Connection)/i);
      index.addStats('t1', { messages: 1 });
      expect(index.require('t1').total_messages).toBe(first ? 1 : 2);
      own.stop();
      expect(() => index.addStats('t1', { messages: 1 })).toThrow(
        /PostgreSQL index postgres:\/\/.*(ECONNREFUSED|terminat|Connection)/i,
      );
      index.close();
    } finally {
      own.stop();
    }
  });
});
