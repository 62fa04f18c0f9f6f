/**
 * `cwb import` on the real sessions of Gemini CLI, OpenHands, Cline and Aider, and the
 * accounting of every real fixture: each message, tool call and tool result is imported or
 * reported. Expected numbers were counted by hand (and with a separate JSON walk) from
 * the files; how each format maps is documented at the top of its importer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { runCwb } from './support/run-ts';
import { realFixture } from './support/real-fixtures';

interface Expected {
  file: string;
  format: string;
  /** One entry per task, in file order. */
  tasks: {
    messages: number;
    tools: number;
    llm: number;
    title: string;
    agent: string;
    started: string;
    ended?: string;
    total_tokens?: number;
    model?: string | null;
    repository?: string;
    /** Tool executions that failed (error status, cancelled, or no result in the file). */
    failedTools?: number;
  }[];
  ignored?: Record<string, number>;
}

const CASES: Expected[] = [
  {
    // 13 entries: 2 user, 8 gemini (all with thoughts, 7 tool calls), 2 info, 1 error.
    // messages = 2 user + 8 reasoning + 8 assistant + 7 tool results.
    file: 'gemini-cli/session-2025-12-30T01-16-3f9ce747.json',
    format: 'gemini-cli',
    tasks: [
      {
        messages: 25,
        tools: 7,
        llm: 8,
        title: 'Update Gemini CLI via npm',
        agent: 'gemini-cli',
        started: '2025-12-30T01:17:12.003Z',
        ended: '2025-12-30T01:31:41.648Z',
        // Σ input + output + thoughts of the 8 replies (input includes the cached tokens).
        total_tokens: 59250,
        model: 'gemini-3-flash-preview',
        failedTools: 1, // the cancelled pacman check
      },
    ],
    ignored: { 'gemini info notice': 2, 'gemini error notice': 1 },
  },
  {
    // 20 entries: 4 user, 9 gemini (9 with thoughts, 8 tool calls), 4 info, 3 error.
    file: 'gemini-cli/session-2025-12-06T07-22-e0f194ce.json',
    format: 'gemini-cli',
    tasks: [
      {
        messages: 4 + 9 + 9 + 8,
        tools: 8,
        llm: 9,
        title: 'run claude code',
        agent: 'gemini-cli',
        started: '2025-12-06T07:59:13.982Z',
        ended: '2025-12-06T08:37:45.376Z',
        total_tokens: 100386,
        failedTools: 1, // the cancelled ssh
      },
    ],
    ignored: { 'gemini info notice': 4, 'gemini error notice': 3 },
  },
  {
    // user message, edit action + its observation, finish: 2 model responses.
    file: 'openhands/basic.json',
    format: 'openhands',
    tasks: [
      {
        messages: 4,
        tools: 1,
        llm: 2,
        title:
          'Please create a simple 2048 game. No need to run it. Please finish the interaction after your finis…',
        agent: 'openhands',
        started: '2025-01-27T22:44:56.900Z',
        ended: '2025-01-27T22:45:18.405Z',
        model: 'claude-3-5-sonnet-20241022',
        failedTools: 0,
      },
    ],
  },
  {
    // 3 user messages, 2 agent messages, finish: 3 replies, no tools.
    file: 'openhands/basic_interactions.json',
    format: 'openhands',
    tasks: [
      {
        messages: 6,
        tools: 0,
        llm: 3,
        title: "what's 1+1?",
        agent: 'openhands',
        started: '2025-02-01T00:14:10.787Z',
      },
    ],
  },
  {
    // user, read/run/read with their 3 observations, finish: 4 model responses.
    file: 'openhands/wrong_initial_state.json',
    format: 'openhands',
    tasks: [
      {
        messages: 8,
        tools: 3,
        llm: 4,
        title: 'Please rename game_2048.py to 2048.py',
        agent: 'openhands',
        started: '2025-01-27T23:16:50.239Z',
        failedTools: 0,
      },
    ],
  },
  {
    // A hand-written task in Cline's on-disk format (see test/fixtures/real/README.md).
    // 16 history entries: 8 assistant (one tool_use each, metrics on each), 8 user. Six user
    // turns hold a tool_result (m2 m4 m6 m10 m12 m14); m8 is the resumption after the break,
    // so m7's ask_followup_question has no result: one failed record. The final
    // attempt_completion (m15) has none either, but it ends the task (Cline writes nothing
    // after it), so it is not a failure. Every user turn also carries
    // environment details → a user message. messages = 8 assistant + 6 tool + 8 user.
    file: 'cline/1762353105322/api_conversation_history.json',
    format: 'cline',
    tasks: [
      {
        messages: 22,
        tools: 8,
        llm: 8,
        title:
          'The "strips accents" test in src/slugify.test.ts fails. Fix slugify without breaking other tests.',
        agent: 'cline',
        // ui_messages.json: the task say (= the folder's id) and the final completion ask.
        started: '2025-11-05T14:31:45.322Z',
        ended: '2025-11-06T08:01:11.258Z',
        // Σ metrics.tokens prompt (9412 10841 11163 11739 12520 13204 14139 14412 = 97430)
        // + completion (118 74 236 142 183 201 69 163 = 1186) of the 8 replies.
        total_tokens: 98616,
        model: 'claude-sonnet-4-5-20250929',
        repository: 'example-user/slugkit',
        failedTools: 1,
      },
    ],
  },
  {
    // Lines before the first header: one request (a lint report), no reply. Run 19:33:02 has
    // no message (no task). Run 19:33:32: request + reply (Tokens: 5,244 sent, 604 received),
    // /diff and /ex ignored. Run 20:39:59: hi + reply (12,566 / 84) + an unanswered hi.
    file: 'aider/aider/.aider.chat.history.md',
    format: 'aider',
    tasks: [
      {
        messages: 1,
        tools: 0,
        llm: 0,
        title: '# Fix any errors below, if possible.',
        agent: 'aider',
        started: '2024-08-05T19:33:02.000Z',
      },
      {
        messages: 2,
        tools: 0,
        llm: 1,
        title: 'Use the Spinner instead of the inlined custom spinner',
        agent: 'aider',
        started: '2024-08-05T19:33:32.000Z',
        total_tokens: 5244 + 604,
        model: 'claude-3-5-sonnet-20240620',
        repository: 'aider',
      },
      {
        messages: 3,
        tools: 0,
        llm: 1,
        title: 'hi',
        agent: 'aider',
        started: '2024-08-05T20:39:59.000Z',
        total_tokens: 12566 + 84,
        model: 'gpt-4o-mini',
      },
    ],
    ignored: { 'aider slash command': 2, 'editor mode line': 1 },
  },
];

