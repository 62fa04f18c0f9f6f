/**
 * The contexts folder turns read-only during a run (issue 18), as when the kernel remounts a
 * disk read-only after an I/O error. mount(8) cannot do that to a folder with files open for
 * writing ("mount point is busy"), so the built task process is started with
 * test/support/read-only-preload.cjs, which makes every change under the contexts root fail
 * with EROFS after the task's n-th message (tasks.db stays writable, like a database on
 * another disk). Decided behaviour, as for a full disk: not the task's fault, nothing lost —
 * the task is paused with a message that says so and what to do, the task process ends by
 * itself without a stack trace, the host survives, and once the folder is writable again
 * every complete line is intact and the task resumes to the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { TaskSupervisor } from '../../src/core/supervisor/task-supervisor';
import type { ForkWorker } from '../../src/core/supervisor/worker-handle';
import type { WorkerEvent } from '../../src/shared/worker-protocol';
import { BUILT_WORKER, runCwb } from '../support/run-ts';
import {
  assertDbMatchesFolders,
  assertMessagesIntact,
  completeLines,
  sleep,
} from '../support/reliability';
import { startScriptedLlm } from '../support/scripted-llm-server';
import { makeTaskEnv } from '../support/task-env';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-read-only-');
const PRELOAD = fileURLToPath(new URL('../support/read-only-preload.cjs', import.meta.url));
const { install } = createRequire(import.meta.url)(PRELOAD) as {
  install: (root: string, switchFile: string, after: number) => () => void;
};
const STACK_TRACE = /\n\s+at .+:\d+:\d+\)?/;

/** The built task process; with `readOnly`, it makes the contexts root read-only after that many messages. */
function forkWorker(
  root: string,
  readOnly: { switchFile: string; after: number } | undefined,
  stderr: string[],
  hostErrors: unknown[],
  pids: number[],
): ForkWorker {
  return ({ env }) => {
    const child = fork(BUILT_WORKER.file, [], {
      env: {
        ...env,
        ...(readOnly && {
          CWB_TEST_READ_ONLY_ROOT: root,
          CWB_TEST_READ_ONLY_SWITCH: readOnly.switchFile,
          CWB_TEST_READ_ONLY_AFTER: String(readOnly.after),
        }),
      },
      execArgv: readOnly ? ['--require', PRELOAD] : [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    pids.push(child.pid!);
    child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    return {
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
  };
}

function errorsHeard(events: WorkerEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'error' ? [e.message] : e.type === 'status' && e.error ? [e.error] : [],
  );
}

describe('the contexts folder turns read-only during a run', () => {
  // Was: the task ended "failed" with the bare system error ("EROFS: read-only file system,
  // open '…/request.json'"), which says neither what happened nor that nothing was lost,
  // and a failed task cannot be resumed.
  it('the task process says the folder is read-only and what to do, in one line, and ends by itself; the host survives; once writable again every complete line is intact and the task resumes to the end', async () => {
    let finishing = false;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: () =>
        finishing
          ? { content: 'Done once the folder was writable.' }
          : {
              content: 'looking around',
              tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }],
              usage: { prompt_tokens: 10, completion_tokens: 5 },
            },
    });
    try {
      const base = tempDir();
      const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
      const switchFile = path.join(base, 'read-only-switch');
      // The host's own writes under the root fail too while the switch is on.
      const uninstall = install(env.root, switchFile, Number.NaN);
      const stderr: string[] = [];
      const hostErrors: unknown[] = [];
      const pids: number[] = [];
      const supervisor = new TaskSupervisor({
        fork: forkWorker(env.root, { switchFile, after: 7 }, stderr, hostErrors, pids),
        contextsRoot: env.root,
        configFile: env.configFile,
        env: { ...process.env, OPENAI_API_KEY: 'sk-unused' },
      });
      const events: WorkerEvent[] = [];
      supervisor.on('event', (e) => events.push(e));
      let uuid = '';
      let exit: Awaited<ReturnType<TaskSupervisor['waitForExit']>> | undefined;
      let hung = false;
      try {
        uuid = supervisor.start({
          prompt: 'Look around until told to stop.',
          workdir: env.workdir,
          maxTurns: 100,
        });
        const exited = supervisor.waitForExit(uuid);
        const started = Date.now();
        while (supervisor.isRunning(uuid)) {
          if (Date.now() - started > 30_000) {
            hung = true;
            process.kill(pids[0]!, 'SIGKILL');
            break;
          }
          await sleep(50);
        }
        exit = await Promise.race([exited, sleep(2000).then(() => undefined)]);
        expect(fs.existsSync(switchFile)).toBe(true);
      } finally {
        fs.rmSync(switchFile, { force: true });
        uninstall();
      }
      const heard = errorsHeard(events).join('\n');
      expect(hung, heard).toBe(false);
      expect(exit, heard).toBeDefined();
      expect(hostErrors).toEqual([]);
      expect(stderr.join('')).not.toMatch(STACK_TRACE);
      // Pausing moves the task's folder, which a read-only disk refuses as well: the host is
      // told, and recovery settles the task once the folder is writable again.
      expect(heard).toMatch(
        /the contexts folder is read-only \(EROFS writing .*\): the task could not be paused either; make it writable again and resume it/,
      );
      expect(heard).toMatch(/could not be marked failed: .*EROFS/);

      // Writable again (a new process without the preload's switch): nothing lost, resumable.
      const store = ContextStore.open(env.root);
      let linesBefore: Buffer;
      try {
        assertDbMatchesFolders(store);
        const row = store.requireTask(uuid);
        // Recovery: a task left "running" by a process that is gone is marked interrupted.
        expect(row.status).toBe('failed');
        expect(row.error_message).toMatch(/^interrupted: /);
        const file = path.join(store.taskPath(row), 'messages.jsonl');
        linesBefore = completeLines(file);
        expect(fs.readFileSync(file).length).toBe(linesBefore.length);
        expect(assertMessagesIntact(file).length).toBeGreaterThanOrEqual(7);
      } finally {
        store.close();
      }
      finishing = true;
      const resumer = new TaskSupervisor({
        fork: forkWorker(env.root, undefined, stderr, hostErrors, pids),
        contextsRoot: env.root,
        configFile: env.configFile,
        env: { ...process.env, OPENAI_API_KEY: 'sk-unused' },
      });
      resumer.resume(uuid);
      expect(await resumer.waitForExit(uuid)).toMatchObject({ status: 'completed' });
      const after = ContextStore.open(env.root);
      try {
        const row = after.requireTask(uuid);
        const file = path.join(after.taskPath(row), 'messages.jsonl');
        expect(fs.readFileSync(file).subarray(0, linesBefore.length).equals(linesBefore)).toBe(
          true,
        );
        const records = assertMessagesIntact(file);
        expect(records.at(-1)).toMatchObject({
          role: 'assistant',
          content: 'Done once the folder was writable.',
        });
        expect(row.total_messages).toBe(records.length);
      } finally {
        after.close();
      }
    } finally {
      await llm.close();
    }
  }, 90_000);
});

