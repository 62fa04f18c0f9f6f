import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { build } from 'vite';
import { REPO_ROOT } from './run-ts';

/** The fault tests' child scripts (test/support/fault-*.ts). */
export type FaultChild = 'fault-appender' | 'fault-compactor' | 'fault-db-writer';
const CHILDREN: FaultChild[] = ['fault-appender', 'fault-compactor', 'fault-db-writer'];

/**
 * The fault tests start about a hundred short-lived child processes. Through tsx each one
 * spends ~1.5 s of CPU compiling TypeScript before it does anything; bundled once per test
 * file (Vite, as the product's own build does) a start costs ~0.6 s. The bundles go to a
 * folder of this process's own under node_modules/.cache (inside the repo, so the children
 * resolve better-sqlite3 and the other packages as the sources do), removed afterwards.
 * Call at the top of a test file; spawn with the function it returns. A child a failed test
 * left behind (most of them wait to be killed) is killed after that test.
 */
export function useFaultChildren(): (
  name: FaultChild,
  args: string[],
  env?: NodeJS.ProcessEnv,
) => ChildProcess {
  const outDir = path.join(
    REPO_ROOT,
    'node_modules',
    '.cache',
    'cwb-fault-children',
    `${process.pid}`,
  );
  beforeAll(async () => {
    await build({
      configFile: false,
      root: REPO_ROOT,
      logLevel: 'silent',
      build: {
        ssr: true,
        outDir,
        emptyOutDir: true,
        target: 'node20',
        minify: false,
        sourcemap: false,
        rollupOptions: {
          input: Object.fromEntries(
            CHILDREN.map((name) => [name, path.join(REPO_ROOT, 'test', 'support', `${name}.ts`)]),
          ),
          output: { format: 'es', entryFileNames: '[name].mjs' },
        },
      },
    });
  }, 60_000);
  const alive = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of alive) child.kill('SIGKILL');
    alive.clear();
  });
  afterAll(() => {
    fs.rmSync(outDir, { recursive: true, force: true });
    try {
      fs.rmdirSync(path.dirname(outDir)); // only when no other test file's bundles are there
    } catch {
      // another test process is still using its own folder
    }
  });
  return (name, args, env = {}) => {
    const child = spawn(process.execPath, [path.join(outDir, `${name}.mjs`), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    alive.add(child);
    child.on('exit', () => alive.delete(child));
    return child;
  };
}
