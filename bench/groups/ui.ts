import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow } from '../../src/shared/task-types';
import { ContextStore } from '../../src/core/store/context-store';
import { statusFolder } from '../../src/core/store/contexts-layout';
import { estimateTokens } from '../../src/core/tokens';
import { BUILT_RENDERER } from '../lib/build';
import { loadCorpora, textOfSize } from '../lib/corpus';
import { count, mb, ms } from '../lib/format';
import { median, rng } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';
import { TASK_COUNT, copyOfSharedTaskDb } from './tasks-db';
import { findBrowser, launchChromium } from '../../test/support/chromium';

const TIMELINE_MESSAGES = 200_000;
/** A row of the task table: the grid's rows carry their task's uuid (older builds: a table). */
const TASK_ROW = '[role="grid"] [role="row"][data-uuid], table.task-table tbody tr';
/** A message of the timeline, loaded (placeholders have no seq). */
const MESSAGE_ROW = '.tv-timeline [data-seq]';
const BUDGET_MS = 1000;

type TaskStatusRow = Pick<TaskRow, 'uuid' | 'status'>;

interface Served {
  child: ChildProcess;
  url: string;
  /** Set when the server ended on its own: what it printed. */
  died(): string | undefined;
}

/** `cwb serve` from the built CLI on a free port of 127.0.0.1; resolves with its URL. */
function serve(cli: string, root: string, configFile: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [cli, '--contexts', root, '--config', configFile, 'serve', '--port', '0'],
    { env: { ...process.env, CWB_CONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let death: string | undefined;
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cwb serve printed no URL in 180 s:\n${out}`));
    }, 180_000);
    child.on('exit', (code, signal) => {
      death = `cwb serve exited (${signal ?? code}): ${out.slice(-1000)}`;
      clearTimeout(timer);
      reject(new Error(death));
    });
    child.stdout?.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-4000);
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, url: match[1]!, died: () => death });
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** A task with 200,000 short messages (a long chat-like session), written as the store writes them. */
async function longTask(root: string, repoRoot: string): Promise<string> {
  const { english, code } = loadCorpora(repoRoot);
  const random = rng(200);
  const store = ContextStore.open(root, { recover: false });
  const task = store.createTask({
    title: 'A very long session (200,000 messages)',
    prompt: 'Keep the build green.',
    key: { owner: 'acme', repo: 'workbench', user: 'alice' },
  });
  task.close();
  const file = path.join(task.dir, 'messages.jsonl');
  const current = path.join(task.dir, 'current.jsonl');
  const fd = fs.openSync(file, 'w');
  const cfd = fs.openSync(current, 'w');
  let lines = '';
  let currentLines = '';
  const roles = ['user', 'assistant', 'tool'] as const;
  for (let seq = 1; seq <= TIMELINE_MESSAGES; seq++) {
    const role = roles[seq % 3]!;
    const content = textOfSize(role === 'tool' ? code : english, 80 + random() * 500, random);
    const tokens = estimateTokens(content);
    const record = {
      seq,
      role,
      content,
      timestamp: new Date(Date.parse('2026-01-01T00:00:00Z') + seq * 1000).toISOString(),
      tokens,
      tokens_o200k: tokens,
      ...(role === 'tool' && { tool_name: 'read_file', tool_call_id: `call_${seq - 1}` }),
      ...(role === 'assistant' && {
        tool_calls: [
          {
            id: `call_${seq}`,
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
          },
        ],
      }),
    };
    lines += `${JSON.stringify(record)}\n`;
    const { seq: _seq, timestamp: _t, tokens: _k, tokens_o200k: _o, ...view } = record;
    currentLines += `${JSON.stringify(view)}\n`;
    if (lines.length > 4_000_000) {
      fs.writeSync(fd, lines);
      fs.writeSync(cfd, currentLines);
      lines = '';
      currentLines = '';
    }
  }
  fs.writeSync(fd, lines);
  fs.writeSync(cfd, currentLines);
  fs.closeSync(fd);
  fs.closeSync(cfd);
  fs.rmSync(`${file}.idx`, { force: true });
  // Opening it for writing builds the offset index; stopping it records its statistics.
  const owner = store.openTask(task.uuid);
  await owner.stop();
  store.close();
  return task.uuid;
}

/**
 * The calls the two views make, timed over HTTP from Node: where a page's time goes. Each is
 * the median of `runs` calls after one unmeasured call.
 */
async function apiBreakdown(url: string, uuid: string, runs: number): Promise<Row[]> {
  const origin = new URL(url).origin;
  const token = new URL(url).searchParams.get('token') ?? '';
  const call = async (operation: string, input: unknown): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${origin}/api/${operation}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as { ok: boolean; error?: { message: string } };
    if (!body.ok) throw new Error(`${operation}: ${body.error?.message ?? res.status}`);
    return performance.now() - started;
  };
  const calls: { label: string; operation: string; input: unknown }[] = [
    {
      label: "queryTasks: the first 200 rows, newest first (the table's first call)",
      operation: 'queryTasks',
      input: { sort: 'created_at', order: 'desc', limit: 200, offset: 0 },
    },
    {
      label: 'queryTasks: the facets alone (status counts and value lists; the second call)',
      operation: 'queryTasks',
      input: { sort: 'created_at', order: 'desc', limit: 0, offset: 0, facets: true },
    },
    { label: 'getTask (the long task)', operation: 'getTask', input: { uuid } },
    {
      label: 'readMessages: first window of 200',
      operation: 'readMessages',
      input: { uuid, view: 'history', from: 1, limit: 200 },
    },
    {
      label: 'readMessages: window of 200 at seq 100,000',
      operation: 'readMessages',
      input: { uuid, view: 'history', from: 100_000, limit: 200 },
    },
    {
      label: 'contextUsage (the usage chart of the long task)',
      operation: 'contextUsage',
      input: { uuid },
    },
  ];
  const rows: Row[] = [];
  for (const c of calls) {
    const samples: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const t = await call(c.operation, c.input);
      if (i > 0) samples.push(t);
    }
    rows.push(row(`API over HTTP: ${c.label}`, ms(median(samples))));
  }
  return rows;
}

export const uiGroup: BenchGroup = {
  id: 'ui',
  title: 'The workbench UI in Chromium through `cwb serve`',
  about: `\`cwb serve\` (the built CLI) on a contexts folder with ${count(TASK_COUNT)} tasks (the rows of the tasks.db group, each with its folder so recovery keeps it) plus one task of ${count(TIMELINE_MESSAGES)} messages; Debian's Chromium driven by playwright-core, 1280×800. Each run opens a fresh browser context (cold caches, like opening the workbench) on the URL \`cwb serve\` prints, with its access token, and measures from \`page.goto\` until the first row is in the page: for the task table that covers loading the page and its scripts, the first \`queryTasks\` and rendering; for the timeline (\`#/task/<uuid>/timeline\`), the task's header and the first window of messages. One unmeasured load first keeps Chromium's own start-up out of the figures.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const cli = path.join(path.dirname(ctx.workerFile), 'cli.js');
    const problems: string[] = [];
    if (!fs.existsSync(path.join(ctx.repoRoot, 'src', 'cli', 'commands', 'serve.ts'))) {
      problems.push('src/cli/commands/serve.ts does not exist yet');
    }
    if (!fs.existsSync(BUILT_RENDERER))
      problems.push('the UI is not built (no out/renderer/index.html)');
    try {
      findBrowser();
    } catch (error) {
      problems.push((error as Error).message);
    }
    const tableWhat = `time to first rows of the task table, ${count(TASK_COUNT)} tasks`;
    const timelineWhat = `time to first rows of the timeline, ${count(TIMELINE_MESSAGES)} messages`;
    const goal = `< ${ms(BUDGET_MS)} ("no visible stall" when a view opens)`;
    if (problems.length > 0) {
      for (const what of [tableWhat, timelineWhat]) {
        rows.push(
          row(what, 'not measured yet', '—', '—', goal, {
            kind: 'skipped',
            note: `not measured yet: ${problems.join('; ')}`,
          }),
        );
      }
      return { rows, notes };
    }
    const root = path.join(ctx.tmp, 'contexts');
    await copyOfSharedTaskDb(ctx, root);
    // A folder for every row, so that recovery keeps them all.
    const store = ContextStore.open(root, { recover: false });
    const tasks = store.db.prepare('SELECT uuid, status FROM tasks').all() as TaskStatusRow[];
    store.close();
    for (const t of tasks) fs.mkdirSync(path.join(root, statusFolder(t.status), t.uuid));
    const longUuid = await longTask(root, ctx.repoRoot);
    ctx.log('  100,000 tasks and the 200,000-message task are ready');
    const configFile = path.join(ctx.tmp, 'config.yaml');
    fs.writeFileSync(
      configFile,
      'llm:\n  provider: openai\n  openai:\n    model: gpt-4o\n    base_url: http://127.0.0.1:9/v1\n',
    );
    const startedServe = performance.now();
    const server = await serve(cli, root, configFile);
    const serveMs = performance.now() - startedServe;
    const browser = await launchChromium();
    const errors: string[] = [];
    try {
      const firstRows = async (
        url: string,
        selector: string,
      ): Promise<{ ms: number; loadMs: number; shown: number; calls: string[] }> => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        try {
          const page = await context.newPage();
          page.on('pageerror', (e) => errors.push(e.message));
          // When each API call of the page started and ended: where the wait goes.
          const opened = new Map<object, number>();
          const calls: string[] = [];
          const isApi = (u: string): boolean => u.includes('/api/') && !u.includes('/api/events');
          page.on('request', (r) => {
            if (isApi(r.url())) opened.set(r, performance.now() - started);
          });
          page.on('requestfinished', (r) => {
            const from = opened.get(r);
            if (from === undefined) return;
            const name = new URL(r.url()).pathname.replace('/api/', '');
            calls.push(`${name} ${ms(from)}–${ms(performance.now() - started)}`);
          });
          const started = performance.now();
          // goto resolves at the page's load event: the HTML, the scripts and the styles.
          await page.goto(url);
          const loadMs = performance.now() - started;
          await page.locator(selector).first().waitFor({ timeout: 60_000 });
          const elapsed = performance.now() - started;
          return { ms: elapsed, loadMs, shown: await page.locator(selector).count(), calls };
        } finally {
          await context.close();
        }
      };
      const measure = async (what: string, url: string, selector: string): Promise<void> => {
        const samples: number[] = [];
        const loads: number[] = [];
        let shown = 0;
        let calls: string[] = [];
        for (let i = 0; i <= ctx.runs; i++) {
          const result = await firstRows(url, selector);
          if (server.died()) throw new Error(server.died());
          if (i > 0) {
            samples.push(result.ms);
            loads.push(result.loadMs);
          }
          shown = result.shown;
          calls = result.calls;
        }
        const first = median(samples);
        notes.push(
          `${what}, API calls of the last run (started–finished, from \`page.goto\`): ${calls.join(', ') || 'none seen'}.`,
        );
        rows.push(
          row(
            `${what} (${shown} row${shown === 1 ? '' : 's'} in the page; the page's load event came at ${ms(median(loads))})`,
            ms(first),
            '—',
            '—',
            goal,
            judge(first < BUDGET_MS, `${ms(first)}: ${(first / BUDGET_MS).toFixed(1)}× the budget`),
          ),
        );
        ctx.log(`  ${what}: ${ms(first)}`);
      };
      await measure(tableWhat, server.url, TASK_ROW);
      await measure(timelineWhat, `${server.url}#/task/${longUuid}/timeline`, MESSAGE_ROW);
      await measure(
        `same, opened at message ${count(TIMELINE_MESSAGES / 2)} (\`?seq=\`)`,
        `${server.url}#/task/${longUuid}/timeline?seq=${TIMELINE_MESSAGES / 2}`,
        `.tv-timeline [data-seq="${TIMELINE_MESSAGES / 2}"]`,
      );
      rows.push(...(await apiBreakdown(server.url, longUuid, ctx.runs)));
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      for (const what of [tableWhat, timelineWhat]) {
        if (!rows.some((r) => r.what.startsWith(what))) {
          rows.push(
            row(what, 'not measured', '—', '—', goal, {
              kind: 'skipped',
              note: `the page did not show it: ${message}`,
            }),
          );
        }
      }
    } finally {
      await browser.close();
      await stop(server.child);
    }
    const messagesBytes = fs.statSync(path.join(root, 'paused', longUuid, 'messages.jsonl')).size;
    notes.push(
      `\`cwb serve\` took ${ms(serveMs)} from start to printing its URL on this folder (it opens tasks.db and reconciles ${count(TASK_COUNT + 1)} rows with their folders first). The long task's messages.jsonl is ${mb(messagesBytes)}.`,
      'What the first view waits for: the page and its first script (minified, ~315 KB of which React DOM is ~200 KB; the chart, the tool-call table, compaction, settings, export and zod load later), then one call each — the first page of tasks (the facets follow it), or the first window of messages and the task header (the usage chart fills in when it comes, never before the rows). Those calls start as the script is evaluated, before React renders (src/renderer/src/first-view-calls.ts), in the order the view needs them, since the server answers one at a time. The figures measure the renderer in out/renderer at the time of the run (see "code measured" above); on a loaded machine most of the time is Chromium compiling and running that script and React\'s first render.',
    );
    if (errors.length > 0)
      notes.push(`The page reported errors: ${[...new Set(errors)].slice(0, 3).join('; ')}`);
    return { rows, notes };
  },
};