let root: string;
let store: ContextStore;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-session-formats-'));
  store = ContextStore.open(root);
});
afterAll(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('every message of the new formats is imported or reported', () => {
  it.each(CASES)('$file', async (c) => {
    const result = await importFile(store, realFixture(c.file));
    expect(result.format).toBe(c.format);
    expect(result.skipped).toEqual([]);
    if (c.ignored) expect(result.ignored).toMatchObject(c.ignored);
    expect(result.tasks).toHaveLength(c.tasks.length);
    c.tasks.forEach((want, i) => {
      const row = store.requireTask(result.tasks[i]!.uuid);
      expect({
        messages: row.total_messages,
        tools: row.tool_call_count,
        llm: row.llm_call_count,
        title: row.title,
        agent: row.agent,
        started: row.started_at,
      }).toEqual({
        messages: want.messages,
        tools: want.tools,
        llm: want.llm,
        title: want.title,
        agent: want.agent,
        started: want.started,
      });
      expect(row.created_at).toBe(want.started);
      if (want.ended) {
        expect(row.completed_at).toBe(want.ended);
        expect(row.updated_at).toBe(want.ended);
      }
      if (want.total_tokens !== undefined) expect(row.total_tokens).toBe(want.total_tokens);
      expect(row.total_tokens).toBeGreaterThan(0);
      if (want.model !== undefined) expect(row.model).toBe(want.model);
      if (want.repository !== undefined) expect(row.repository).toBe(want.repository);
      if (want.failedTools !== undefined) {
        const records = store.readTask(row.uuid).tools(0, 1000).records;
        expect(records).toHaveLength(want.tools);
        expect(records.filter((r) => r.status === 'error')).toHaveLength(want.failedTools);
      }
    });
  });
});

describe('cwb import in a real process', () => {
  it.each(CASES)('$file', (c) => {
    const contexts = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-import-one-'));
    try {
      const run = runCwb(['--contexts', contexts, 'import', realFixture(c.file), '--json']);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout) as {
        imported: { format: string; messages: number }[];
        failed: unknown[];
      };
      expect(out.failed).toEqual([]);
      expect(out.imported.map((t) => [t.format, t.messages])).toEqual(
        c.tasks.map((t) => [c.format, t.messages]),
      );
    } finally {
      fs.rmSync(contexts, { recursive: true, force: true });
    }
  });
});

