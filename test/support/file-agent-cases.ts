import path from 'node:path';
import type { Case } from '../sources-kinds.test';

/**
 * The sources-kinds cases of the agents that keep a session per file (Pi, OpenClaw, Copilot
 * CLI, Cursor, Qwen Code, Factory Droid, Amp, Continue), each at its agent's default folder.
 */
const PI_SESSION = '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl';
const PI_PROJECT = '--Users-badlogic-workspaces-pi-mono--';

const COPILOT_SESSION = '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31';

const QWEN_CHAT = [
  '-home-dev-src-weather-cli',
  'chats',
  '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36.jsonl',
];

const CURSOR_ID = 'b2e8c4f0-5d1a-4c39-8e7b-0a6f3d9c1e52';
const CURSOR_TRANSCRIPT = [
  'home-dev-src-notes-app',
  'agent-transcripts',
  CURSOR_ID,
  `${CURSOR_ID}.jsonl`,
];
const CURSOR_TEXT = [
  'home-dev-src-notes-app',
  'agent-transcripts',
  '9d3f6a28-41c7-4b5e-a0d2-7e8c1b3f5a94.txt',
];
const DROID_SESSION = ['-home-dev-src-ledger-api', '4d9a7c31-2e6b-4f08-b5d1-8c3e0a7f6b94.jsonl'];

const AMP_THREAD = 'T-0199e4c2-7a1b-7d3e-9f20-4b6c8a1e5d37.json';
const CONTINUE_SESSION = '6e1f3b7a-24c9-4d85-a0b2-9c7e5f1d3a68.json';

/** The document with the first half of its list, as the agent had written it earlier. */
const halfOf =
  (list: string) =>
  (text: string): string => {
    const doc = JSON.parse(text) as Record<string, unknown[]>;
    const items = doc[list]!;
    return JSON.stringify({ ...doc, [list]: items.slice(0, Math.ceil(items.length / 2)) });
  };

export const FILE_AGENT_CASES: Case[] = [
  {
    kind: 'amp',
    fixture: ['amp', AMP_THREAD],
    at: (home) => path.join(home, '.local', 'share', 'amp', 'threads', AMP_THREAD),
    earlier: halfOf('messages'),
  },
  {
    kind: 'continue',
    fixture: ['continue', CONTINUE_SESSION],
    at: (home) => path.join(home, '.continue', 'sessions', CONTINUE_SESSION),
    earlier: halfOf('history'),
    untimed: true,
  },
  {
    kind: 'cursor',
    fixture: ['cursor', ...CURSOR_TRANSCRIPT],
    at: (home) => path.join(home, '.cursor', 'projects', ...CURSOR_TRANSCRIPT),
    untimed: true,
  },
  {
    kind: 'cursor',
    fixture: ['cursor', ...CURSOR_TEXT],
    at: (home) => path.join(home, '.cursor', 'projects', ...CURSOR_TEXT),
    untimed: true,
  },
  {
    kind: 'droid',
    fixture: ['droid', ...DROID_SESSION],
    at: (home) => path.join(home, '.factory', 'sessions', ...DROID_SESSION),
    siblings: ['4d9a7c31-2e6b-4f08-b5d1-8c3e0a7f6b94.settings.json'],
  },
  {
    kind: 'qwen-code',
    fixture: ['qwen-code', ...QWEN_CHAT],
    at: (home) => path.join(home, '.qwen', 'projects', ...QWEN_CHAT),
  },
  {
    kind: 'copilot-cli',
    fixture: ['copilot-cli', COPILOT_SESSION, 'events.jsonl'],
    at: (home) => path.join(home, '.copilot', 'session-state', COPILOT_SESSION, 'events.jsonl'),
  },
  {
    kind: 'pi',
    fixture: ['pi', PI_PROJECT, PI_SESSION],
    at: (home) => path.join(home, '.pi', 'agent', 'sessions', PI_PROJECT, PI_SESSION),
  },
  {
    // OpenClaw runs Pi's agent and writes the same session files.
    kind: 'openclaw',
    fixture: ['pi', PI_PROJECT, PI_SESSION],
    at: (home) =>
      path.join(
        home,
        '.openclaw',
        'agents',
        'main',
        'sessions',
        'd703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl',
      ),
  },
];
