import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TaskSupervisor, type WorkerExit } from './task-supervisor';
import type { ForkWorker } from './worker-handle';
import type { WorkerEvent } from '../../shared/worker-protocol';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** A real child process running `script`, with the IPC channel a task process has. */
const scriptWorker =
  (script: string): ForkWorker =>
  ({ env }) => {
    const child = spawn(process.execPath, ['-e', script], {
      env,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    return {
      pid: child.pid,
      send: (m) => {
        if (child.connected) child.send(m);
      },
      onMessage: (l) => child.on('message', l),
      onExit: (l) => child.on('exit', l),
      kill: (s) => child.kill(s),
    };
  };

/** Dies at once without reporting a status (like a crashed worker). */
const dyingWorker = scriptWorker('process.exit(3)');

/** Reports its task after `delayMs`, then stays until killed. */
const slowWorker = (delayMs: number): ForkWorker =>
  scriptWorker(
    `process.on('message', (m) => setTimeout(() => process.send({ type: 'status', uuid: m.spec.uuid, status: 'running' }), ${delayMs}));`,
  );

describe('TaskSupervisor', () => {
  it('survives when it cannot record how a task process ended: the exit resolves as failed and an error event says why', async () => {
    // tasks.db cannot be opened under a file: what a full disk or a moved folder does to
    // settle() happens here too, inside the child's exit listener.
    const blocker = path.join(tempDir(), 'not-a-folder');
    fs.writeFileSync(blocker, '');
    const supervisor = new TaskSupervisor({
      fork: dyingWorker,
      contextsRoot: path.join(blocker, 'contexts'),
      configFile: null,
    });
    const events: WorkerEvent[] = [];
    const exits: WorkerExit[] = [];
    supervisor.on('event', (e) => events.push(e));
    supervisor.on('exit', (e) => exits.push(e));
    const uuid = supervisor.start({ prompt: 'x' });
    const exit = await supervisor.waitForExit(uuid);
    expect(exit).toEqual({ uuid, code: 3, signal: null, status: 'failed' });
    expect(exits).toEqual([exit]);
    expect(supervisor.isRunning(uuid)).toBe(false);
    expect(events).toEqual([
      {
        type: 'error',
        uuid,
        message: expect.stringMatching(
          /^the task process exited with code 3, and its task could not be marked failed: cannot create the contexts folder /,
        ) as string,
      },
    ]);
  });
});

describe('TaskSupervisor.whenReadable', () => {
  it('waits for the new process to report its task, and no longer than the limit', async () => {
    const supervisor = new TaskSupervisor({
      fork: slowWorker(400),
      contextsRoot: path.join(tempDir(), 'contexts'),
      configFile: null,
    });
    const heard: WorkerEvent[] = [];
    supervisor.on('event', (e) => heard.push(e));
    const uuid = supervisor.start({ prompt: 'x' });
    await supervisor.whenReadable(uuid, 30_000);
    // Resolved by the report, not by the limit.
    expect(heard).toEqual([{ type: 'status', uuid, status: 'running' }]);

    const silent = supervisor.start({ prompt: 'y' });
    const before = heard.length;
    await supervisor.whenReadable(silent, 50);
    // The limit ended the wait: the slow process had not reported yet.
    expect(heard.length).toBe(before);
    await supervisor.shutdown(100);
  });

  it('returns at once for a task this supervisor does not run', async () => {
    const supervisor = new TaskSupervisor({
      fork: dyingWorker,
      contextsRoot: path.join(tempDir(), 'contexts'),
      configFile: null,
    });
    await supervisor.whenReadable('00000000-0000-4000-8000-000000000000', 60_000);
  });
});
