// ESLint flat config. Formatting is Prettier's job: no stylistic rules here.
//
// The folder is the runtime contract (DESIGN.md §3): each src/ folder may only import what
// its runtime provides. `no-restricted-imports` enforces it per folder below. Relative
// imports are matched by the folder they climb into (`../../core/x`, `../src/core/x`).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Any Node built-in: `node:*`, and bare names such as `fs`, `path`, `fs/promises`. */
const nodeBuiltins = (message) => [
  { regex: '^node:', message },
  {
    regex: `^(${builtinModules
      .filter((m) => !m.includes('/'))
      .map(esc)
      .join('|')})(/.*)?$`,
    message,
  },
];

/** A bare package name and its subpaths (`electron`, `electron/renderer`). */
const pkg = (name, message) => ({ regex: `^${esc(name)}(/.*)?$`, message });

/** A relative import that climbs into another top-level src/ folder. */
const folder = (name, message) => ({
  regex: `^(\\.\\./)+(src/)?${esc(name)}(/.*)?$`,
  message,
});

const restrict = (...patterns) => ['error', { patterns: patterns.flat() }];

const boundaries = [
  {
    name: 'boundaries/shared',
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': restrict(
        nodeBuiltins('src/shared runs everywhere (Node, Electron, browser): no Node built-ins'),
        pkg('electron', 'src/shared runs everywhere: it must not import electron'),
        pkg('react', 'src/shared is plain types and schemas: it must not import react'),
        pkg('react-dom', 'src/shared is plain types and schemas: it must not import react-dom'),
        pkg('better-sqlite3', 'src/shared runs everywhere: it must not import better-sqlite3'),
        ['core', 'main', 'preload', 'renderer', 'worker', 'cli'].map((f) =>
          folder(f, `src/shared is the bottom layer: it must not import from src/${f}`),
        ),
      ),
    },
  },
  {
    name: 'boundaries/renderer',
    files: ['src/renderer/**'],
    rules: {
      'no-restricted-imports': restrict(
        nodeBuiltins('src/renderer is browser code: no Node built-ins (go through window.api)'),
        pkg(
          'electron',
          'src/renderer is browser code: it must not import electron (use window.api)',
        ),
        pkg('better-sqlite3', 'src/renderer is browser code: it must not import better-sqlite3'),
        ['core', 'main', 'preload', 'worker', 'cli'].map((f) =>
          folder(
            f,
            `src/renderer is browser code: it must not import from src/${f} (only src/shared)`,
          ),
        ),
      ),
    },
  },
  {
    name: 'boundaries/core',
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': restrict(
        pkg('electron', 'src/core is plain Node: it must not import electron'),
        ['main', 'preload', 'renderer', 'cli', 'worker'].map((f) =>
          folder(f, `src/core is the engine under every host: it must not import from src/${f}`),
        ),
      ),
    },
  },
  {
    name: 'boundaries/worker-cli',
    files: ['src/worker/**', 'src/cli/**'],
    rules: {
      'no-restricted-imports': restrict(
        pkg('electron', 'src/worker and src/cli run on plain Node: they must not import electron'),
        ['main', 'preload', 'renderer'].map((f) =>
          folder(f, `src/worker and src/cli run on plain Node: they must not import from src/${f}`),
        ),
      ),
    },
  },
  {
    name: 'boundaries/preload',
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': restrict(
        {
          // Any bare specifier but electron: Node built-ins (`fs`, `node:fs`) and packages.
          // A sandboxed preload only gets `electron`; src/shared is bundled into it.
          regex: '^(?!electron(/|$))[^./]',
          message:
            'src/preload is sandboxed: it may only import electron and src/shared (no Node built-ins, no packages)',
        },
        ['core', 'main', 'renderer', 'worker', 'cli'].map((f) =>
          folder(
            f,
            `src/preload is sandboxed: it may only import electron and src/shared, not src/${f}`,
          ),
        ),
      ),
    },
  },
  {
    name: 'boundaries/main',
    files: ['src/main/**'],
    rules: {
      'no-restricted-imports': restrict(
        folder('renderer', 'src/main must not import from src/renderer (talk over IPC instead)'),
      ),
    },
  },
];

export default defineConfig(
  {
    ignores: [
      'out/**',
      'node_modules/**',
      'dist/**',
      'coverage/**',
      '.vitest-tmp/**',
      'test-results/**',
      'bench-results/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    ignores: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  ...boundaries,
  {
    // What a task process runs stays off ICU's time zone data (src/core/iso-timestamp.ts).
    name: 'task-process/no-local-time-zone',
    files: ['src/core/**', 'src/worker/**'],
    ignores: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          property: 'toISOString',
          message:
            'use isoTimestamp() (src/core/iso-timestamp.ts): toISOString makes V8 load ICU time zone data, ~1 MiB in every task process',
        },
      ],
    },
  },
);
