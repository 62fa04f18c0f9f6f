/**
 * Full disk (issue 9). Two ways:
 * - a real one: the contexts root is a small tmpfs (needs root and `mount`; skipped with the
 *   reason otherwise) and the built task process runs against a scripted LLM until the disk
 *   fills — once while the database still has room, once with the disk filled completely;
 * - an injected one, in this process: `fs.writeSync` (or a FileHandle's write) fails with
 *   ENOSPC part way through, exactly where an append or a rewrite would hit a full disk.
 *
 * What the product should do (decided here, see docs/reliability.md): a full disk is not the
 * task's fault and loses nothing, so the task is paused — not failed — with a message that
 * says the disk is full and that it can be resumed once space is freed; the task process
 * ends by itself with that one line (no stack trace); the host (cwb serve, the app) never
 * crashes; and after space is freed every complete line is intact and the task resumes.
 * Tests marked `.fails` assert the parts the product does not do yet.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { TaskSupervisor, type WorkerExit } from '../../src/core/supervisor/task-supervisor';
import type { ForkWorker, WorkerHandle } from '../../src/core/supervisor/worker-handle';
import { runCompaction } from '../../src/core/compaction/compaction-engine';
import { buildPipeline } from '../../src/core/compaction/pipeline';
import { extractiveSummarizer } from '../../src/core/compaction/extractive-digest';
import { defaultConfig } from '../../src/core/config/app-config';
import type { WorkerEvent } from '../../src/shared/worker-protocol';
import { BUILT_WORKER, runCwb } from '../support/run-ts';
import {
  assertDbMatchesFolders,
  assertMessagesIntact,
  checkedContent,
  completeLines,
  parseJsonl,
  sleep,
  tempFilesIn,
} from '../support/reliability';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm-server';
import { makeTaskEnv } from '../support/task-env';
import { useTempDir } from '../support/temp-dir';
import { probeTmpfs, useTmpfs } from '../support/tmpfs';

const tempDir = useTempDir('cwb-full-disk-');

const disks = useTmpfs();
const TMPFS = probeTmpfs();

/** Folders that hold a mount point outlive single tests: removed after unmounting. */
function mountBase(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-full-disk-mnt-'));
  disks.removeAfter(dir);
  return dir;
}

interface Outcome {
  uuid: string;
  /** undefined: supervisor.waitForExit() never resolved. */
  exit: WorkerExit | undefined;
  /** The task process had not ended 3 s after the disk filled and was killed by the test. */
  hung: boolean;
  stderr: string;
  events: WorkerEvent[];
  /** Errors thrown by the supervisor while it handled the process's exit (a real host would crash). */
  hostErrors: unknown[];
  /** messages.jsonl's complete lines right after the failure, before any recovery. */
  linesBefore: Buffer;
}

/**
 * The built task process under a TaskSupervisor, with every exit listener guarded: what it
 * throws is collected instead of becoming an uncaught exception in the test run.
 */
