import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BUILT_RENDERER } from '../lib/build';
import { ms } from '../lib/format';
import { median, percentile } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';
import { findBrowser, launchChromium } from '../../test/support/chromium';

const SESSION = path.join(
  'test',
  'fixtures',
  'real',
  'claude-code',
  '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
);
const SESSION_ID = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
const GOAL_MS = 1000;
const MESSAGE_ROW = '.tv-timeline [data-seq]';

interface Served {
  child: ChildProcess;
  url: string;
  origin: string;
  token: string;
}

/** `cwb serve` (built CLI) watching the Claude Code sessions under `home`; resolves once it watches. */
function serve(cli: string, home: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [cli, '--contexts', path.join(home, 'contexts'), 'serve', '--port', '0'],
    {
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        CWB_CONFIG: '',
        CWB_SOURCES_WATCH: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let ready = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cwb serve did not watch its sources in 180 s:\n${out}`));
    }, 180_000);
    child.on('exit', (code) => reject(new Error(`cwb serve exited with ${code}:\n${out}`)));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=([A-Za-z0-9_-]+)/.exec(out);
      if (match && out.includes('watching them') && !ready) {
        ready = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, url: match[0], origin: match[1]!, token: match[3]! });
      }
    });
  });
}

function userLine(text: string): string {
  return `${JSON.stringify({
    type: 'user',
    uuid: crypto.randomUUID(),
    parentUuid: null,
    isSidechain: false,
    sessionId: SESSION_ID,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: text },
  })}\n`;
}

/** Calls `onEvent` with the arrival time of each tasks-changed event naming `uuid`. */
function listen(served: Served, uuid: string, onEvent: (at: number) => void): () => void {
  const url = new URL('/api/events', served.origin);
  const req = http.request(url, { headers: { Authorization: `Bearer ${served.token}` } }, (res) => {
    let buffer = '';
    res.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of block.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const event = JSON.parse(line.slice(6)) as { type: string; uuids?: string[] };
          if (event.type === 'tasks-changed' && event.uuids?.includes(uuid))
            onEvent(performance.now());
        }
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return () => req.destroy();
}

async function messageCount(served: Served, uuid: string): Promise<number> {
  const res = await fetch(`${served.origin}/api/readMessages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${served.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ uuid, limit: 0 }),
  });
  return ((await res.json()) as { value: { total: number } }).value.total;
}

export const liveSourcesGroup: BenchGroup = {
  id: 'live-sources',
  title: 'Live sources: a new line of a Claude Code session in the open timeline',
  about:
    "`cwb serve` (the built CLI) watches a Claude Code project folder (a real session of 20 lines to start with). Debian's Chromium shows that session's timeline (`#/task/<uuid>/timeline`). Each sample appends one user line to the session file and measures until the open timeline holds it: the watcher's event (chokidar), the incremental sync (from the last offset, into the task's files and tasks.db), the `tasks-changed` push over SSE, the timeline's re-read (at once on the first event, then at most every 300 ms while events keep coming) until the timeline holds the new message (its `data-total`). The same samples also time the SSE event alone, in Node. The baseline is `fs.watch` in the bench process on the same file: how soon any program can know a line was appended.",
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const cli = path.join(path.dirname(ctx.workerFile), 'cli.js');
    const samples = ctx.full ? 100 : 30;
    const what = `append → visible in the open timeline (${samples} lines)`;
    const goal = `< ${ms(GOAL_MS)} (median and p99)`;
    try {
      findBrowser();
      if (!fs.existsSync(BUILT_RENDERER))
        throw new Error('the UI is not built (no out/renderer/index.html)');
    } catch (error) {
      rows.push(
        row(what, '—', '—', '—', goal, { kind: 'skipped', note: (error as Error).message }),
      );
      return { rows, notes };
    }
    const home = path.join(ctx.tmp, 'home');
    const project = path.join(home, '.claude', 'projects', '-work-demo');
    fs.mkdirSync(project, { recursive: true });
    const session = path.join(project, `${SESSION_ID}.jsonl`);
    const lines = fs
      .readFileSync(path.join(ctx.repoRoot, SESSION), 'utf8')
      .split('\n')
      .filter(Boolean);
    fs.writeFileSync(session, `${lines.slice(0, 20).join('\n')}\n`);

    const served = await serve(cli, home);
    ctx.log(`  cwb serve watches ${project}`);
    const browser = await launchChromium();
    try {
      const res = await fetch(`${served.origin}/api/queryTasks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${served.token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const body = (await res.json()) as { value: { rows: { uuid: string; task_type: string }[] } };
      const uuid = body.value.rows.find((r) => r.task_type === '')!.uuid;
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${served.url}#/task/${uuid}/timeline`);
      await page.locator(MESSAGE_ROW).first().waitFor({ timeout: 60_000 });
      ctx.log('  the timeline is open');

      let eventAt = 0;
      const stopListening = listen(served, uuid, (at) => (eventAt ||= at));
      const visible: number[] = [];
      const pushed: number[] = [];
      const watched: number[] = [];
      for (let i = 0; i < samples; i++) {
        const text = `live sample ${i} ${crypto.randomUUID()}`;
        let watchAt = 0;
        const watcher = fs.watch(session, () => (watchAt ||= performance.now()));
        eventAt = 0;
        const total = await messageCount(served, uuid);
        const started = performance.now();
        fs.appendFileSync(session, userLine(text));
        // The timeline holds the new message: its total (the rows are virtualized, so the row
        // itself may lie below the fold).
        await page
          .locator(`.tv-timeline[data-total="${total + 1}"]`)
          .waitFor({ state: 'attached', timeout: 30_000 });
        visible.push(performance.now() - started);
        watcher.close();
        if (eventAt > 0) pushed.push(eventAt - started);
        if (watchAt > 0) watched.push(watchAt - started);
        // Let the timeline settle so each sample starts from a quiet page.
        await new Promise((r) => setTimeout(r, 150));
      }
      stopListening();
      const med = median(visible);
      const p99 = percentile(visible, 99);
      const base = median(watched);
      rows.push(
        row(
          what,
          `median ${ms(med)}, p99 ${ms(p99)}`,
          `${ms(base)} (fs.watch sees the append)`,
          '—',
          goal,
          judge(med < GOAL_MS && p99 < GOAL_MS, `median ${ms(med)}, p99 ${ms(p99)}`),
        ),
        row(
          `append → tasks-changed pushed over SSE (${pushed.length} lines)`,
          `median ${ms(median(pushed))}, p99 ${ms(percentile(pushed, 99))}`,
          `${ms(base)} (fs.watch)`,
        ),
      );
      ctx.log(`  visible: median ${ms(med)}, p99 ${ms(p99)}; pushed: median ${ms(median(pushed))}`);
      notes.push(
        'The time to visible is the watcher, the sync and the push (the SSE row), then the re-read and rendering: the timeline re-reads at once on an isolated event (it waits only while events keep coming, at most every 300 ms).',
        'No ratio: the baseline is a floor (an OS notification), not a competing implementation.',
      );
    } finally {
      await Promise.race([browser.close(), new Promise((r) => setTimeout(r, 10_000))]);
      if (served.child.exitCode === null && served.child.signalCode === null) {
        const exited = new Promise<void>((resolve) => served.child.once('exit', () => resolve()));
        served.child.kill('SIGTERM');
        const timer = setTimeout(() => served.child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
    }
    return { rows, notes };
  },
};
