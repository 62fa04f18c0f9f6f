import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'electron-vite';

/**
 * Build layout (DESIGN.md §3: the folder is the runtime contract):
 *
 *   src/main/index.ts    -> out/main/index.js    Electron main process (ESM)
 *   src/worker/index.ts  -> out/main/worker.js   task process entry (ESM; forked by a host)
 *   src/cli/index.ts     -> out/main/cli.js      the `cwb` CLI (ESM; bin/cwb.js imports it)
 *   src/preload/index.ts -> out/preload/index.cjs  CommonJS: sandboxed preloads cannot be ESM
 *   src/renderer/        -> out/renderer/        React UI
 *
 * Code shared by the three Node entries (src/core, src/shared) lands in out/main/chunks/.
 * Packages listed in package.json "dependencies" (better-sqlite3, ...) stay external for
 * main/worker/cli (electron-vite's `build.externalizeDeps`, on by default).
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

export default defineConfig({
  main: {
    build: {
      // main runs on Electron's Node (22.x), but worker.js and cli.js also run on the system
      // Node (package.json engines: >=20.19), so target the lowest of the two.
      target: 'node20.19',
      externalizeDeps: true,
      rolldownOptions: {
        input: {
          index: src('main/index.ts'),
          worker: src('worker/index.ts'),
          cli: src('cli/index.ts'),
        },
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          chunkFileNames: 'chunks/[name]-[hash].js',
        },
      },
    },
    plugins: [stripHashbang()],
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
