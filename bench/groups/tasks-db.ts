import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow, TaskStatus } from '../../src/shared/task-types';
import { ContextStore } from '../../src/core/store/context-store';
import { DATABASE_FILE } from '../../src/core/store/contexts-layout';
import type { TaskQuery } from '../../src/core/db/task-repository';
import { backfillSearchIndex, withSearchIndexDeferred } from '../../src/core/db/task-search';
import { loadCorpora, textOfSize } from '../lib/corpus';
import { count, ms, ratio } from '../lib/format';
import { spawnTs, startTogether } from '../lib/processes';
import { median, pairedRatio, pick, rng } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

export const TASK_COUNT = 100_000;
const WRITERS = 4;
const UPDATES_PER_WRITER = 1000;
const REPEATS = 3;

const OWNERS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell'];
const REPOS = [
  'parser',
  'workbench',
  'api-gateway',
  'billing',
  'web',
  'mobile',
  'infra',
  'docs',
  'search',
  'auth',
  'payments',
  'etl',
  'ml-pipeline',
  'cli',
  'sdk',
];
const USERS = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'niaj',
  'olivia',
  'peggy',
  'rupert',
  'sybil',
  'trent',
  'victor',
  'walter',
  'yuki',
  'haruto',
  'sakura',
  'ren',
  'mei',
  'sota',
];
const MODELS: [string, string, number][] = [
  ['openai', 'gpt-4o', 128_000],
  ['openai', 'gpt-4.1', 1_047_576],
  ['openai', 'gpt-5', 400_000],
  ['openai', 'o4-mini', 200_000],
  ['ollama', 'qwen2.5-coder:32b', 32_768],
  ['ollama', 'llama3.1:70b', 131_072],
  ['lmstudio', 'deepseek-coder-v2', 131_072],
  ['lmstudio', 'codestral-22b', 32_768],
];
const VERBS = [
  'Fix',
  'Refactor',
  'Add',
  'Remove',
  'Speed up',
  'Document',
  'Migrate',
  'Investigate',
  'Upgrade',
  'Test',
];
const THINGS = [
  'flaky parser tests',
  'the request pipeline',
  'retry logic',
  'the login form',
  'CSV export',
  'memory leak in worker',
  'pagination',
  'the cache layer',
  'TypeScript strict mode',
  'dark mode',
  'rate limiting',
  'the billing cron job',
  'OAuth callback',
  'search ranking',
  'startup time',
];

/** 100,000 rows with the spread of a real team's history. */
export function taskRows(repoRoot: string, n = TASK_COUNT): TaskRow[] {
  const { english } = loadCorpora(repoRoot);
  const random = rng(2024);
  const prompts = Array.from({ length: 500 }, () =>
    textOfSize(english, 200 + random() * 1300, random),
  );
  const yearAgo = Date.parse('2025-11-01T00:00:00Z');
  const rows: TaskRow[] = [];
  for (let i = 0; i < n; i++) {
    const s = random();
    const status: TaskStatus =
      s < 0.7 ? 'completed' : s < 0.82 ? 'failed' : s < 0.92 ? 'paused' : 'running';
    const owner = pick(random, OWNERS);
    const repo = pick(random, REPOS);
    const user = pick(random, USERS);
    const [provider, model, window] = pick(random, MODELS);
    const created = yearAgo + Math.floor(random() * 365 * 86_400_000);
    const minutes = Math.floor(1 + random() ** 3 * 600);
    const ended = created + minutes * 60_000;
    const llmCalls = Math.floor(1 + random() ** 2 * 300);
    const input = Math.floor(llmCalls * (2_000 + random() * 60_000));
    const output = Math.floor(llmCalls * (50 + random() * 800));
    const cacheRead = Math.floor(input * random() * 0.6);
    const messages = llmCalls * 2 + Math.floor(random() * 20);
    const done = status === 'completed' || status === 'failed';
    const title = `${pick(random, VERBS)} ${pick(random, THINGS)} (#${1000 + Math.floor(random() * 9000)})`;
    rows.push({
      uuid: uuidFrom(random),
      status,
      title,
      prompt: `${title}. ${pick(random, prompts)}`,
      workdir: `/home/${user}/src/${repo}`,
      parent_uuid: null,
      task_source: pick(random, ['github', 'jira', 'cli', 'slack']),
      owner,
      repo,
      repository: `${owner}/${repo}`,
      task_type: pick(random, ['issue', 'pr', 'bug', 'feature', 'chore']),
      task_id: String(Math.floor(random() * 20_000)),
      user,
      created_at: new Date(created).toISOString(),
      started_at: new Date(created + 2_000).toISOString(),
      updated_at: new Date(
        done ? ended : created + Math.floor(random() * minutes) * 60_000,
      ).toISOString(),
      completed_at: done ? new Date(ended).toISOString() : null,
      process_id: 1000 + Math.floor(random() * 60_000),
      // Running tasks of another host: recovery leaves them alone (their process may be alive).
      hostname:
        status === 'running'
          ? 'ci-runner-7'
          : pick(random, ['laptop-alice', 'ci-runner-3', 'devbox']),
      llm_provider: provider,
      model,
      context_length: window,
      llm_call_count: llmCalls,
      tool_call_count: Math.floor(llmCalls * (0.5 + random() * 2)),
      input_tokens: input - cacheRead,
      output_tokens: output,
      cache_creation_tokens: Math.floor(cacheRead * 0.1),
      cache_read_tokens: cacheRead,
      total_tokens: input + output,
      compression_count: Math.floor(random() ** 3 * 12),
      total_messages: messages,
      total_summaries: Math.floor(random() ** 3 * 12),
      total_tool_calls: Math.floor(llmCalls * 1.3),
      final_token_count: done ? Math.floor(random() * window * 0.9) : null,
      final_message_count: done ? Math.floor(messages * (0.3 + random() * 0.7)) : null,
      error_message:
        status === 'failed'
          ? pick(random, [
              'stopped by the user',
              'task process killed by SIGKILL',
              'OpenAI answered 429: rate limited',
              'stopped after 50 turns (max turns reached)',
            ])
          : null,
      metadata: JSON.stringify({
        labels: [pick(random, ['backend', 'frontend', 'infra', 'docs'])],
        priority: Math.floor(random() * 4),
      }),
      control: null,
    });
  }
  return rows;
}

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)]!;
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Inserts the rows in one write transaction (TaskRepository.write: BEGIN IMMEDIATE) with one
 * prepared INSERT, the fast way to load 100,000 rows.
 */
