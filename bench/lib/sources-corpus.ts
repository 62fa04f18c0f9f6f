import fs from 'node:fs';
import path from 'node:path';
import { REAL_FIXTURES } from '../../test/support/real-fixtures';

const STILL_SINCE = new Date('2026-01-01T00:00:00Z');

/**
 * A real fixture (below test/fixtures/real: a file, or a folder copied whole) and where its
 * agent keeps it below a home, copy `copy` of it.
 */
export interface Placed {
  fixture: string[];
  at: (home: string, copy: number) => string;
  /** Copied once: its session ids name files beside it (opencode's storage), so copies would collide. */
  once?: boolean;
}

const claudeCode = (folder: string, names: string[], project: string): Placed[] =>
  names.map((name) => ({
    fixture: [folder, name],
    at: (home, i) => path.join(home, '.claude', 'projects', `-work-${project}${i}`, name),
  }));

const codex = (folder: string, name: string, month: string): Placed => ({
  fixture: [folder, name],
  at: (home, i) =>
    path.join(home, '.codex', 'sessions', '2026', month, String(i).padStart(2, '0'), name),
});

const vscodeTasks = (home: string): string =>
  path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks');

const CLINE: Placed[] = [
  'api_conversation_history.json',
  'ui_messages.json',
  'task_metadata.json',
].map((name) => ({
  fixture: ['cline', '1762353105322', name],
  at: (home, i) => path.join(vscodeTasks(home), String(1762353105322 + i), name),
}));

const GEMINI: Placed[] = [
  'session-2025-12-06T07-22-e0f194ce.json',
  'session-2025-12-30T01-16-3f9ce747.json',
].map((name) => ({
  fixture: ['gemini-cli', name],
  at: (home, i) => path.join(home, '.gemini', 'tmp', `project${i}`, 'chats', name),
}));

const OPENHANDS: Placed[] = [
  'basic.json',
  'basic_interactions.json',
  'wrong_initial_state.json',
].map((name) => ({
  fixture: ['openhands', name],
  at: (home, i) => path.join(home, '.openhands', 'sessions', `${i}-${name}`),
}));

/**
 * The corpus of the group until 2026-11-28 (Claude Code ×2, Codex, Gemini CLI ×2, Cline,
 * OpenHands ×3): kept for the search group's upkeep rows and as the sync group's second row,
 * so that figures before and after the corpus change can be compared.
 */
