import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'electron-vite';
import { build as viteBuild } from 'vite';

/**
 * Build layout (DESIGN.md §3: the folder is the runtime contract):
 *
 *   src/main/index.ts    -> out/main/index.js    Electron main process (ESM)
 *   src/cli/index.ts     -> out/main/cli.js      the `cwb` CLI (ESM; bin/cwb.js imports it)
 *   src/cli/hook-entry.ts -> out/main/hook.js    `cwb hook`, loaded instead of cli.js (fast start)
 *   src/core/sources/sync-thread.ts -> out/main/sync-thread.js  a thread of a parallel sync
 *   src/worker/index.ts  -> out/main/worker.cjs  task process entry (CommonJS; forked by a host),
 *                           a bundle of its own: see taskProcessBundle below
 *   src/preload/index.ts -> out/preload/index.cjs  CommonJS: sandboxed preloads cannot be ESM
 *   src/renderer/        -> out/renderer/        React UI
 *
 * Code shared by main and the CLI (src/core, src/shared) lands in out/main/chunks/.
 * Packages listed in package.json "dependencies" (better-sqlite3, ...) stay external for
 * main and the CLI (electron-vite's `build.externalizeDeps`, on by default).
 */

const root = fileURLToPath(new URL('.', import.meta.url));
const src = (path: string): string => resolve(root, 'src', path);

type Plugin = NonNullable<NonNullable<UserConfig['renderer']>['plugins']>[number];

/** The CLI ships without a hashbang: bin/cwb.js is the executable shim. */
function stripHashbang(): Plugin {
  return {
    name: 'cwb:strip-hashbang',
    renderChunk(code) {
      return code.startsWith('#!') ? { code: code.replace(/^#![^\n]*\n/, ''), map: null } : null;
    },
  };
}

/**
 * The CSP in src/renderer/index.html is strict (no inline scripts). The Vite dev server
 * injects an inline React Refresh preamble, so in `serve` mode only we let inline scripts
 * and the HMR websocket through. Built output keeps the strict policy untouched.
 */
function devCsp(): Plugin {
  return {
    name: 'cwb:dev-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      return html.replace(
        /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)"/i,
        (_m, head: string, policy: string) => {
          const relaxed = policy
            .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
            .replace("connect-src 'self'", "connect-src 'self' ws: http://localhost:*");
          return `${head}${relaxed}"`;
        },
      );
    },
  };
}

/** Packages the task process loads from node_modules: a native addon, and pg's own thread. */
const TASK_PROCESS_EXTERNAL = ['better-sqlite3', 'pg'];

/**
 * The task process (out/main/worker.cjs) is built on its own, after main and the CLI, into
 * one file plus the chunks it loads only when needed (out/main/worker-chunks/). A task
 * process keeps nothing of its context in memory, so what it loads is most of its peak
 * (docs/benchmarks.md, group 1), and every host starts one per task:
 * - npm packages are bundled in (zod, js-yaml): loaded from node_modules, zod's ~40 ESM
 *   files cost ~11 MiB of RSS (a module record, source and namespace each, and the
 *   loader's work), bundled ~3.5 MiB;
 * - nothing is shared with the CLI's and the app's chunks, which would load their code too;
 * - comments are dropped and the output kept ASCII: V8 holds a script's source for lazy
 *   compilation, and one character above U+00FF (an em dash in a message) makes it keep
 *   the whole file at two bytes per character.
 * better-sqlite3 (a native addon) and pg (loaded by its worker thread, fleets only) stay in
 * node_modules.
 */
function taskProcessBundle(): Plugin {
  // The worker's sources, from its last build: main's build no longer reaches src/worker,
  // so a watching build (`electron-vite dev --watch`) is told to watch them.
  let sources: string[] = [];
  return {
    name: 'cwb:task-process-bundle',
    apply: 'build',
    buildStart() {
      for (const file of sources) this.addWatchFile(file);
    },
    async closeBundle() {
      const built = await viteBuild({
        configFile: false,
        root,
        publicDir: false,
        ssr: { target: 'node', noExternal: true, external: TASK_PROCESS_EXTERNAL },
        build: {
          ssr: true,
          target: 'node20.19',
          outDir: resolve(root, 'out', 'main'),
          // main's build wrote index.js, cli.js and chunks/ there a moment ago.
          emptyOutDir: false,
          copyPublicDir: false,
          reportCompressedSize: false,
          rolldownOptions: {
            input: { worker: src('worker/index.ts') },
            external: TASK_PROCESS_EXTERNAL,
            // Building a zod schema has no side effect: one the task process never uses
            // (the tasks API's, next to a type it imports) is left out instead of built.
            treeshake: { manualPureFunctions: ['z', 'operation'] },
            output: {
              // CommonJS (.cjs, the package being "type": "module"): a process started on an
              // ES module also loads Node's ES module loader, ~2 MiB of RSS (issue #17).
              // Chunks loaded later are require()d, not import()ed, for the same reason.
              format: 'cjs',
              dynamicImportInCjs: false,
              entryFileNames: '[name].cjs',
              chunkFileNames: 'worker-chunks/[name]-[hash].cjs',
              charset: 'ascii',
              comments: false,
            },
          },
        },
      });
      const outputs = (Array.isArray(built) ? built : [built]).flatMap((b) =>
        'output' in b ? b.output : [],
      );
      sources = outputs.flatMap((o) => (o.type === 'chunk' ? o.moduleIds : []));
      sources = sources.filter((id) => id.startsWith(resolve(root, 'src')));
    },
  };
}

export default defineConfig({
  main: {
    build: {
      // main runs on Electron's Node (22.x), but worker.cjs and cli.js also run on the system
      // Node (package.json engines: >=20.19), so target the lowest of the two.
      target: 'node20.19',
      externalizeDeps: true,
      rolldownOptions: {
        input: {
          index: src('main/index.ts'),
          cli: src('cli/index.ts'),
          // `cwb hook`, run by agents after each compaction: a lean entry of its own.
          hook: src('cli/hook-entry.ts'),
          // A thread of a first sync of many files (src/core/sources/sync-threads.ts).
          'sync-thread': src('core/sources/sync-thread.ts'),
        },
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          chunkFileNames: 'chunks/[name]-[hash].js',
        },
      },
    },
    plugins: [stripHashbang(), taskProcessBundle()],
  },
  preload: {
    build: {
      // A sandboxed preload can only require('electron') (and a few polyfills), so bundle
      // everything it uses (src/shared and its dependencies) into one CommonJS file.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: src('preload/index.ts') },
        output: {
          format: 'cjs',
          // .cjs: the package is "type": "module", so a .js file would be read as ESM.
          entryFileNames: '[name].cjs',
          // One self-contained file: a sandboxed preload cannot require sibling chunks.
          codeSplitting: false,
        },
      },
    },
  },
  renderer: {
    root: src('renderer'),
    build: {
      // electron-vite leaves the renderer unminified; `cwb serve` sends it to a browser that
      // parses it before the first view appears, so ship it small.
      minify: true,
      rolldownOptions: {
        input: { index: src('renderer/index.html') },
      },
    },
    plugins: [react(), devCsp()],
  },
});
