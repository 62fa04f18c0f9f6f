import fs from 'node:fs';
import path from 'node:path';
import { PgTaskRepository } from '../../src/core/db/pg-task-repository';
import type { TaskIndex } from '../../src/core/db/task-index';
import { ContextStore } from '../../src/core/store/context-store';
import { startPostgres } from '../../test/support/postgres';
import { count, ms } from '../lib/format';
import { spawnTs, startTogether, waitForExit } from '../lib/processes';
import { median } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';
import { QUERIES, TASK_COUNT, copyOfSharedTaskDb, taskRows } from './tasks-db';

const HOSTS = 8;
const WRITERS_PER_HOST = 4;
const UPDATES = 200;
const REPEATS = 3;

interface WriterResult {
  done: number;
  busy: number;
  failed: number;
  firstError: string;
}

/**
 * HOSTS × WRITERS_PER_HOST counter writers (bench/children/counter-writer.ts), each a real
 * process; on PostgreSQL each host has its own name and contexts folder. All start on one
 * signal; returns their reports.
 */
async function runWriters(
  ctx: BenchContext,
  uuidFile: string,
  hostEnv: (h: number) => { root: string; env: NodeJS.ProcessEnv },
): Promise<WriterResult[]> {
  const children = Array.from({ length: HOSTS * WRITERS_PER_HOST }, (_, i) => {
    const { root, env } = hostEnv(Math.floor(i / WRITERS_PER_HOST));
    return spawnTs(
      'bench/children/counter-writer.ts',
      [root, uuidFile, String(UPDATES), String(i * 37)],
      env,
    );
  });
  const ended = await startTogether(children, () => ctx.log(`  ${children.length} writers ready`));
  return ended.map((e) => {
    if (e.code !== 0) throw new Error(`writer failed (${e.code}): ${e.stderr.slice(-500)}`);
    return JSON.parse(e.stdout.trim().split('\n').at(-1)!) as WriterResult;
  });
}

function llmCalls(index: TaskIndex, uuids: readonly string[]): number {
  return uuids.reduce((s, u) => s + index.require(u).llm_call_count, 0);
}

function lostUpdates(label: string, before: number, after: number, results: WriterResult[]): Row {
  const done = results.reduce((s, r) => s + r.done, 0);
  const errors = results.reduce((s, r) => s + r.busy + r.failed, 0);
  const lost = done - (after - before);
  const firstError = results.find((r) => r.firstError)?.firstError ?? '';
  return row(
    `${label}: ${HOSTS * WRITERS_PER_HOST} processes updating counters at once (${UPDATES} updates each)`,
    `${count(done)} updates, ${lost} lost, ${errors} errors`,
    '—',
    '—',
    '0 lost updates, 0 errors',
    judge(
      lost === 0 && errors === 0 && done === HOSTS * WRITERS_PER_HOST * UPDATES,
      `${lost} lost, ${errors} errors${firstError ? ` (${firstError})` : ''}`,
    ),
  );
}

/** Nanoseconds these processes have run on a CPU (Linux's schedstat; 0 where unreadable). */
function cpuNs(pids: readonly number[]): number {
  let ns = 0;
  for (const pid of pids) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // Not Linux, or not ours to read: the figure leaves it out.
    }
  }
  return ns;
}

/** This process's CPU time in ms (every thread: the PostgreSQL client's worker too). */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Median over runs of each run's median of REPEATS timings of `fn`: wall time, and the
 * CPU time it took (this process plus `servers`, the PostgreSQL backends serving it). On
 * a loaded machine the wall time is mostly waiting for a CPU; the CPU time is not.
 */
function timed(
  runs: number,
  fn: () => void,
  servers: () => readonly number[] = () => [],
): { wall: number; cpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const pids = servers();
      const [cpu0, server0] = [ownCpuMs(), cpuNs(pids)];
      const started = performance.now();
      fn();
      walls.push(performance.now() - started);
      cpus.push(ownCpuMs() - cpu0 + (cpuNs(pids) - server0) / 1e6);
    }
    wall.push(median(walls));
    cpu.push(median(cpus));
  }
  return { wall: median(wall), cpu: median(cpu) };
}