describe('a failed or empty import creates no task', () => {
  it('an unrecognized document fails and leaves tasks.db as it was', async () => {
    const count = (): number =>
      (store.db.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number }).n;
    const before = count();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-bad-'));
    try {
      const bad = path.join(dir, 'notes.json');
      fs.writeFileSync(bad, JSON.stringify({ messages: [{ kind: 'x' }] }));
      await expect(importFile(store, bad)).rejects.toThrow(/cannot tell its format/);
      // A Gemini session with only notices: understood, nothing to import, no task.
      const empty = path.join(dir, 'session-empty.json');
      fs.writeFileSync(
        empty,
        JSON.stringify({
          sessionId: 's',
          projectHash: 'h',
          messages: [{ id: '1', type: 'info', content: 'hi' }],
        }),
      );
      await expect(importFile(store, empty)).rejects.toThrow(/no messages to import/);
      expect(count()).toBe(before);
      expect(fs.readdirSync(path.join(root, 'running'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the formats imported before carry the session facts too', () => {
  it.each([
    ['claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl', 'claude-code'],
    ['claude-code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl', 'claude-code'],
    ['codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl', 'codex'],
    ['swe-agent/pydicom__pydicom-1458.traj', 'swe-agent'],
    ['swe-agent/function_calling_simple.traj', 'swe-agent'],
  ])('%s: agent, tokens, title, times', async (name, agent) => {
    const file = realFixture(...name.split('/'));
    const stat = fs.statSync(file);
    const result = await importFile(store, file);
    expect(result.skipped).toEqual([]);
    for (const t of result.tasks) {
      const row = store.requireTask(t.uuid);
      expect(row.agent).toBe(agent);
      // Text or usage is there, so tokens are never 0 (function_calling_simple has no model_stats).
      expect(row.total_tokens).toBeGreaterThan(0);
      expect(row.title ?? '').not.toMatch(/^(\/|<|Caveat:)/);
      // The session's (or the file's) times, never the import's.
      expect(row.updated_at <= stat.mtime.toISOString()).toBe(true);
      expect(row.updated_at).toBe(row.completed_at);
    }
  });

  it('a Claude Code session gets the repository from its working directory', async () => {
    const result = await importFile(
      store,
      realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
    );
    const main = store.requireTask(result.tasks.find((t) => t.parent_uuid === null)!.uuid);
    expect([main.workdir, main.repository, main.agent]).toEqual([
      '/path/to/Demo',
      'Demo',
      'claude-code',
    ]);
    // The transcript names its branch ("gitBranch": "main" on every line): a column of its own.
    expect(main.git_branch).toBe('main');
  });
});
