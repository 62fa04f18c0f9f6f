import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Starts a TypeScript file of this repo in a real child process (through tsx). */
export function spawnTs(
  file: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.resolve(REPO_ROOT, file), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function waitForExit(child: ChildProcess): Promise<ExitResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * A script preloaded into a measured process (`--require`, bench/children/rss-reporter.cjs):
 * at exit it writes its peak RSS to $BENCH_RSS_FILE — VmHWM from /proc/self/status, the
 * high-water mark of the process's own memory. Exact, unlike polling from outside, which can
 * miss a peak in the last milliseconds. Not getrusage's maxRSS: on Linux that starts from
 * the parent's RSS at fork time, so a child of a large parent would report the parent's
 * memory.
 */
export const RSS_REPORTER = [
  '--require',
  path.join(REPO_ROOT, 'bench', 'children', 'rss-reporter.cjs'),
];

/** The peak RSS (bytes) a process reported through RSS_REPORTER, if it did. */
export function reportedPeakRss(file: string): number | undefined {
  try {
    const value = Number(fs.readFileSync(file, 'utf8'));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls /proc/<pid>/status for VmHWM (peak RSS) while the process lives: a cross-check of
 * the reported figure, and the figure for a process killed before its exit handler runs.
 */
export function pollPeakRss(pid: number, everyMs = 20): { stop(): number } {
  let peak = 0;
  const read = (): void => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status);
      if (kb) peak = Math.max(peak, Number(kb[1]) * 1024);
    } catch {
      // gone already
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/**
 * Removes a folder tree. `rm -rf` where there is one: Node's recursive rmSync stats every
 * entry and is several times slower on the 100,000 task folders of the UI group.
 */
export function removeTree(dir: string): void {
  if (!fs.existsSync(dir)) return;
  if (process.platform !== 'win32') {
    const result = spawnSync('rm', ['-rf', dir], { stdio: 'ignore' });
    if (result.status === 0) return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Waits until every child has printed "ready", then tells them all "go" on stdin at once,
 * so that concurrent writers really overlap; resolves with their exits.
 */
export async function startTogether(
  children: readonly ChildProcess[],
  onReady?: () => void,
): Promise<ExitResult[]> {
  const exits = children.map((c) => waitForExit(c));
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve, reject) => {
          let out = '';
          const onData = (d: Buffer): void => {
            out += d.toString();
            if (out.includes('ready')) {
              c.stdout?.off('data', onData);
              resolve();
            }
          };
          c.stdout?.on('data', onData);
          c.once('exit', (code) =>
            reject(new Error(`a child exited with ${code} before it was ready`)),
          );
        }),
    ),
  );
  onReady?.();
  for (const c of children) c.stdin?.write('go\n');
  return Promise.all(exits);
}
