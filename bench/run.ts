/**
 * `npm run bench [-- --full] [-- --runs N] [-- --only id,id]`: measures the memory and
 * speed claims of DESIGN.md §7 against baselines and writes docs/benchmarks.md.
 *
 * Every figure is the median of N runs (default 3), every comparison a ratio of figures
 * measured side by side in the same run. Everything happens in a temporary folder that is
 * removed at the end; nothing but 127.0.0.1 is contacted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ensureBuilt, snapshotBuild } from './lib/build';
import { REPO_ROOT, removeTree } from './lib/processes';
import { formatSeconds, writeReport, type GroupReport, type RunMeta } from './lib/report';
import type { BenchContext, BenchGroup } from './lib/types';
import { memoryGroup } from './groups/memory';
import { requestFileGroup } from './groups/request-file';
import { appendGroup } from './groups/append';
import { windowGroup } from './groups/window';
import { tasksDbGroup } from './groups/tasks-db';
import { tokensGroup } from './groups/tokens';
import { compactionGroup } from './groups/compaction';
import { compactionQualityGroup } from './groups/compaction-quality';
import { compactionHookGroup } from './groups/compaction-hook';
import { transferGroup } from './groups/transfer';
import { uiGroup } from './groups/ui';
import { liveSourcesGroup } from './groups/live-sources';
import { sourcesSyncGroup } from './groups/sources-sync';
import { fleetGroup, fleetLeaseGroup } from './groups/fleet';
import { searchGroup } from './groups/search';

const GROUPS: BenchGroup[] = [
  memoryGroup,
  requestFileGroup,
  appendGroup,
  windowGroup,
  tasksDbGroup,
  tokensGroup,
  compactionGroup,
  compactionQualityGroup,
  compactionHookGroup,
  transferGroup,
  uiGroup,
  fleetGroup,
  liveSourcesGroup,
  sourcesSyncGroup,
  fleetLeaseGroup,
  searchGroup,
];

const { values } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    out: { type: 'string' },
  },
});

const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 3) {
  process.stderr.write(
    'bench: --runs must be a whole number of at least 3 (figures are medians)\n',
  );
  process.exit(1);
}
const only = values.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((id) => !GROUPS.some((g) => g.id === id)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(
    `bench: unknown group ${unknown.join(', ')} (groups: ${GROUPS.map((g) => g.id).join(', ')})\n`,
  );
  process.exit(1);
}
const chosen = only ? GROUPS.filter((g) => only.includes(g.id)) : GROUPS;
// A partial run does not replace the committed report.
const outFile = path.resolve(
  values.out ??
    (only
      ? path.join(REPO_ROOT, 'bench-results', 'benchmarks.md')
      : path.join(REPO_ROOT, 'docs', 'benchmarks.md')),
);

const started = performance.now();
const log = (message: string): void => {
  const t = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${t} s] ${message}\n`);
};

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-bench-'));
const cleanup = (): void => removeTree(root);
let snapshot: { remove(): void } | undefined;
// Also when the process ends early (an uncaught error, an await that can never finish).
process.once('exit', () => {
  snapshot?.remove();
  cleanup();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}

let workerFile = '';
let build: string | undefined;
const fixtures = new Map<string, Promise<unknown>>();
function context(tmp: string): BenchContext {
  return {
    full: values.full,
    runs,
    tmp,
    repoRoot: REPO_ROOT,
    workerFile,
    log,
    freeBytes: () => {
      const s = fs.statfsSync(root);
      return s.bavail * s.bsize;
    },
    shared<T>(key: string, build: (dir: string) => Promise<T>): Promise<T> {
      let fixture = fixtures.get(key) as Promise<T> | undefined;
      if (!fixture) {
        const dir = path.join(root, 'shared', key);
        fs.mkdirSync(dir, { recursive: true });
        log(`building shared fixture ${key}`);
        fixture = build(dir);
        fixtures.set(key, fixture);
      }
      return fixture;
    },
  };
}

function versions(): { sqlite: string; betterSqlite3: string } {
  const db = new Database(':memory:');
  const { v } = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
  db.close();
  const require = createRequire(import.meta.url);
  const pkg = require('better-sqlite3/package.json') as { version: string };
  return { sqlite: v, betterSqlite3: pkg.version };
}

/**
 * A group that stalls fails instead of hanging the bench; the timer also keeps the process
 * alive while a group waits on something that holds no handle of its own (a child's pipe).
 */
const groupLimitMs = (values.full ? 180 : 30) * 60_000;
function withTimeLimit<T>(work: Promise<T>, limitMs: number, id: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${id} did not finish within ${limitMs / 60_000} minutes`)),
      limitMs,
    );
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

const reports: GroupReport[] = [];
const loadBefore = os.loadavg();
try {
  build = ensureBuilt();
  log(build);
  const built = snapshotBuild();
  snapshot = built;
  workerFile = built.worker;
  for (const group of chosen) {
    const tmp = path.join(root, group.id);
    fs.mkdirSync(tmp, { recursive: true });
    log(`${group.id}: ${group.title}`);
    const groupStarted = performance.now();
    let report: GroupReport;
    try {
      const result = await withTimeLimit(group.run(context(tmp)), groupLimitMs, group.id);
      report = { ...result, id: group.id, title: group.title, about: group.about, seconds: 0 };
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${group.id} failed: ${message}`);
      report = {
        id: group.id,
        title: group.title,
        about: group.about,
        rows: [],
        notes: [],
        seconds: 0,
        error: err instanceof Error ? err.message : String(err),
      };
    }
    report.seconds = (performance.now() - groupStarted) / 1000;
    removeTree(tmp);
    log(`${group.id} done in ${formatSeconds(report.seconds)}`);
    reports.push(report);
  }
} finally {
  snapshot?.remove();
  cleanup();
}

const cpus = os.cpus();
const meta: RunMeta = {
  date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  mode: values.full ? 'full' : 'default',
  runs,
  cpuModel: cpus[0]?.model.trim() ?? 'unknown',
  cores: cpus.length,
  memoryBytes: os.totalmem(),
  loadBefore,
  loadAfter: os.loadavg(),
  node: process.version,
  ...versions(),
  platform: `${os.type()} ${os.release()} (${os.arch()})`,
  totalSeconds: (performance.now() - started) / 1000,
  command: `npm run bench${values.full ? ' -- --full' : ''}`,
  build: build ?? 'unknown (the build check did not finish)',
};
fs.mkdirSync(path.dirname(outFile), { recursive: true });
writeReport(outFile, meta, reports);
log(`wrote ${path.relative(process.cwd(), outFile)} (total ${formatSeconds(meta.totalSeconds)})`);
if (reports.some((r) => r.error)) process.exitCode = 1;
