import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { REPO_ROOT } from './run-ts';

/** out/renderer, built once with electron-vite when a test needs the UI and it is missing. */
export function ensureRendererBuilt(): string {
  const dir = path.join(REPO_ROOT, 'out', 'renderer');
  if (fs.existsSync(path.join(dir, 'index.html'))) return dir;
  const require = createRequire(import.meta.url);
  const bin = path.join(
    path.dirname(require.resolve('electron-vite/package.json')),
    'bin',
    'electron-vite.js',
  );
  const result = spawnSync(process.execPath, [bin, 'build'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status !== 0)
    throw new Error(`electron-vite build failed:\n${result.stdout}\n${result.stderr}`);
  return dir;
}