export const fleetGroup: BenchGroup = {
  id: 'fleet',
  title: 'Fleet: the task index on PostgreSQL',
  about: `A throwaway PostgreSQL 15 cluster (test/support/postgres.ts, fsync off) on this machine. Lost updates: ${HOSTS} simulated hosts (distinct CWB_HOST names and contexts folders) × ${WRITERS_PER_HOST} real writer processes each (\`bench/children/counter-writer.ts\`, \`addStats\` after every message as a task process does), all started on one signal; the updated tasks' counters are summed before and after and compared with the updates the writers reported. The same ${HOSTS * WRITERS_PER_HOST} processes on one SQLite tasks.db (one host) for comparison. Listing: the ${TASK_COUNT.toLocaleString('en-US')} tasks of the tasks-db group in both indexes, each query a page of 100 rows plus the total (\`TaskIndex.query\`), median over runs of the median of ${REPEATS}.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase('fleet_bench');
      const data = taskRows(ctx.repoRoot);
      // Each task goes in as a row of the host that ran it (its hostname), so the fleet
      // index holds the hosts tasks.db names: a host filter matches the same tasks on both.
      let started = performance.now();
      for (const host of new Set(data.map((r) => r.hostname!))) {
        const hostIndex = new PgTaskRepository(url, { host });
        // Ends with VACUUM (ANALYZE), as after any bulk load.
        hostIndex.insertRows(data.filter((r) => r.hostname === host));
        hostIndex.close();
      }
      const pgInsertMs = performance.now() - started;
      const pgIndex = new PgTaskRepository(url, { host: 'bench' });
      ctx.log(`  PostgreSQL: ${TASK_COUNT} rows in ${ms(pgInsertMs)}`);

      // Lost updates, PostgreSQL: 8 hosts.
      const uuids = data.slice(0, 500).map((r) => r.uuid);
      const uuidFile = path.join(ctx.tmp, 'uuids.txt');
      fs.writeFileSync(uuidFile, uuids.join('\n'));
      let before = llmCalls(pgIndex, uuids);
      started = performance.now();
      const pgResults = await runWriters(ctx, uuidFile, (h) => ({
        root: path.join(ctx.tmp, `host-${h}`),
        env: { CWB_INDEX_URL: url, CWB_HOST: `host-${h}` },
      }));
      ctx.log(`  PostgreSQL writers done in ${ms(performance.now() - started)}`);
      rows.push(
        lostUpdates(`PostgreSQL, ${HOSTS} hosts`, before, llmCalls(pgIndex, uuids), pgResults),
      );

      // SQLite: the same rows, the same processes on one host.
      const root = path.join(ctx.tmp, 'sqlite');
      await copyOfSharedTaskDb(ctx, root);
      const sqlite = ContextStore.open(root, { recover: false, index: '' });
      before = llmCalls(sqlite.repo, uuids);
      started = performance.now();
      const sqliteResults = await runWriters(ctx, uuidFile, () => ({
        root,
        env: { CWB_INDEX_URL: '' },
      }));
      ctx.log(`  SQLite writers done in ${ms(performance.now() - started)}`);
      rows.push(lostUpdates('SQLite, 1 host', before, llmCalls(sqlite.repo, uuids), sqliteResults));

      // Listing: the same queries on both, side by side.
      const backends = (): number[] =>
        pgIndex
          .sql<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = 'cwb'`,
          )
          .map((r) => r.pid);
      const listed = (what: string, goal: string, pgFn: () => void, sqliteFn: () => void): void => {
        pgFn(); // the pool's connections open on first use
        const pids = backends();
        const pg = timed(ctx.runs, pgFn, () => pids);
        const lite = timed(ctx.runs, sqliteFn);
        cpuRows.push(`| ${what} | ${ms(pg.cpu)} | ${ms(lite.cpu)} |`);
        rows.push(
          row(
            what,
            `${ms(pg.wall)} (PostgreSQL)`,
            `${ms(lite.wall)} (SQLite)`,
            (pg.wall / lite.wall).toFixed(2),
            goal,
            judge(
              pg.wall < 100,
              `${ms(pg.wall)}: ${(pg.wall / 100).toFixed(1)}× the 100 ms budget`,
            ),
          ),
        );
      };
      const cpuRows: string[] = [];
      for (const query of QUERIES) {
        const total = pgIndex.query({ limit: 100, ...query.q }).total;
        listed(
          `${query.label} (${count(total)} match)`,
          '< 100 ms per page',
          () => pgIndex.query({ limit: 100, ...query.q }),
          () => sqlite.repo.query({ limit: 100, ...query.q }),
        );
      }
      const facets = (index: TaskIndex) => () => {
        index.statusCounts({});
        index.facetValues();
      };
      listed(
        'filter chips and pickers (status counts; repositories, users, models, agents, hosts)',
        '< 100 ms',
        facets(pgIndex),
        facets(sqlite.repo),
      );
      sqlite.close();
      pgIndex.close();
      notes.push(
        `CPU time of the same queries (median as above): on PostgreSQL the server's backends (Linux schedstat of the pool's connections) plus this process (the client and its worker thread), on SQLite this process. A loaded machine stretches the wall times above by the wait for a CPU; these stay put.\n\n| query | PostgreSQL CPU | SQLite CPU |\n| --- | --- | --- |\n${cpuRows.join('\n')}\n`,
      );
      notes.push(
        `Loading ${count(TASK_COUNT)} rows into PostgreSQL through \`insertRows\`, one call per host (the rows' hostnames: ${new Set(data.map((r) => r.hostname)).size} hosts; multi-row INSERTs of 500 in one transaction, B-tree indexes and task_search's trigram indexes maintained as rows go in) took ${ms(pgInsertMs)}.`,
        'PostgreSQL answers every call through a worker thread the caller blocks on (src/core/db/pg-sync-client.ts); the round trip is part of every figure. The listing runs minutes after the writers, as a fleet lists while its tasks write: their counter updates leave dead row versions (autovacuum visits tasks after 2 % of its rows changed, pg-schema.ts v4) but no longer touch the search indexes (task_search, v4). The filter chips and pickers read task_counts: delta rows that triggers only ever insert, summed at read time and folded now and then. A deep page picks its seqs from the sort index alone and reads only the 100 rows it shows; past the middle of a list whose length the kept counts give, it walks in from the end. A search collects its matches once (every trigram candidate read to decide ILIKE) and takes the exact total and the page from them.',
      );
    } finally {
      cluster.stop();
    }
    return { rows, notes };
  },
};