function guardedFork(
  hostErrors: unknown[],
  stderr: string[],
): { fork: ForkWorker; pids: number[] } {
  const pids: number[] = [];
  return {
    pids,
    fork: ({ env }) => {
      const child = fork(BUILT_WORKER.file, [], {
        env,
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      pids.push(child.pid!);
      child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
      const handle: WorkerHandle = {
        pid: child.pid,
        send: (m) => {
          if (child.connected) child.send(m);
        },
        onMessage: (l) => child.on('message', l),
        onExit: (l) =>
          child.on('exit', (code, signal) => {
            try {
              l(code, signal);
            } catch (err) {
              hostErrors.push(err);
            }
          }),
        kill: (s) => child.kill(s),
      };
      return handle;
    },
  };
}

/**
 * Runs a task on a 2 MiB tmpfs until the disk is full. `fill` says at which model call the
 * test itself fills the disk completely (undefined: the task's own writes fill it).
 */
async function runUntilFull(
  fill: number | undefined,
  bigReplies: boolean,
): Promise<{
  outcome: Outcome;
  env: ReturnType<typeof makeTaskEnv>;
  llm: ScriptedLlm;
  finish: () => void;
}> {
  let finishing = false;
  let root = '';
  let filledAt: number | undefined;
  const llm = await startScriptedLlm({
    flavor: 'openai',
    script: (_r, i) => {
      if (finishing) return { content: 'Done after the disk was freed.' };
      if (i === fill) {
        const { bavail, bsize } = fs.statfsSync(root);
        fs.writeFileSync(path.join(root, 'filler'), Buffer.alloc(bavail * bsize));
        filledAt = Date.now();
      }
      return {
        content: `turn ${i}: ${bigReplies ? 'x'.repeat(100_000) : 'looking around'}`,
        tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      };
    },
  });
  const env = makeTaskEnv(mountBase(), { provider: 'openai', url: llm.url });
  root = env.root;
  disks.mount(env.root, '2m');
  const hostErrors: unknown[] = [];
  const stderr: string[] = [];
  const { fork: forkWorker, pids } = guardedFork(hostErrors, stderr);
  const supervisor = new TaskSupervisor({
    fork: forkWorker,
    contextsRoot: env.root,
    configFile: env.configFile,
    env: { ...process.env, OPENAI_API_KEY: 'sk-unused' },
  });
  const events: WorkerEvent[] = [];
  supervisor.on('event', (e) => events.push(e));
  const uuid = supervisor.start({
    prompt: 'Look around until told to stop.',
    workdir: env.workdir,
    maxTurns: 200,
  });
  const exited = supervisor.waitForExit(uuid);
  // The task's own writes fill the disk within a few turns; a process still there 3 s
  // after the test filled the disk has hung, and is killed.
  const started = Date.now();
  let hung = false;
  while (supervisor.isRunning(uuid)) {
    if (filledAt !== undefined && Date.now() - filledAt > 3000) {
      hung = true;
      process.kill(pids[0]!, 'SIGKILL');
      break;
    }
    if (Date.now() - started > 30_000) throw new Error('the task never hit the full disk');
    await sleep(50);
  }
  // If the supervisor throws while it settles the exit, waitForExit never resolves.
  const exit = await Promise.race([exited, sleep(2000).then(() => undefined)]);
  const dir = ['running', 'paused', 'completed']
    .map((f) => path.join(env.root, f, uuid))
    .find((d) => fs.existsSync(d))!;
  const linesBefore = completeLines(path.join(dir, 'messages.jsonl'));
  return {
    outcome: { uuid, exit, hung, stderr: stderr.join(''), events, hostErrors, linesBefore },
    env,
    llm,
    finish: () => {
      finishing = true;
    },
  };
}

/** After space is freed: nothing lost, the DB agrees with the folders, and the task resumes to the end. */
async function freeAndResume(run: Awaited<ReturnType<typeof runUntilFull>>): Promise<void> {
  const { env, outcome } = run;
  fs.rmSync(path.join(env.root, 'filler'), { force: true });
  disks.grow(env.root, '64m');
  const store = ContextStore.open(env.root);
  try {
    assertDbMatchesFolders(store);
    const row = store.requireTask(outcome.uuid);
    expect(['paused', 'failed']).toContain(row.status);
    const file = path.join(store.taskPath(row), 'messages.jsonl');
    expect(
      fs.readFileSync(file).subarray(0, outcome.linesBefore.length).equals(outcome.linesBefore),
    ).toBe(true);
    expect(assertMessagesIntact(file).length).toBeGreaterThanOrEqual(3);
  } finally {
    store.close();
  }
  run.finish();
  const stderr: string[] = [];
  const hostErrors: unknown[] = [];
  const supervisor = new TaskSupervisor({
    fork: guardedFork(hostErrors, stderr).fork,
    contextsRoot: env.root,
    configFile: env.configFile,
    env: { ...process.env, OPENAI_API_KEY: 'sk-unused' },
  });
  const events: WorkerEvent[] = [];
  supervisor.on('event', (e) => events.push(e));
  supervisor.resume(outcome.uuid);
  const exit = await supervisor.waitForExit(outcome.uuid);
  expect(
    exit,
    JSON.stringify({ events: errorsHeard({ ...outcome, events }), stderr }),
  ).toMatchObject({ status: 'completed' });
  expect(hostErrors).toEqual([]);
  const after = ContextStore.open(env.root);
  try {
    const row = after.requireTask(outcome.uuid);
    const records = assertMessagesIntact(path.join(after.taskPath(row), 'messages.jsonl'));
    expect(records.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Done after the disk was freed.',
    });
    expect(row.total_messages).toBe(records.length);
  } finally {
    after.close();
  }
}

const NO_SPACE = /no space left|ENOSPC|disk is full|database or disk is full/i;
const STACK_TRACE = /\n\s+at .+:\d+:\d+\)?/;

