import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/run-ts';

interface PackFile {
  path: string;
}

describe('npm pack', () => {
  it('carries the built CLI, hook entry, worker and UI, and no sources or tests', () => {
    // --ignore-scripts: vitest's global setup has just built out/ (prepare would build again).
    const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const [pack] = JSON.parse(run.stdout) as { files: PackFile[] }[];
    const files = pack!.files.map((f) => f.path);
    for (const needed of [
      'bin/cwb.js',
      'out/main/cli.js',
      'out/main/hook.js',
      'out/main/worker.cjs',
      'out/renderer/index.html',
      'package.json',
      'README.md',
    ]) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => /^(src|test|bench|docs)\//.test(f))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(manifest.bin.cwb).toBe('./bin/cwb.js');
    // What the packed CLI loads at run time is a dependency, never a devDependency.
    for (const runtime of [
      '@modelcontextprotocol/sdk',
      'jsonc-parser',
      'smol-toml',
      'better-sqlite3',
    ]) {
      expect(manifest.dependencies[runtime]).toMatch(/^\^\d/);
    }
    expect(manifest.dependencies.electron).toBeUndefined();
    // Every package the built CLI and hook import is installed with the package.
    const out = path.join(REPO_ROOT, 'out', 'main');
    const code = [
      'cli.js',
      'hook.js',
      'index.js',
      'worker.cjs',
      ...fs.readdirSync(path.join(out, 'chunks')).map((f) => `chunks/${f}`),
    ]
      .map((f) => fs.readFileSync(path.join(out, f), 'utf8'))
      .join('\n');
    const imported = new Set(
      [...code.matchAll(/(?:from |import\(|require\()"([^".][^"]*)"/g)]
        .map((m) => m[1]!)
        // Node's own modules (a bundled library may spell them without node:) and Electron,
        // which the desktop app runs in, come with the runtime.
        .filter((s) => !s.startsWith('node:') && !builtinModules.includes(s) && s !== 'electron')
        .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!)),
    );
    expect([...imported].filter((name) => !manifest.dependencies[name])).toEqual([]);
    // And no dependency is there for nothing: the UI's libraries are bundled into
    // out/renderer at build time, so a global install need not fetch them (pg is resolved
    // by path for its worker thread: pg-sync-client.ts).
    const loadedByPath = new Set(['pg']);
    expect(
      Object.keys(manifest.dependencies).filter(
        (name) => !imported.has(name) && !loadedByPath.has(name),
      ),
    ).toEqual([]);
  });
});
