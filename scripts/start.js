// npm start: launch the desktop app, or explain why it cannot run here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** In Node, the `electron` package exports the binary's path; it throws when the download was skipped. */
function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

if (!electronBinary()) {
  console.error(
    'Electron is not installed on this machine (ELECTRON_SKIP_BINARY_DOWNLOAD); run the web workbench instead: npx cwb serve',
  );
  process.exit(1);
}

// `electron-vite preview` builds, then runs Electron on the built output.
const cli = join(dirname(require.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
const result = spawnSync(process.execPath, [cli, 'preview'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