export const FIRST_CORPUS: Placed[] = [
  ...claudeCode(
    'claude-code',
    ['5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'],
    'p',
  ),
  codex('codex', 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl', '05'),
  ...GEMINI,
  ...CLINE,
  ...OPENHANDS,
];

const PI_PROJECT = '--Users-badlogic-workspaces-pi-mono--';
const CLAUDE_21 = '-home-dev-acme-parser--claude-worktrees-fix-slug';
const OPENHANDS_EVENTS = '5f2b8c1d9e7a4b3c8d6e0f1a2b3c4d5e';

/** The files of the agents that keep a session per file (file-agent-kinds.ts), at their default folders. */
const FILE_AGENTS: Placed[] = [
  {
    fixture: ['pi', PI_PROJECT],
    at: (home, i) => path.join(home, '.pi', 'agent', 'sessions', `${PI_PROJECT}${i}`),
  },
  {
    fixture: ['copilot-cli', '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31'],
    at: (home, i) =>
      path.join(home, '.copilot', 'session-state', `7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f3${i}`),
  },
  {
    fixture: ['qwen-code', '-home-dev-src-weather-cli'],
    at: (home, i) => path.join(home, '.qwen', 'projects', `-home-dev-src-weather-cli${i}`),
  },
  {
    fixture: ['cursor', 'home-dev-src-notes-app'],
    at: (home, i) => path.join(home, '.cursor', 'projects', `home-dev-src-notes-app${i}`),
  },
  {
    fixture: ['droid', '-home-dev-src-ledger-api'],
    at: (home, i) => path.join(home, '.factory', 'sessions', `-home-dev-src-ledger-api${i}`),
  },
  {
    fixture: ['amp', 'T-0199e4c2-7a1b-7d3e-9f20-4b6c8a1e5d37.json'],
    at: (home, i) =>
      path.join(home, '.local', 'share', 'amp', 'threads', `T-0199e4c2-7a1b-7d3e-9f20-${i}.json`),
  },
  {
    fixture: ['continue', '6e1f3b7a-24c9-4d85-a0b2-9c7e5f1d3a68.json'],
    at: (home, i) => path.join(home, '.continue', 'sessions', `6e1f3b7a-24c9-4d85-${i}.json`),
  },
];

/**
 * Every real session fixture that a source kind syncs from files (JSON / JSON Lines), each at
 * its agent's default folder: what a home with these agents' sessions holds, in its real mix
 * (the five compacted Claude Code sessions are most of the bytes). Left out: Aider (no default
 * folder: only configured folders are read), the database kinds (Goose's sessions.db, Crush, Zed, opencode.db:
 * their fixtures are rows a test loads into SQLite, not bytes JSON.parse could be measured on),
 * and the kinds that read another kind's files (Roo Code, OpenClaw: the same bytes again).
 */
export const SYNC_CORPUS: Placed[] = [
  ...FIRST_CORPUS,
  ...claudeCode(
    'claude-code-compacted',
    fs.readdirSync(path.join(REAL_FIXTURES, 'claude-code-compacted')),
    'c',
  ),
  {
    fixture: ['claude-code-2.1', CLAUDE_21],
    at: (home, i) => path.join(home, '.claude', 'projects', `${CLAUDE_21}${i}`),
  },
  ...[
    'rollout-2026-11-21T10-02-00-019ab3c1-7e2a-7d40-9c11-5f6a7b8c9d01.jsonl',
    'rollout-2026-11-21T10-03-12-019ab3c4-0b6d-7a12-8e33-1a2b3c4d5e6f.jsonl',
  ].map((name) => codex('codex-subagents', name, '11')),
  {
    fixture: ['gemini-cli-jsonl', 'acme-parser'],
    at: (home, i) => path.join(home, '.gemini', 'tmp', `acme-parser${i}`),
  },
  {
    fixture: ['openhands', 'sessions', OPENHANDS_EVENTS],
    at: (home, i) =>
      path.join(
        home,
        '.openhands',
        'sessions',
        `${OPENHANDS_EVENTS.slice(0, -2)}${String(i).padStart(2, '0')}`,
      ),
  },
  {
    fixture: ['opencode', 'storage'],
    at: (home) => path.join(home, '.local', 'share', 'opencode', 'storage'),
    once: true,
  },
  ...FILE_AGENTS,
  ...['api_conversation_history.json', 'ui_messages.json', 'task_metadata.json'].map(
    (name): Placed => ({
      fixture: ['cline', '1763991000000', name],
      at: (home, i) => path.join(vscodeTasks(home), String(1763991000000 + i), name),
    }),
  ),
  {
    // Goose's sessions before 1.10: one JSON Lines file per session beside sessions.db.
    fixture: ['goose', '20250612_093015.jsonl'],
    at: (home, i) =>
      path.join(home, '.local', 'share', 'goose', 'sessions', `20250612_0930${10 + i}.jsonl`),
  },
];

function filesBelow(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * A home holding `copies` copies of `corpus` at their agents' folders; the files copied. Each
 * file is made still since 2026-01-01, as sessions of the past are, so their last replies count
 * as complete.
 */
export function buildHome(home: string, copies: number, corpus: readonly Placed[]): string[] {
  const files: string[] = [];
  for (let i = 0; i < copies; i++)
    for (const placed of corpus) {
      if (placed.once && i > 0) continue;
      const from = path.join(REAL_FIXTURES, ...placed.fixture);
      const to = placed.at(home, i);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.cpSync(from, to, { recursive: true });
      for (const file of fs.statSync(to).isDirectory() ? filesBelow(to) : [to]) {
        fs.utimesSync(file, STILL_SINCE, STILL_SINCE);
        files.push(file);
      }
    }
  return files;
}