// ------------------------------------------------------------------ read-only from the start

function canBindReadOnly(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-ro-probe-'));
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'pipe' });
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!canBindReadOnly())(
  'a contexts folder that is read-only from the start (a read-only bind mount; needs root)',
  () => {
    // Was: "cwb: internal error: SqliteError: unable to open database file" and a stack
    // trace, exit code 3 (tasks.db in WAL mode writes its -shm file even to read).
    it('every command says which file and why in one line (exit code 2), and the folder is left as it was', () => {
      const base = tempDir();
      const real = path.join(base, 'contexts');
      const store = ContextStore.open(real);
      const task = store.createTask({ title: 'kept' });
      task.addMessage({ role: 'user', content: 'hello' });
      task.close();
      store.close();
      const ro = path.join(base, 'ro');
      fs.mkdirSync(ro);
      execFileSync('mount', ['--bind', real, ro]);
      try {
        execFileSync('mount', ['-o', 'remount,bind,ro', ro]);
        const config = path.join(base, 'config.yaml');
        fs.writeFileSync(
          config,
          'llm:\n  provider: ollama\n  ollama:\n    model: m\n    context_length: 32768\n    base_url: http://127.0.0.1:9\n',
        );
        const before = execFileSync('ls', ['-laR', real]).toString();
        for (const args of [
          ['tasks'],
          ['show', task.uuid],
          ['messages', task.uuid],
          ['run', '--prompt', 'hello', '--config', config],
          ['import', config],
        ]) {
          const r = runCwb(['--contexts', ro, ...args]);
          const shown = `${args.join(' ')}: ${r.stderr}`;
          expect(r.status, shown).toBe(2);
          expect(r.stderr, shown).not.toMatch(STACK_TRACE);
          expect(r.stderr.trim().split('\n'), shown).toHaveLength(1);
          expect(r.stderr, shown).toMatch(
            /^cwb: error: cannot open .*tasks\.db \(SQLITE_CANTOPEN: unable to open database file\); the contexts folder .* is not writable \(EROFS\)/,
          );
        }
        expect(execFileSync('ls', ['-laR', real]).toString()).toBe(before);
      } finally {
        execFileSync('umount', [ro]);
      }
    });
  },
);
