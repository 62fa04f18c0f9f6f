import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { SyncStateRepository } from '../src/core/sources/sync-state';
import { startPostgres, type PostgresCluster } from './support/postgres';
import { BUILT_CLI, REPO_ROOT, waitForExit } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir('cwb-soak-');

const CLAUDE_FILES = 8;
const CODEX_FILES = 8;
const GEMINI_FILES = 4;
/** Lines (messages, for Gemini CLI's JSON) per file: 8 × 550 + 8 × 550 + 4 × 300 = 10,000. */
const LINES = { 'claude-code': 550, codex: 550, 'gemini-cli': 300 } as const;
const LIFETIMES = 12; // 10 restarts after a clean stop, 2 after SIGKILL
const KILLED = new Set([4, 9]);
const BURSTS_PER_LIFETIME = 6;

interface SessionFile {
  file: string;
  kind: keyof typeof LINES;
  written: number;
  /** The second half of a line whose first half is already in the file. */
  rest: string;
}

function claudeLine(f: number, i: number): string {
  const ts = new Date(Date.UTC(2026, 10, 25, 12, 0, 0, i)).toISOString();
  const base = {
    uuid: `u-${f}-${i}`,
    sessionId: `sess-${f}`,
    timestamp: ts,
    cwd: '/w',
    isSidechain: false,
  };
  // Every 4th line an assistant response (its own message id), the others user turns.
  return JSON.stringify(
    i % 4 === 3
      ? {
          ...base,
          type: 'assistant',
          message: {
            id: `msg-${f}-${i}`,
            role: 'assistant',
            model: 'claude-x',
            content: [{ type: 'text', text: textOf(f, i) }],
          },
        }
      : { ...base, type: 'user', message: { role: 'user', content: textOf(f, i) } },
  );
}

function codexLine(f: number, i: number): string {
  const ts = new Date(Date.UTC(2026, 10, 25, 12, 0, 0, i)).toISOString();
  const role = i % 4 === 3 ? 'assistant' : 'user';
  const part = role === 'user' ? 'input_text' : 'output_text';
  return JSON.stringify({
    timestamp: ts,
    type: 'response_item',
    payload: { type: 'message', role, content: [{ type: part, text: textOf(f, i) }] },
  });
}

/** One message of a Gemini CLI chat file (rewritten whole, in place, as the CLI saves). */
function geminiMessage(f: number, i: number): Record<string, unknown> {
  return {
    id: `g-${f}-${i}`,
    timestamp: new Date(Date.UTC(2026, 10, 25, 12, 0, 0, i)).toISOString(),
    type: i % 4 === 3 ? 'gemini' : 'user',
    content: textOf(f, i),
    ...(i % 4 === 3 && { model: 'gemini-x' }),
  };
}

function geminiDocument(f: number, count: number): string {
  return JSON.stringify(
    {
      sessionId: `gemini-${f}`,
      projectHash: 'soak',
      startTime: '2026-11-25T12:00:00.000Z',
      lastUpdated: new Date(Date.UTC(2026, 10, 25, 12, 0, 0, count)).toISOString(),
      messages: Array.from({ length: count }, (_, i) => geminiMessage(f, i)),
    },
    null,
    2,
  );
}

function textOf(f: number, i: number): string {
  return `soak file ${f} line ${i} ${'x'.repeat(i % 37)}`;
}

/** `cwb serve` (the built CLI) watching the sources under `home`; resolves once it watches. */
async function startWorkbench(
  home: string,
  root: string,
  indexEnv: NodeJS.ProcessEnv,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BUILT_CLI, '--contexts', root, 'serve', '--port', '0'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      CWB_CONFIG: '',
      CWB_SOURCES_WATCH: '1',
      ...indexEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (out.includes('watching them')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`cwb serve exited with ${code}:\n${out}`)));
  });
  child.removeAllListeners('exit');
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = waitForExit(child);
  child.kill(signal);
  await exited;
}

let cluster: PostgresCluster | undefined;
afterAll(() => cluster?.stop());

/**
 * tasks.db, and a fleet's PostgreSQL index (docs/fleet.md): there the sync state stays in
 * the folder's sources.db while the rows go to PostgreSQL, so a sync killed between the two
 * commits is replayed, and the rows' counters must still come out exact.
 */