function errorsHeard(outcome: Outcome): string[] {
  return outcome.events.flatMap((e) =>
    e.type === 'error' ? [e.message] : e.type === 'status' && e.error ? [e.error] : [],
  );
}

describe.skipIf(!TMPFS.ok)(
  `a real full disk: a 2 MiB tmpfs as the contexts root${TMPFS.ok ? '' : ` (skipped: ${TMPFS.reason})`}`,
  () => {
    describe('the task fills the disk (a request.json no longer fits; tasks.db still has room)', () => {
      let run: Awaited<ReturnType<typeof runUntilFull>>;
      beforeAll(async () => {
        run = await runUntilFull(undefined, true);
      }, 60_000);
      afterAll(async () => {
        await run?.llm.close();
      });

      it('the task process ends by itself with an error naming the full disk and no stack trace; the host survives', () => {
        expect(run.outcome.hung).toBe(false);
        expect(run.outcome.exit?.code).toBe(0);
        expect(run.outcome.hostErrors).toEqual([]);
        expect(run.outcome.stderr).not.toMatch(STACK_TRACE);
        expect(errorsHeard(run.outcome).join('\n')).toMatch(NO_SPACE);
      });

      // Was: the task ended "failed" with the bare system error "ENOSPC: no space left on
      // device, write". Now the task process pauses it with a message saying what to do.
      it('the task is paused (not failed), and the message says the disk is full and how to go on', () => {
        expect(run.outcome.exit?.status).toBe('paused');
        expect(errorsHeard(run.outcome).join('\n')).toMatch(/disk is full.*(free|resume)/i);
      });

      it('after space is freed: every complete line intact, the DB agrees with the folders, the task resumes and completes', async () => {
        await freeAndResume(run);
      }, 60_000);
    });

    describe('the disk is filled completely (tasks.db cannot grow either)', () => {
      let run: Awaited<ReturnType<typeof runUntilFull>>;
      beforeAll(async () => {
        run = await runUntilFull(3, false);
      }, 60_000);
      afterAll(async () => {
        await run?.llm.close();
      });

      it('after space is freed: every complete line intact, the DB agrees with the folders, the task resumes and completes', async () => {
        await freeAndResume(run);
      }, 60_000);

      // Was: pausing or failing the task needs tasks.db and threw SQLITE_FULL inside the
      // worker's error handler; the worker printed a stack trace and never exited (the IPC
      // channel was not released). Now it tells the host, prints one line and exits with 1.
      it('the task process ends by itself, without a stack trace, after telling the host the disk is full', () => {
        expect(run.outcome.hung).toBe(false);
        expect(run.outcome.stderr).not.toMatch(STACK_TRACE);
        expect(errorsHeard(run.outcome).join('\n')).toMatch(NO_SPACE);
      });

      // Was: when the process ends without a final status, TaskSupervisor.settle() writes
      // tasks.db from inside the child's 'exit' listener, and what it threw there was an
      // uncaught exception that ends the host (cwb serve, the app). Now it is reported as an
      // error event, the exit as failed, and the row is left to recovery.
      it('the host survives: the supervisor never throws while handling the exit, and waitForExit resolves', () => {
        expect(run.outcome.hostErrors).toEqual([]);
        expect(run.outcome.exit).toBeDefined();
      });
    });

    describe('`cwb export` to a full disk', () => {
      let base: string;
      let uuid: string;
      let out: string;
      beforeAll(async () => {
        base = mountBase();
        const store = ContextStore.open(path.join(base, 'contexts'));
        const task = store.createTask({ title: 'export me' });
        // Random text: it does not compress, so the zip does not fit either.
        for (let i = 0; i < 40; i++)
          task.addMessage({ role: 'user', content: crypto.randomBytes(15_000).toString('base64') });
        await task.stop();
        store.close();
        uuid = task.uuid;
        out = path.join(base, 'exports');
        disks.mount(out, '64k');
      });

      function exportTo(format: string): ReturnType<typeof runCwb> {
        return runCwb([
          '--contexts',
          path.join(base, 'contexts'),
          'export',
          uuid,
          '--format',
          format,
          '-o',
          path.join(out, `t.${format}`),
        ]);
      }

      it('markdown and openai: the command fails and leaves nothing behind (no file, no temp file)', () => {
        for (const format of ['markdown', 'openai']) {
          const r = exportTo(format);
          expect(r.status, r.stderr).not.toBe(0);
          expect(r.stderr).toMatch(NO_SPACE);
          expect(fs.readdirSync(out)).toEqual([]);
        }
      });

      // Was: markdown/openai ended with exit code 3 and "cwb: internal error: Error: ENOSPC
      // ..." (an fs error is not a CwbError); the archive export crashed on an unhandled
      // 'error' event of its output stream and left `.t.archive.tmp-*` behind — in `cwb serve`
      // or the app the same export ended the host.
      it('every format: exit code 2, one line naming the file and the full disk, nothing left behind', () => {
        for (const format of ['markdown', 'openai', 'archive']) {
          const r = exportTo(format);
          expect(r.status, `${format}: ${r.stderr}`).toBe(2);
          expect(r.stderr.trim().split('\n')).toHaveLength(1);
          expect(r.stderr).toMatch(/^cwb: error: .*t\.\w+.*no space left/i);
          expect(fs.readdirSync(out)).toEqual([]);
        }
      });
    });
  },
);

