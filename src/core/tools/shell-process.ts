import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A command printing more than this is stopped: `yes` would otherwise fill the disk. */
export const MAX_CAPTURE_BYTES = 32 * 1024 * 1024;

/** After SIGTERM, the group gets this long to clean up before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** How often the size of the captured output is checked against MAX_CAPTURE_BYTES. */
const OUTPUT_POLL_MS = 100;

export interface ShellOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ShellOutcome {
  /** stdout and stderr interleaved as written, at most MAX_CAPTURE_BYTES of it. */
  output: string;
  /** Bytes the command wrote (may exceed what `output` holds when it was stopped for it). */
  outputBytes: number;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** Why it ended: by itself, or stopped by us. */
  ended: 'exit' | 'timeout' | 'aborted' | 'output_limit';
}

/**
 * Runs `command` through the platform shell in its own process group and waits for the
 * shell to exit.
 *
 * stdout and stderr both go to one temp file (the same open file, so writes interleave
 * exactly as in a terminal and memory does not grow with the output). Using a file, not
 * pipes, also means a background process the command leaves running (`server &`) does not
 * keep us waiting for a pipe to close; such processes are left alone after a normal exit.
 *
 * On timeout, abort or too much output the whole group gets SIGTERM, then SIGKILL once the
 * shell is gone or after a grace period (on Windows: `taskkill /T /F` on the tree).
 */
export async function runShell(command: string, options: ShellOptions): Promise<ShellOutcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-run-'));
  const outputFile = path.join(dir, 'output');
  const fd = fs.openSync(outputFile, 'w+', 0o600);
  try {
    const { exitCode, exitSignal, ended } = await waitForShell(command, fd, options);
    return { ...readCaptured(fd), exitCode, exitSignal, ended };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function waitForShell(
  command: string,
  fd: number,
  options: ShellOptions,
): Promise<Pick<ShellOutcome, 'exitCode' | 'exitSignal' | 'ended'>> {
  return new Promise((resolve, reject) => {
    const { file, args, windowsVerbatimArguments } = shellInvocation(command);
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', fd, fd],
      // Its own process group (POSIX), so a timeout reaches every process it started.
      detached: process.platform !== 'win32',
      windowsHide: true,
      windowsVerbatimArguments,
    });
    let ended: ShellOutcome['ended'] = 'exit';
    let graceTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const stop = (why: Exclude<ShellOutcome['ended'], 'exit'>): void => {
      if (ended !== 'exit') return;
      ended = why;
      killTree(child, 'SIGTERM');
      graceTimer = setTimeout(() => killTree(child, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timeoutTimer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const pollTimer = setInterval(() => {
      if (fs.fstatSync(fd).size > MAX_CAPTURE_BYTES) stop('output_limit');
    }, OUTPUT_POLL_MS);
    const onAbort = (): void => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      settled = true;
      clearTimeout(timeoutTimer);
      clearInterval(pollTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (err) => {
      if (settled) return;
      finish();
      clearTimeout(graceTimer);
      reject(err);
    });
    child.once('exit', (exitCode, exitSignal) => {
      if (settled) return;
      finish();
      if (ended !== 'exit') {
        // The shell is gone; whatever it started and survived SIGTERM goes now.
        clearTimeout(graceTimer);
        killTree(child, 'SIGKILL');
      }
      resolve({ exitCode, exitSignal, ended });
    });
    if (options.signal?.aborted) stop('aborted');
  });
}

function shellInvocation(command: string): {
  file: string;
  args: string[];
  windowsVerbatimArguments: boolean;
} {
  if (process.platform === 'win32') {
    // What Node's own `shell: true` does: cmd.exe /d /s /c "<command>", passed verbatim.
    return {
      file: process.env.ComSpec ?? 'cmd.exe',
      args: ['/d', '/s', '/c', `"${command}"`],
      windowsVerbatimArguments: true,
    };
  }
  return { file: '/bin/sh', args: ['-c', command], windowsVerbatimArguments: false };
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    // No process groups or SIGTERM on Windows: taskkill ends the whole tree at once.
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch (_err) {
    // ESRCH: the group has already gone.
  }
}

function readCaptured(fd: number): { output: string; outputBytes: number } {
  const outputBytes = fs.fstatSync(fd).size;
  const length = Math.min(outputBytes, MAX_CAPTURE_BYTES);
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, read);
    if (n === 0) break;
    read += n;
  }
  return { output: buffer.subarray(0, read).toString('utf8'), outputBytes };
}