export function insertAll(store: ContextStore, rows: readonly TaskRow[]): number {
  const columns = Object.keys(rows[0]!).filter((c) => c !== 'repository');
  const insert = store.db.prepare(
    `INSERT INTO tasks (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const started = performance.now();
  // As TaskRepository.insertRows does: the search index is built by the backfill afterwards.
  withSearchIndexDeferred(store.db, () => {
    for (const r of rows) {
      const values = r as unknown as Record<string, unknown>;
      insert.run(Object.fromEntries(columns.map((c) => [c, values[c]])));
    }
  });
  return performance.now() - started;
}

const SAMPLE_ROWS = 5_000;

export interface TaskDbFixture {
  /** A closed tasks.db (no WAL left) holding the rows and their search index. */
  file: string;
  insertMs: number;
  indexMs: number;
  /** The first rows inserted (generating all of them again takes ~2 s). */
  sample: TaskRow[];
}

/**
 * tasks.db with the ${TASK_COUNT} rows of taskRows and their search index, built once per
 * bench run (about a minute on 2 cores); each group works on its own copy.
 */
export function sharedTaskDb(ctx: BenchContext): Promise<TaskDbFixture> {
  return ctx.shared('tasks-db-100k', (dir) => {
    const root = path.join(dir, 'contexts');
    const store = ContextStore.open(root, { recover: false });
    const data = taskRows(ctx.repoRoot);
    const insertMs = insertAll(store, data);
    const indexMs = buildSearchIndex(store);
    // The last connection to close checkpoints the WAL into the file: one file to copy.
    store.close();
    const file = path.join(root, DATABASE_FILE);
    return Promise.resolve({ file, insertMs, indexMs, sample: data.slice(0, SAMPLE_ROWS) });
  });
}

/** A contexts root at `root` whose tasks.db is a copy of the shared one. */
export async function copyOfSharedTaskDb(ctx: BenchContext, root: string): Promise<TaskDbFixture> {
  const fixture = await sharedTaskDb(ctx);
  fs.mkdirSync(root, { recursive: true });
  fs.copyFileSync(fixture.file, path.join(root, DATABASE_FILE));
  ContextStore.open(root, { recover: false }).close(); // the status folders beside it
  return fixture;
}

/** Runs the search index backfill to the end (what opening and listing do in short steps). */
export function buildSearchIndex(store: ContextStore): number {
  const started = performance.now();
  while (!backfillSearchIndex(store.db, 60_000));
  return performance.now() - started;
}

/** The same through TaskRepository.insertRows (one insertRow per row), in one transaction. */
function insertThroughRepository(store: ContextStore, rows: readonly TaskRow[]): number {
  const started = performance.now();
  store.repo.insertRows(rows);
  return performance.now() - started;
}

export const QUERIES: { label: string; q: TaskQuery }[] = [
  { label: 'first page, newest first (the default view)', q: {} },
  { label: 'page 501 (offset 50,000)', q: { offset: 50_000 } },
  { label: 'the last page (offset 99,900)', q: { offset: 99_900 } },
  { label: 'sort by updated_at', q: { sort: 'updated_at' } },
  { label: 'sort by title (asc)', q: { sort: 'title', order: 'asc' } },
  { label: 'sort by repository', q: { sort: 'repository', order: 'asc' } },
  { label: 'sort by model', q: { sort: 'model' } },
  { label: 'sort by total_tokens', q: { sort: 'total_tokens' } },
  { label: 'sort by llm_call_count', q: { sort: 'llm_call_count' } },
  { label: 'filter status = failed', q: { status: ['failed'] } },
  { label: 'filter repo = acme/parser', q: { repo: 'acme/parser' } },
  { label: 'filter user = yuki', q: { user: 'yuki' } },
  { label: 'filter host = devbox', q: { host: 'devbox' } },
  { label: 'sort by host', q: { sort: 'host', order: 'asc' } },
  { label: 'search "flaky" (title or prompt)', q: { search: 'flaky' } },
  { label: 'search with no match', q: { search: 'zzz-no-such-text' } },
  {
    label: 'status + repo + search, sorted by total_tokens',
    q: {
      status: ['completed', 'failed'],
      repo: 'acme/parser',
      search: 'retry',
      sort: 'total_tokens',
    },
  },
];

interface WriterResult {
  done: number;
  busy: number;
  failed: number;
  firstError: string;
  ms: number;
  start: number;
  end: number;
}

async function writers(
  root: string,
  uuidFile: string,
  n: number,
  updates: number,
): Promise<{ ms: number; results: WriterResult[] }> {
  const children = Array.from({ length: n }, (_, i) =>
    spawnTs('bench/children/counter-writer.ts', [root, uuidFile, String(updates), String(i * 101)]),
  );
  const ended = await startTogether(children);
  const results = ended.map((e) => {
    if (e.code !== 0) throw new Error(`writer failed (${e.code}): ${e.stderr.slice(-500)}`);
    return JSON.parse(e.stdout.trim().split('\n').at(-1)!) as WriterResult;
  });
  const span = Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start));
  return { ms: span, results };
}

function llmCallSum(store: ContextStore, uuids: readonly string[]): number {
  const stmt = store.db.prepare('SELECT llm_call_count AS n FROM tasks WHERE uuid = ?');
  return uuids.reduce((s, u) => s + (stmt.get(u) as { n: number }).n, 0);
}

export const tasksDbGroup: BenchGroup = {
  id: 'tasks-db',
  title: 'tasks.db at 100,000 tasks',
  about: `${TASK_COUNT.toLocaleString('en-US')} tasks with varied values (8 owners × 15 repos, 25 users, 8 models, four statuses, a year of dates, 0.2–1.5 KiB prompts) inserted in one write transaction with one prepared INSERT (their search index left to the backfill, as \`TaskRepository.insertRows\` does, then built to the end and timed), and a 5,000-row sample through \`TaskRepository.insertRows\` for comparison. Each query is \`TaskRepository.query\` (what \`cwb tasks\`, the app and \`cwb serve\` call): a page of 100 rows plus the total count for the same filter. Each query runs ${REPEATS} times per run; the figure is the median across runs of each run's median. Concurrent writers are ${WRITERS} real processes (\`bench/children/counter-writer.ts\`) adding to task counters with \`TaskRepository.addStats\` (one \`BEGIN IMMEDIATE\` transaction each, as a task process does after every message), started together; the baseline is one such process alone doing the same number of updates as each of the four.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const root = path.join(ctx.tmp, 'contexts');
    const { insertMs, indexMs, sample } = await copyOfSharedTaskDb(ctx, root);
    const store = ContextStore.open(root, { recover: false });
    // TaskRepository.insertRows on a sample, into a second database, for comparison.
    const sampleStore = ContextStore.open(path.join(ctx.tmp, 'sample'), { recover: false });
    const repoMs = insertThroughRepository(sampleStore, sample);
    sampleStore.close();
    rows.push(
      row(
        `bulk insert of ${count(TASK_COUNT)} tasks: one prepared INSERT in one transaction (baseline: TaskRepository.insertRows, ${count(sample.length)} rows)`,
        `${count((TASK_COUNT / insertMs) * 1000)} rows/s (${ms(insertMs)} in all)`,
        `${count((sample.length / repoMs) * 1000)} rows/s (insertRows)`,
        ratio(TASK_COUNT / insertMs / (sample.length / repoMs)),
      ),
    );
    rows.push(
      row(
        `search index (trigram, title and prompt) of ${count(TASK_COUNT)} tasks built by the backfill, in transactions of 100 rows`,
        `${count((TASK_COUNT / indexMs) * 1000)} rows/s (${ms(indexMs)} in all)`,
        '—',
        '—',
      ),
    );
    ctx.log(`  inserted ${TASK_COUNT} rows in ${ms(insertMs)}, indexed them in ${ms(indexMs)}`);
    for (const query of QUERIES) {
      const perRun: number[] = [];
      let total = 0;
      for (let run = 0; run < ctx.runs; run++) {
        const samples: number[] = [];
        for (let i = 0; i < REPEATS; i++) {
          const started = performance.now();
          const result = store.listTasks({ limit: 100, ...query.q });
          samples.push(performance.now() - started);
          total = result.total;
        }
        perRun.push(median(samples));
      }
      const latency = median(perRun);
      rows.push(
        row(
          `${query.label} (${count(total)} match)`,
          ms(latency),
          '—',
          '—',
          '< 100 ms per page ("no visible stall")',
          judge(latency < 100, `${ms(latency)}: ${(latency / 100).toFixed(1)}× the 100 ms budget`),
        ),
      );
    }
    // Concurrent writers: 4 processes at once vs 1 alone, same updates per process.
    const uuids = sample.slice(0, 2000).map((r) => r.uuid);
    const uuidFile = path.join(ctx.tmp, 'uuids.txt');
    fs.writeFileSync(uuidFile, uuids.join('\n'));
    const four: number[] = [];
    const one: number[] = [];
    let busy = 0;
    let failed = 0;
    let firstError = '';
    let exact = true;
    for (let run = 0; run < ctx.runs; run++) {
      for (const n of run % 2 === 0 ? [WRITERS, 1] : [1, WRITERS]) {
        const before = llmCallSum(store, uuids);
        const r = await writers(root, uuidFile, n, UPDATES_PER_WRITER);
        const after = llmCallSum(store, uuids);
        const done = r.results.reduce((s, x) => s + x.done, 0);
        busy += r.results.reduce((s, x) => s + x.busy, 0);
        failed += r.results.reduce((s, x) => s + x.failed, 0);
        firstError ||= r.results.find((x) => x.firstError)?.firstError ?? '';
        if (after - before !== done || done !== n * UPDATES_PER_WRITER) exact = false;
        (n === 1 ? one : four).push((done / r.ms) * 1000);
      }
    }
    store.close();
    const fourRate = median(four);
    const oneRate = median(one);
    rows.push(
      row(
        `${WRITERS} processes updating counters at once (${count(UPDATES_PER_WRITER)} updates each)`,
        `${count(fourRate)} updates/s in all`,
        `${count(oneRate)} updates/s (1 process)`,
        ratio(pairedRatio(four, one)),
        '0 SQLITE_BUSY, every counter exact',
        judge(
          busy === 0 && failed === 0 && exact,
          `${busy} SQLITE_BUSY, ${failed} other errors${firstError ? ` (${firstError})` : ''}${exact ? '' : ', counters off'}`,
          `0 SQLITE_BUSY in ${count(ctx.runs * (WRITERS + 1) * UPDATES_PER_WRITER)} updates, counters exact`,
        ),
      ),
    );
    notes.push(
      "SQLite has one write lock: four writers take turns, so their total is not four times one writer's. What matters is that none of them ever gets SQLITE_BUSY (every write transaction takes the lock up front and waits up to 30 s) and that no update is lost; the counters of the updated tasks are summed before and after each run and compared with the number of updates the writers reported.",
      'How the pages stay fast (schema v3, docs/storage.md): every sort column has an index ending in rowid, the tie-breaker, so ORDER BY … LIMIT walks it; a deep page picks its row ids from the index first and reads only those rows; a search narrows through a trigram index of title and prompt and LIKE decides on the candidates; the status chips and pickers read counts kept by triggers; the total is not counted when a short last page already tells it. A search for a very common word still counts every match.',
      'insertRows calls insertRow, which prepares its INSERT on every call (like every TaskRepository method: each calls `db.prepare`); the ratio in the bulk-insert row is what preparing once saves.',
    );
    return { rows, notes };
  },
};
