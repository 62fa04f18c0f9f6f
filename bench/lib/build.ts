import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './processes';

/** The built task process and CLI (what users run): out/main/worker.cjs and cli.js. */
export const BUILT_WORKER = path.join(REPO_ROOT, 'out', 'main', 'worker.cjs');
export const BUILT_CLI = path.join(REPO_ROOT, 'out', 'main', 'cli.js');
export const BUILT_RENDERER = path.join(REPO_ROOT, 'out', 'renderer', 'index.html');

/**
 * Runs `electron-vite build` when a bundle is missing or older than a source file, like the
 * test setup does, so the bench does not measure stale code. Other people change src/ while
 * the bench runs; if their work in progress does not build, the bundles already in out/ are
 * measured and the report says so. Returns what happened, for the report.
 */
export function ensureBuilt(): string {
  const built = [BUILT_WORKER, BUILT_CLI, BUILT_RENDERER];
  const builtAt = Math.min(...built.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
  const newest = newestSource(path.join(REPO_ROOT, 'src'));
  if (builtAt > 0 && newest < builtAt) return 'the bundles in out/ were up to date with src/';
  try {
    execFileSync(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
        env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
        timeout: 600_000,
      },
    );
    return 'out/ was rebuilt with `electron-vite build` before measuring (a source file was newer)';
  } catch {
    if (!fs.existsSync(BUILT_WORKER) || !fs.existsSync(BUILT_CLI)) {
      throw new Error('electron-vite build failed and there are no bundles in out/main to measure');
    }
    const when = (f: string): string =>
      fs.existsSync(f)
        ? fs
            .statSync(f)
            .mtime.toISOString()
            .replace(/\.\d+Z$/, 'Z')
        : 'missing';
    return `\`electron-vite build\` failed (src/ was being changed while the bench ran); measured the bundles already in out/: worker.cjs built ${when(BUILT_WORKER)}, renderer ${when(BUILT_RENDERER)}`;
  }
}

/**
 * A private copy of out/main for this bench run, inside the repo so its imports still
 * resolve from node_modules. Other people rebuild out/ while the bench runs; a task process
 * started in the middle of a rebuild would load half-written chunks.
 */
export function snapshotBuild(): { worker: string; remove(): void } {
  const dir = path.join(REPO_ROOT, 'bench-results', `.snapshot-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(REPO_ROOT, 'out', 'main'), path.join(dir, 'main'), { recursive: true });
  return {
    worker: path.join(dir, 'main', 'worker.cjs'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (!entry.name.includes('.test.')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}