// ------------------------------------------------------------------ an injected full disk

/** Makes fs.writeSync fail with ENOSPC once `budget` more bytes have been written (a short write first, like a real disk). */
function failWritesAfter(budget: number): () => void {
  const real = fs.writeSync;
  let left = budget;
  const patched = (
    fd: number,
    buffer: Buffer,
    offset = 0,
    length = buffer.length - offset,
    position?: number | null,
  ): number => {
    if (left <= 0) throw enospc('write');
    const n = Math.min(length, left);
    left -= n;
    return real(fd, buffer, offset, n, position);
  };
  (fs as unknown as { writeSync: typeof patched }).writeSync = patched;
  return () => {
    (fs as unknown as { writeSync: typeof real }).writeSync = real;
  };
}

function enospc(syscall: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${syscall}`);
  err.code = 'ENOSPC';
  err.syscall = syscall;
  return err;
}

describe('an injected full disk (fs.writeSync / FileHandle.write fail with ENOSPC part way)', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  async function taskWithMessages(): Promise<{ store: ContextStore; uuid: string; root: string }> {
    const root = path.join(tempDir(), 'contexts');
    const store = ContextStore.open(root);
    const task = store.createTask({ title: 'enospc' });
    for (let i = 0; i < 5; i++) task.addMessage({ role: 'user', content: checkedContent(i, 20) });
    task.close();
    // Owned by this process, so it can be opened for writing again.
    return { store, uuid: task.uuid, root };
  }

  it('an append that hits ENOSPC throws the ENOSPC error; the part it wrote is cut off at once; reopened, every complete line is intact', async () => {
    const { store, uuid } = await taskWithMessages();
    const task = store.openTask(uuid);
    const messagesPath = path.join(task.dir, 'messages.jsonl');
    const sizeBefore = fs.statSync(messagesPath).size;
    restore = failWritesAfter(40);
    expect(() => task.addMessage({ role: 'user', content: checkedContent(6, 300) })).toThrow(
      /ENOSPC/,
    );
    restore();
    // The 40 bytes that landed are truncated away by the writer itself: no fragment is left
    // for recovery to set aside.
    expect(fs.statSync(messagesPath).size).toBe(sizeBefore);
    task.close();
    const reopened = store.openTask(uuid);
    const records = assertMessagesIntact(path.join(reopened.dir, 'messages.jsonl'));
    expect(records).toHaveLength(5);
    expect(reopened.addMessage({ role: 'user', content: checkedContent(7, 5) }).seq).toBe(6);
    reopened.close();
    expect(fs.existsSync(path.join(reopened.dir, 'messages.jsonl.corrupt'))).toBe(false);
    store.close();
  });

  // Was gap 7: AppendLog kept the partial bytes of the failed write, so the next append in
  // the same process (once space is back) was glued to them. AppendLog.append now truncates
  // the file back to the line's offset when a write fails.
  it('an append after a failed one (space freed in between) lands as its own intact line', async () => {
    const { store, uuid } = await taskWithMessages();
    const task = store.openTask(uuid);
    restore = failWritesAfter(40);
    expect(() => task.addMessage({ role: 'user', content: checkedContent(6, 300) })).toThrow(
      /ENOSPC/,
    );
    restore();
    const next = task.addMessage({ role: 'user', content: checkedContent(7, 5) });
    task.close();
    const records = assertMessagesIntact(path.join(task.dir, 'messages.jsonl'));
    expect(records.at(-1)).toMatchObject({ seq: next.seq, content: next.content });
    store.close();
  });

  it('a compaction whose rewrite of current.jsonl hits ENOSPC leaves current.jsonl as it was and no temp file', async () => {
    const { store, uuid } = await taskWithMessages();
    const task = store.openTask(uuid);
    const currentPath = path.join(task.dir, 'current.jsonl');
    const before = fs.readFileSync(currentPath);
    const realOpen = fs.promises.open;
    // The temp file is opened with fs.promises.open; its handle's writes fail after 100 bytes.
    fs.promises.open = (async (...args: Parameters<typeof realOpen>) => {
      const handle = await realOpen(...args);
      if (!String(args[0]).includes('.current.jsonl.tmp-')) return handle;
      let left = 100;
      const write = handle.write.bind(handle) as (
        ...a: unknown[]
      ) => Promise<{ bytesWritten: number; buffer: Buffer }>;
      (handle as unknown as { write: unknown }).write = async (
        buffer: Buffer,
        offset = 0,
        length = buffer.length - offset,
      ) => {
        if (left <= 0) throw enospc('write');
        const n = Math.min(length, left);
        left -= n;
        return write(buffer, offset, n);
      };
      return handle;
    }) as typeof realOpen;
    restore = () => {
      fs.promises.open = realOpen;
    };
    const config = defaultConfig();
    await expect(
      runCompaction(task, {
        steps: buildPipeline(config, 128_000, ['truncate']),
        reason: 'manual',
        dryRun: false,
        summarizer: extractiveSummarizer,
        contextWindow: 128_000,
        maxOutputTokens: 8192,
      }),
    ).rejects.toThrow(/ENOSPC/);
    restore();
    expect(fs.readFileSync(currentPath).equals(before)).toBe(true);
    expect(tempFilesIn(task.dir)).toEqual([]);
    expect(task.addMessage({ role: 'user', content: 'after' }).seq).toBe(7);
    expect(parseJsonl<{ content: string }>(currentPath).at(-1)?.content).toBe('after');
    task.close();
    store.close();
  });
});