const LEASE_MS = 3000;
const HOST_MESSAGES = 40;

/**
 * A host killed mid-task (SIGKILL of a real process holding a running task): how long until
 * another host sees the task interrupted, against the lease; then the host comes back and
 * resumes it, every message there.
 */
export const fleetLeaseGroup: BenchGroup = {
  id: 'fleet-lease',
  title: 'Fleet: a host killed mid-task',
  about: `A throwaway PostgreSQL 15 cluster. Host alpha is a real process (\`bench/children/fleet-host.ts\`) with a running task of ${HOST_MESSAGES} messages and a lease of ${LEASE_MS / 1000} s (the default is 60 s; renewals every lease/3, as in the product). It is killed with SIGKILL; host beta (this process, a ContextStore with the same lease, whose heartbeat checks other hosts' leases every lease/3) polls the task's row every 20 ms until it shows interrupted. Then alpha's contexts folder is opened again as alpha, the task resumed and its messages counted. Median over runs.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const cluster = await startPostgres();
    try {
      const seen: number[] = [];
      let lost = 0;
      let resumed = 0;
      for (let run = 0; run < ctx.runs; run++) {
        const index = await cluster.createDatabase(`lease_${run}`);
        const rootA = path.join(ctx.tmp, `lease-${run}-alpha`);
        const alpha = spawnTs(
          'bench/children/fleet-host.ts',
          [rootA, 'alpha', String(LEASE_MS), String(HOST_MESSAGES)],
          { CWB_INDEX_URL: index },
        );
        const uuid = await new Promise<string>((resolve, reject) => {
          let out = '';
          alpha.stdout?.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /ready (\S+)\n/.exec(out);
            if (m) resolve(m[1]!);
          });
          alpha.once('exit', (code) => reject(new Error(`fleet host exited with ${code}`)));
        });
        const beta = ContextStore.open(path.join(ctx.tmp, `lease-${run}-beta`), {
          index,
          host: 'beta',
          leaseMs: LEASE_MS,
        });
        const exited = waitForExit(alpha);
        const killedAt = performance.now();
        alpha.kill('SIGKILL');
        await exited.catch(() => undefined);
        while (beta.requireTask(uuid).status === 'running') {
          await new Promise((r) => setTimeout(r, 20));
        }
        seen.push(performance.now() - killedAt);
        beta.close();
        const back = ContextStore.open(rootA, { index, host: 'alpha', leaseMs: LEASE_MS });
        const task = back.resumeTask(uuid);
        const row = back.requireTask(uuid);
        if (row.status === 'running') resumed++;
        // Counted in the task's file: the row's counters are written in batches, so a
        // killed process's last ones never reach it.
        const file = path.join(back.taskPath(row), 'messages.jsonl');
        lost += HOST_MESSAGES - fs.readFileSync(file, 'utf8').trim().split('\n').length;
        task.addMessage({ role: 'user', content: 'go on' });
        back.close();
      }
      const detect = median(seen);
      const bound = LEASE_MS + LEASE_MS / 3;
      rows.push(
        row(
          `a host killed mid-task: until another host shows its task interrupted (lease ${LEASE_MS / 1000} s)`,
          ms(detect),
          `${ms(LEASE_MS)} (the lease)`,
          (detect / LEASE_MS).toFixed(2),
          'within the lease (+ one check, lease/3)',
          judge(detect <= bound, `${ms(detect)}: more than the lease and one check (${ms(bound)})`),
        ),
        row(
          `the host comes back: its tasks resume there (${ctx.runs} runs × ${HOST_MESSAGES} messages)`,
          `${resumed}/${ctx.runs} resumed, ${lost} messages lost`,
          '—',
          '—',
          'every task resumes, nothing lost',
          judge(resumed === ctx.runs && lost === 0, `${resumed} resumed, ${lost} lost`),
        ),
      );
    } finally {
      cluster.stop();
    }
    return {
      rows,
      notes: [
        'The time counts from the SIGKILL: the lease the dead host renewed last still runs out first (up to a full lease after the kill), then the next check of a living host marks the task. With the default lease of 60 s the same holds in proportion.',
      ],
    };
  },
};
