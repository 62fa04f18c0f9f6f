import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleListHook } from './support/module-list';
import { REPO_ROOT } from './support/run-ts';

/**
 * The task process (out/main/worker.cjs) is a bundle of its own (electron.vite.config.ts):
 * what it loads is most of its peak memory (docs/benchmarks.md, group 1), and every host
 * starts one per task. These checks hold the build and the process to that.
 */
const MAIN = path.join(REPO_ROOT, 'out', 'main');
const WORKER = path.join(MAIN, 'worker.cjs');

/**
 * What a bundled module loads as it loads: its top-level `let x = require("x")` (the bundle
 * is CommonJS) and `import … from "x"` statements.
 */
function staticImportsOf(text: string): string[] {
  const found = [
    ...text.matchAll(/^(?:let|const|var)\s+\w+\s*=\s*require\("([^"]+)"\);?$/gm),
    ...text.matchAll(/^(?:import|export)\b[^;"]*?\bfrom\s*"([^"]+)";?$/gm),
  ].map((m) => m[1]!);
  return [...new Set(found)];
}

/** Everything a bundled module can load: every `require("x")` and `import("x")` in it. */
function importsOf(text: string): string[] {
  const anywhere = [...text.matchAll(/\b(?:require|import)\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!);
  return [...new Set([...staticImportsOf(text), ...anywhere])];
}

/** The worker entry and every chunk it can load, as [name, text]. */
function workerFiles(): [string, string][] {
  const chunks = path.join(MAIN, 'worker-chunks');
  const names = fs.existsSync(chunks)
    ? fs.readdirSync(chunks).map((n) => path.join('worker-chunks', n))
    : [];
  return ['worker.cjs', ...names].map((n) => [n, fs.readFileSync(path.join(MAIN, n), 'utf8')]);
}

describe('the task process bundle', () => {
  it('loads nothing from node_modules but the native SQLite binding and pg, and no CLI chunk', () => {
    const allowed = (spec: string): boolean =>
      spec.startsWith('node:') ||
      // The bundler's stand-in for import.meta.url in CommonJS (pg-sync-client, fleets only).
      spec === 'url' ||
      spec === 'better-sqlite3' ||
      spec === 'pg' ||
      /^\.\/(worker-chunks\/)?[\w.-]+\.cjs$/.test(spec) ||
      /^\.\.?\/[\w.-]+\.cjs$/.test(spec);
    for (const [name, text] of workerFiles()) {
      const imports = importsOf(text);
      expect(
        imports.filter((s) => !allowed(s)),
        name,
      ).toEqual([]);
      // out/main/chunks/ is the CLI's and the app's: loading it loads their code too.
      expect(
        imports.filter((s) => s.includes('chunks/') && !s.includes('worker-chunks/')),
        name,
      ).toEqual([]);
    }
  });

  it("leaves config.yaml's loader (js-yaml, the config's schemas) to a chunk loaded only when no config was handed over", () => {
    // What the entry loads as it loads, chunk by chunk.
    const loaded = new Map<string, string>([['./worker.cjs', fs.readFileSync(WORKER, 'utf8')]]);
    for (const text of loaded.values()) {
      for (const spec of staticImportsOf(text).filter((s) => s.startsWith('./'))) {
        if (!loaded.has(spec)) loaded.set(spec, fs.readFileSync(path.join(MAIN, spec), 'utf8'));
      }
    }
    for (const [name, text] of loaded) expect(text, name).not.toContain('YAMLException');
    const loaders = workerFiles().filter(([, text]) => text.includes('YAMLException'));
    expect(loaders.length).toBe(1);
    const chunk = `./${loaders[0]![0].split(path.sep).join('/')}`;
    expect(importsOf(loaded.get('./worker.cjs')!)).toContain(chunk);
  });

  it('is ASCII, so V8 keeps its source at one byte per character', () => {
    for (const [name, text] of workerFiles()) {
      const wide = /[^\t\n\r\x20-\x7e]/.exec(text);
      expect(wide?.[0], `${name} at ${wide?.index}`).toBeUndefined();
    }
  });

  it('starts without loading node:http, TLS, worker threads, the ES module loader or the compaction strategies', () => {
    // The process is started with no task: it loads its bundle, says it has no task spec and
    // exits; the hook (CommonJS, so it loads no ES module loader itself) lists the built-in
    // modules it loaded by then.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-worker-bundle-'));
    try {
      const modules = moduleListHook(dir);
      const result = spawnSync(process.execPath, ['--require', modules.hook, WORKER], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 30_000,
      });
      expect(result.stderr).toContain('no task spec');
      const builtins = modules.builtins();
      // Sanity: the list is real (the process did load its file system and socket modules).
      expect(builtins).toContain('NativeModule fs');
      expect(builtins).toContain('NativeModule net');
      for (const unwanted of [
        // Model calls go over net (src/core/llm/http1-request.ts): node:http was ~2 MiB.
        'http',
        'https',
        'tls',
        'worker_threads',
        'internal/modules/esm/loader',
        'crypto',
      ]) {
        expect(builtins, unwanted).not.toContain(`NativeModule ${unwanted}`);
      }
      // The strategies sit in a chunk of their own, loaded when compaction is first considered.
      const pipeline = workerFiles().filter(([n]) => /^worker-chunks\/pipeline-/.test(n));
      expect(pipeline.length).toBe(1);
      const chunk = `./${pipeline[0]![0].split(path.sep).join('/')}`;
      const entry = fs.readFileSync(WORKER, 'utf8');
      expect(importsOf(entry)).toContain(chunk);
      expect(staticImportsOf(entry)).not.toContain(chunk);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
