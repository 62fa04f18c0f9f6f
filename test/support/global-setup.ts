import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUILT = ['out/main/cli.js', 'out/main/worker.cjs'].map((f) => path.join(ROOT, f));

/**
 * End-to-end tests run the built `cwb` and task process, as users do (and 5× faster to start
 * than through tsx). The bundles are rebuilt first when any source is newer than them.
 */
export default function setup(): void {
  if (isFresh()) return;
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    },
  );
}

function isFresh(): boolean {
  const builtAt = Math.min(...BUILT.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
  return builtAt > 0 && newestSource(path.join(ROOT, 'src')) < builtAt;
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
