import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Node arguments that run a TypeScript file of this repo in a real child process. */
export function tsArgs(file: string, args: string[] = []): string[] {
  return ['--import', 'tsx', path.resolve(REPO_ROOT, file), ...args];
}

export function spawnTs(
  file: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  return spawn(process.execPath, tsArgs(file, args), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits for a child to exit; resolves with its code, signal and output. */
export function waitForExit(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The built `cwb` (test/support/global-setup.ts keeps it fresh) and the built task process. */
export const BUILT_CLI = path.join(REPO_ROOT, 'out', 'main', 'cli.js');
export const BUILT_WORKER = {
  file: path.join(REPO_ROOT, 'out', 'main', 'worker.cjs'),
  execArgv: [] as string[],
};

/** Runs `cwb` in a real process, as a user would run it. */
export function runCwb(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BUILT_CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, CWB_CONFIG: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Starts `cwb` without blocking this process (for tests that serve an LLM from here). */
export function spawnCwb(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [BUILT_CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, CWB_CONFIG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
