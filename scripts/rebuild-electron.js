// npm run rebuild:electron — build better-sqlite3 for Electron's ABI (release machines).
//
// better-sqlite3 is a native module: `npm install` builds it for the system Node (the CLI,
// `cwb serve`, the tests). The desktop app loads it inside Electron, whose Node has another
// ABI, so a release build rebuilds it against Electron's headers before electron-builder
// packs it (electron-builder.yml: npmRebuild false, the .node file unpacked from asar).
//
// Where Electron's headers cannot be fetched (no network, as on the project's own
// machines) this prints why and exits 0 without touching anything. A rebuild that starts
// and fails puts the previous binary back and exits 1.
//
// After a rebuild the system Node can no longer load better-sqlite3: run
// `npm rebuild better-sqlite3` to switch the CLI and the tests back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const PROBE_TIMEOUT_MS = 10_000;

function skip(reason) {
  console.log(`rebuild-electron: skipped: ${reason}`);
  console.log(
    "rebuild-electron: the desktop app needs better-sqlite3 built for Electron; run `npm run rebuild:electron` on a machine that can fetch Electron's headers.",
  );
  process.exit(0);
}

/** A package's folder without require.resolve (some packages' exports hide package.json). */
function packageDir(name) {
  for (const dir of require.resolve.paths(name) ?? []) {
    if (fs.existsSync(path.join(dir, name, 'package.json'))) return path.join(dir, name);
  }
  return undefined;
}

function packageVersion(name) {
  const dir = packageDir(name);
  return dir
    ? JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
    : undefined;
}

/** node-gyp keeps downloaded headers here (@electron/rebuild's devdir). */
function cachedHeaders(version) {
  return fs.existsSync(
    path.join(os.homedir(), '.electron-gyp', version, 'include', 'node', 'node.h'),
  );
}

/** Whether the headers tarball answers at all (HEAD, short timeout): no answer, no rebuild. */
async function headersReachable(headerUrl, version) {
  const url = `${headerUrl.replace(/\/+$/, '')}/v${version}/node-v${version}-headers.tar.gz`;
  try {
    const response = await fetch(url, {
      method: 'HEAD',
      redirect: 'follow',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return response.ok ? { ok: true } : { ok: false, why: `${url} answered ${response.status}` };
  } catch (err) {
    const cause = err?.cause?.code ?? err?.cause?.errors?.[0]?.code ?? err?.cause?.message;
    const what =
      err?.name === 'TimeoutError' ? 'no answer in time' : (cause ?? err?.message ?? String(err));
    return { ok: false, why: `${url} could not be reached (${what})` };
  }
}

const electronVersion = packageVersion('electron');
if (!electronVersion) skip('the electron package is not installed');
if (!packageVersion('@electron/rebuild'))
  skip('@electron/rebuild is not installed (it comes with electron-builder)');

const headerUrl =
  process.env.ELECTRON_REBUILD_DIST_URL ??
  process.env.npm_config_disturl ??
  'https://www.electronjs.org/headers';
if (!cachedHeaders(electronVersion)) {
  const probe = await headersReachable(headerUrl, electronVersion);
  if (!probe.ok) skip(`Electron ${electronVersion}'s headers cannot be fetched: ${probe.why}`);
}

const binary = path.join(packageDir('better-sqlite3'), 'build', 'Release', 'better_sqlite3.node');
const backup = fs.existsSync(binary) ? `${binary}.node-abi-backup` : undefined;
if (backup) fs.copyFileSync(binary, backup);
const { rebuild } = await import('@electron/rebuild');
try {
  console.log(`rebuild-electron: building better-sqlite3 for Electron ${electronVersion}…`);
  await rebuild({
    buildPath: root,
    electronVersion,
    onlyModules: ['better-sqlite3'],
    force: true,
    headerURL: headerUrl,
  });
  if (backup) fs.rmSync(backup, { force: true });
  console.log(
    `rebuild-electron: done. For the CLI and the tests on Node ${process.versions.node}, run \`npm rebuild better-sqlite3\`.`,
  );
} catch (err) {
  if (backup) fs.renameSync(backup, binary);
  console.error(
    `rebuild-electron: failed, the previous better-sqlite3 binary is back in place: ${err?.message ?? err}`,
  );
  process.exit(1);
}