describe.each([
  { index: 'tasks.db', url: async (): Promise<string | undefined> => undefined },
  {
    index: 'a PostgreSQL index',
    url: async (): Promise<string | undefined> => {
      cluster ??= await startPostgres();
      return cluster.createDatabase();
    },
  },
])('sources soak on $index (real processes)', ({ url }) => {
  it('10,000 lines appended to 20 sessions of three formats (Gemini CLI rewriting its JSON in place) while the workbench restarts 10 times, is SIGKILLed twice and a second one syncs too: every line exactly once', async () => {
    const index = await url();
    const indexEnv: NodeJS.ProcessEnv = index ? { CWB_INDEX_URL: index } : {};
    const home = tempDir();
    const root = path.join(home, 'contexts');
    const claudeDir = path.join(home, '.claude', 'projects', 'soak');
    const codexDir = path.join(home, '.codex', 'sessions', '2026', '11', '25');
    fs.mkdirSync(claudeDir, { recursive: true });
    fs.mkdirSync(codexDir, { recursive: true });
    const geminiDir = path.join(home, '.gemini', 'tmp', 'soak', 'chats');
    fs.mkdirSync(geminiDir, { recursive: true });
    const files: SessionFile[] = [];
    for (let f = 0; f < CLAUDE_FILES; f++)
      files.push({
        file: path.join(claudeDir, `sess-${f}.jsonl`),
        kind: 'claude-code',
        written: 0,
        rest: '',
      });
    for (let f = 0; f < CODEX_FILES; f++)
      files.push({
        file: path.join(codexDir, `rollout-2026-11-25-${f}.jsonl`),
        kind: 'codex',
        written: 0,
        rest: '',
      });
    for (let f = 0; f < GEMINI_FILES; f++)
      files.push({
        file: path.join(geminiDir, `session-2026-11-25-${f}.json`),
        kind: 'gemini-cli',
        written: 0,
        rest: '',
      });
    for (const s of files)
      fs.writeFileSync(s.file, s.kind === 'gemini-cli' ? geminiDocument(files.indexOf(s), 0) : '');

    const lineOf = (s: SessionFile, i: number): string =>
      s.kind === 'claude-code' ? claudeLine(files.indexOf(s), i) : codexLine(files.indexOf(s), i);
    const bursts = LIFETIMES * BURSTS_PER_LIFETIME;
    let burst = 0;
    /** Appends this burst's share of lines to every file; some end mid-line. */
    const append = (): void => {
      burst++;
      for (const [n, s] of files.entries()) {
        const target = Math.round((LINES[s.kind] * burst) / bursts);
        if (s.kind === 'gemini-cli') {
          // Rewritten whole in place (truncate, then write): a sync may read it half-written.
          s.written = target;
          fs.writeFileSync(s.file, geminiDocument(files.indexOf(s), target));
          continue;
        }
        let chunk = s.rest;
        s.rest = '';
        while (s.written < target) chunk += `${lineOf(s, s.written++)}\n`;
        if ((burst + n) % 3 === 0 && burst < bursts && s.written < LINES[s.kind]) {
          const next = `${lineOf(s, s.written++)}\n`;
          const cut = 1 + ((burst * 7 + n) % (next.length - 2));
          chunk += next.slice(0, cut);
          s.rest = next.slice(cut);
        }
        if (chunk !== '') fs.appendFileSync(s.file, chunk);
      }
    };
    const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    const second = await startWorkbench(home, root, indexEnv); // syncs the same files all along
    for (let life = 0; life < LIFETIMES; life++) {
      const workbench = await startWorkbench(home, root, indexEnv);
      for (let b = 0; b < BURSTS_PER_LIFETIME; b++) {
        append();
        await pause(40 + ((life * 13 + b * 29) % 90));
      }
      // A kill lands while the watchers are busy with the last burst.
      await stop(workbench, KILLED.has(life) ? 'SIGKILL' : 'SIGTERM');
    }
    expect(burst).toBe(bursts);
    expect(files.every((s) => s.written === LINES[s.kind] && s.rest === '')).toBe(true);
    await stop(second, 'SIGTERM');
    const last = await waitForExit(
      spawn(process.execPath, [BUILT_CLI, '--contexts', root, 'sources', 'sync', '--json'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          HOME: home,
          XDG_CONFIG_HOME: path.join(home, '.config'),
          CWB_CONFIG: '',
          ...indexEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ errors: [] });

    const store = ContextStore.open(root, index ? { index } : {});
    try {
      expect(store.repo.kind).toBe(index ? 'postgres' : 'sqlite');
      const repo = new SyncStateRepository(store.sourcesDb);
      let total = 0;
      for (const s of files) {
        const row = repo.get(s.file)!;
        expect(row, s.file).toMatchObject({
          pending: null,
          error: null,
          generation: 0,
          line_no: LINES[s.kind],
          messages: LINES[s.kind],
        });
        expect(row.offset).toBe(fs.statSync(s.file).size);
        const tasks = store.listTasks({ limit: 100 }).rows.filter((r) => {
          const meta = JSON.parse(
            fs.readFileSync(path.join(store.taskPath(r), 'metadata.json'), 'utf8'),
          ) as { source?: { file?: string } };
          return meta.source?.file === s.file;
        });
        expect(tasks).toHaveLength(1);
        const task = tasks[0]!;
        const messages = fs
          .readFileSync(path.join(store.taskPath(task), 'messages.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { seq: number; content: string });
        const f = files.indexOf(s);
        expect(messages.map((m) => m.content)).toEqual(
          Array.from({ length: LINES[s.kind] }, (_, i) => textOf(f, i)),
        );
        // Numbered 1..n and counted once: a sync that flushed its offset index after giving
        // the file to the next one made later syncs count lines twice (564 for 550, on a
        // PostgreSQL index; src/core/sources/sync-handover.test.ts).
        expect(messages.map((m) => m.seq)).toEqual(
          Array.from({ length: LINES[s.kind] }, (_, i) => i + 1),
        );
        expect(task.total_messages).toBe(LINES[s.kind]);
        // One LLM call per assistant line (every 4th), counted once through every replay.
        if (s.kind === 'claude-code')
          expect(task.llm_call_count).toBe(Math.floor(LINES[s.kind] / 4));
        total += messages.length;
      }
      expect(total).toBe(10_000);
    } finally {
      store.close();
    }
  }, 600_000);
});
