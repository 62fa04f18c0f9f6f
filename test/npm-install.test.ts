import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  packPrebuilt,
  runtimeClosure,
  startLocalRegistry,
  type LocalRegistry,
} from './support/local-registry';
import { REPO_ROOT } from './support/run-ts';

/**
 * The published package as a user installs it, without the network: `npm pack`, then
 * `npm install -g` of the tarball into an empty prefix, every dependency fetched by npm from
 * a registry this test serves on 127.0.0.1 (the versions installed here: npm asks only the
 * registry it is given), better-sqlite3's binary through its install script's own mirror
 * setting (prebuild-install; the test checks the installed binary is the one served). Then the installed `cwb` answers
 * --version, serves HTTP and speaks MCP to the SDK's client.
 */

const run = promisify(execFile);
const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

let tmp: string;
let registry: LocalRegistry;
let cwb: string;
let env: NodeJS.ProcessEnv;
let builtSqlite: string;

/** This process's environment without npm's own settings or a proxy (only 127.0.0.1 is used). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_/i.test(k) && !/^(https?|all|no)_proxy$/i.test(k),
    ),
  );
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-install-'));
  for (const d of ['registry', 'prefix', 'cache', 'home']) fs.mkdirSync(path.join(tmp, d));
  // --ignore-scripts: vitest's global setup has built out/ (prepare would build again).
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp],
    { cwd: REPO_ROOT, env: cleanEnv(), maxBuffer: 64 << 20 },
  );
  const tarball = path.join(
    tmp,
    (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename,
  );

  const closure = runtimeClosure(REPO_ROOT);
  const sqlite = closure.find((p) => p.name === 'better-sqlite3')!;
  builtSqlite = path.join(sqlite.dir, 'build', 'Release', 'better_sqlite3.node');
  const prebuilt = path.join(tmp, 'better-sqlite3-prebuilt.tar.gz');
  await packPrebuilt(sqlite.dir, prebuilt);
  registry = await startLocalRegistry(closure, path.join(tmp, 'registry'), prebuilt);

  const npmrc = path.join(tmp, 'npmrc');
  fs.writeFileSync(npmrc, '');
  env = {
    ...cleanEnv(),
    HOME: path.join(tmp, 'home'),
    npm_config_userconfig: npmrc,
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: path.join(tmp, 'cache'),
    npm_config_prefix: path.join(tmp, 'prefix'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_better_sqlite3_binary_host: `${registry.url}/prebuilt`,
  };
  // Async: the registry answers from this process's event loop.
  await run('npm', ['install', '--global', tarball], { env, maxBuffer: 64 << 20 });
  cwb = path.join(tmp, 'prefix', 'bin', 'cwb');
}, 600_000);

afterAll(async () => {
  await registry?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const cwbEnv = (): NodeJS.ProcessEnv => ({
  ...env,
  CWB_CONFIG: path.join(tmp, 'config.yaml'),
  CWB_SOURCES_WATCH: '0',
});

describe.skipIf(process.platform === 'win32')('npm install -g of the packed tarball', () => {
  it('installs every dependency from the registry, the native one through its prebuild', () => {
    expect(registry.requests).toContain('/@modelcontextprotocol/sdk');
    const abi = `node-v${process.versions.modules}-${process.platform}`;
    expect(registry.requests.some((r) => r.startsWith('/prebuilt/') && r.includes(abi))).toBe(true);
    // The binary is the one served, not one node-gyp built after fetching Node's headers.
    const installed = path.join(
      tmp,
      'prefix',
      'lib',
      'node_modules',
      'context-workbench',
      'node_modules',
      'better-sqlite3',
      'build',
      'Release',
      'better_sqlite3.node',
    );
    expect(fs.readFileSync(installed).equals(fs.readFileSync(builtSqlite))).toBe(true);
    expect(fs.existsSync(cwb)).toBe(true);
  });

  it('gives a cwb that answers --version, serves HTTP on 127.0.0.1 and speaks MCP', async () => {
    const version = await run(cwb, ['--version'], { env: cwbEnv() });
    expect(version.stdout.trim()).toBe(manifest.version);

    const contexts = path.join(tmp, 'contexts');
    await run(cwb, ['--contexts', contexts, 'init'], { env: cwbEnv() });

    const serve = spawn(cwb, ['--contexts', contexts, 'serve', '--port', '0'], {
      env: cwbEnv(),
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        serve.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const match = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
          if (match) resolve(match[0]);
        });
        serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
        serve.on('exit', (code) => reject(new Error(`cwb serve exited with ${code}: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    } finally {
      const exited = new Promise((resolve) => serve.on('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
    }

    const client = new Client({ name: 'cwb-install-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: cwb,
        args: ['--contexts', contexts, 'mcp'],
        env: cwbEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('context-workbench');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'list_sessions',
        'read_session',
        'recall',
        'search_sessions',
      ]);
      const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
      expect(listed.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 120_000);
});
