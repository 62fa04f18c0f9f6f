/**
 * The accounting of every agent we read: each agent's fixtures are imported (`cwb import`)
 * and, where the agent is a source, laid out where the agent keeps them, found and synced;
 * then every message, tool call and tool result the fixture holds — counted straight from
 * the agent's format (test/support/fixture-counts.ts), never through our importers — is in
 * the tasks, or reported skipped with a reason; no task is empty; and the synced tasks are
 * the imported ones. The agents covered are counted and printed (issue 32's goal: ≥ 18).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import type { TaskRow } from '../src/shared/task-types';
import { CLINE_SDK_FILES, CLINE_SDK_ROOT, layClineSdkData } from './support/cline-sdk-data';
import { crushDb, crushRows, gooseDb, gooseRows, zedDb } from './support/agent-dbs';
import * as count from './support/fixture-counts';
import type { FixtureCounts } from './support/fixture-counts';
import { opencodeDbFrom } from './support/opencode-db';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();

interface AgentCase {
  agent: string;
  /** Lays the fixtures out in a home folder as the agent keeps them; returns the files `cwb import` is given. */
  lay: (home: string) => string[];
  /** The source folders to look in (default: the kind's own default folders); none: not a source. */
  folders?: (home: string) => string[];
  source: boolean;
  expected: () => FixtureCounts;
  /**
   * Fixture items the importer deliberately leaves out, counted in the report by kind
   * (`what`): accounted for when the report counts that kind.
   */
  ignored?: { what: string; covers: (item: string) => boolean }[];
}

const copy = (from: string, to: string): string => {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
  return to;
};
const F = realFixture;
const GOOSE_JSONL = '20250612_093015.jsonl';

const CLAUDE = [
  'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
  '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
];
const CLAUDE_21 = '-home-dev-acme-parser--claude-worktrees-fix-slug';
const CLAUDE_21_ID = '7f3c2a10-5b8e-4c1d-9a2f-3e4d5c6b7a81';
const CODEX = 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl';
const CODEX_SUB = [
  'rollout-2026-11-21T10-02-00-019ab3c1-7e2a-7d40-9c11-5f6a7b8c9d01.jsonl',
  'rollout-2026-11-21T10-03-12-019ab3c4-0b6d-7a12-8e33-1a2b3c4d5e6f.jsonl',
];
const GEMINI = ['session-2025-12-06T07-22-e0f194ce.json', 'session-2025-12-30T01-16-3f9ce747.json'];
const GEMINI_MAIN = 'session-2026-11-20T09-00-7d3a1c52.jsonl';
const GEMINI_SUB = ['7d3a1c52-9e4b-4f1a-8c2d-5b6e7f809a1b', 'codebase_investigator-3f9a2b.jsonl'];
const OPENHANDS = ['basic.json', 'basic_interactions.json', 'wrong_initial_state.json'];
const OPENHANDS_SESSION = '5f2b8c1d9e7a4b3c8d6e0f1a2b3c4d5e';
const PI_PROJECT = '--Users-badlogic-workspaces-pi-mono--';
const PI = '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl';
const COPILOT = '7c1e4a52-93d0-4b8e-a1f6-2d5c8e0b9f31';
const CURSOR_ID = 'b2e8c4f0-5d1a-4c39-8e7b-0a6f3d9c1e52';
const CURSOR = ['home-dev-src-notes-app', 'agent-transcripts', CURSOR_ID, `${CURSOR_ID}.jsonl`];
const QWEN = ['-home-dev-src-weather-cli', 'chats', '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36.jsonl'];
const DROID = ['-home-dev-src-ledger-api', '4d9a7c31-2e6b-4f08-b5d1-8c3e0a7f6b94'];
const AMP = 'T-0199e4c2-7a1b-7d3e-9f20-4b6c8a1e5d37.json';
const CONTINUE = '6e1f3b7a-24c9-4d85-a0b2-9c7e5f1d3a68.json';
const ZED = '0b8f6f0e-3c2a-4e59-b7f1-2a9d4c6e8b10.json';
const vscode = (home: string, ext: string, id: string): string =>
  path.join(home, '.config', 'Code', 'User', 'globalStorage', ext, 'tasks', id);
const share = (home: string, ...p: string[]): string => path.join(home, '.local', 'share', ...p);

const CLINE_TASKS = ['1762353105322', '1763991000000'];
// Cline also keeps its sessions since its SDK migration in ~/.cline/data (a session and its
// spawn_agent child); Roo Code only has the extension's tasks.
const clineSdkDir = (): string => F('cline-sdk', 'data', 'sessions', CLINE_SDK_ROOT);
const clineSdkFiles = (home: string): string[] => {
  const sessions = path.join(layClineSdkData(home), 'sessions', CLINE_SDK_ROOT);
  return CLINE_SDK_FILES.map((n) => path.join(sessions, n));
};
const clineCase = (agent: 'cline' | 'roo-code', ext: string): AgentCase => ({
  agent,
  source: true,
  lay: (home) => [
    ...CLINE_TASKS.map((id) =>
      path.join(copy(F('cline', id), vscode(home, ext, id)), 'api_conversation_history.json'),
    ),
    ...(agent === 'cline' ? clineSdkFiles(home) : []),
  ],
  expected: () =>
    count.countAll([
      ...CLINE_TASKS.map((id) => () => count.cline(F('cline', id))),
      ...(agent === 'cline'
        ? CLINE_SDK_FILES.map((n) => () => count.clineSdk(path.join(clineSdkDir(), n)))
        : []),
    ]),
});

const CASES: AgentCase[] = [
  {
    agent: 'claude-code',
    source: true,
    lay: (home) => {
      const projects = path.join(home, '.claude', 'projects');
      const files = CLAUDE.map((n) => copy(F('claude-code', n), path.join(projects, '-work-x', n)));
      const dir = copy(F('claude-code-2.1', CLAUDE_21), path.join(projects, CLAUDE_21));
      return [
        ...files,
        path.join(dir, `${CLAUDE_21_ID}.jsonl`),
        path.join(dir, CLAUDE_21_ID, 'subagents', 'agent-a1b2c3d4e5f6a7b89.jsonl'),
      ];
    },
    expected: () =>
      count.countAll([
        ...CLAUDE.map((n) => () => count.claudeCode(F('claude-code', n))),
        () => count.claudeCode(F('claude-code-2.1', CLAUDE_21, `${CLAUDE_21_ID}.jsonl`)),
        () =>
          count.claudeCode(
            F(
              'claude-code-2.1',
              CLAUDE_21,
              CLAUDE_21_ID,
              'subagents',
              'agent-a1b2c3d4e5f6a7b89.jsonl',
            ),
          ),
      ]),
  },
  {
    agent: 'codex',
    source: true,
    lay: (home) => {
      const day = (d: string): string =>
        path.join(home, '.codex', 'sessions', '2026', ...d.split('/'));
      return [
        copy(F('codex', CODEX), path.join(day('05/11'), CODEX)),
        ...CODEX_SUB.map((n) => copy(F('codex-subagents', n), path.join(day('11/21'), n))),
      ];
    },
    expected: () =>
      count.countAll([
        () => count.codex(F('codex', CODEX)),
        ...CODEX_SUB.map((n) => () => count.codex(F('codex-subagents', n))),
      ]),
  },
  {
    agent: 'gemini-cli',
    source: true,
    lay: (home) => {
      const tmp = path.join(home, '.gemini', 'tmp');
      const project = copy(F('gemini-cli-jsonl', 'acme-parser'), path.join(tmp, 'acme-parser'));
      return [
        ...GEMINI.map((n) => copy(F('gemini-cli', n), path.join(tmp, 'a1b2c3', 'chats', n))),
        path.join(project, 'chats', GEMINI_MAIN),
        path.join(project, 'chats', ...GEMINI_SUB),
      ];
    },
    expected: () =>
      count.countAll([
        ...GEMINI.map((n) => () => count.geminiJson(F('gemini-cli', n))),
        () => count.geminiJsonl(F('gemini-cli-jsonl', 'acme-parser', 'chats', GEMINI_MAIN)),
        () => count.geminiJsonl(F('gemini-cli-jsonl', 'acme-parser', 'chats', ...GEMINI_SUB)),
      ]),
  },
  clineCase('cline', 'saoudrizwan.claude-dev'),
  clineCase('roo-code', 'rooveterinaryinc.roo-cline'),
  {
    agent: 'openhands',
    source: true,
    lay: (home) => {
      const sessions = path.join(home, '.openhands', 'sessions');
      const dir = copy(
        F('openhands', 'sessions', OPENHANDS_SESSION),
        path.join(sessions, OPENHANDS_SESSION),
      );
      return [
        ...OPENHANDS.map((n) => copy(F('openhands', n), path.join(sessions, n))),
        path.join(dir, 'events', '0.json'),
      ];
    },
    expected: () =>
      count.countAll([
        ...OPENHANDS.map((n) => () => count.openhands(F('openhands', n))),
        () => count.openhands(F('openhands', 'sessions', OPENHANDS_SESSION, 'events')),
      ]),
  },
  {
    agent: 'swe-agent',
    source: false,
    lay: () => [
      F('swe-agent', 'pydicom__pydicom-1458.traj'),
      F('swe-agent', 'function_calling_simple.traj'),
    ],
    expected: () =>
      count.countAll(
        ['pydicom__pydicom-1458.traj', 'function_calling_simple.traj'].map(
          (n) => () => count.sweAgent(F('swe-agent', n)),
        ),
      ),
  },
  {
    agent: 'aider',
    source: true,
    folders: (home) => [path.join(home, 'src')],
    lay: (home) => [
      copy(
        F('aider', 'aider', '.aider.chat.history.md'),
        path.join(home, 'src', 'aider', '.aider.chat.history.md'),
      ),
    ],
    expected: () => count.aider(F('aider', 'aider', '.aider.chat.history.md')),
    // `/diff`, `/ex`: commands to Aider, not requests to the model.
    ignored: [{ what: 'aider slash command', covers: (t) => /^\/[a-z-]+\b/.test(t) }],
  },
  {
    agent: 'pi',
    source: true,
    lay: (home) => [
      copy(F('pi', PI_PROJECT, PI), path.join(home, '.pi', 'agent', 'sessions', PI_PROJECT, PI)),
    ],
    expected: () => count.pi(F('pi', PI_PROJECT, PI)),
  },
  {
    // OpenClaw runs Pi's agent and writes the same session files.
    agent: 'openclaw',
    source: true,
    lay: (home) => [
      copy(
        F('pi', PI_PROJECT, PI),
        path.join(home, '.openclaw', 'agents', 'main', 'sessions', 'd703a1a9.jsonl'),
      ),
    ],
    expected: () => count.pi(F('pi', PI_PROJECT, PI)),
  },
  {
    // The older JSON storage, one file per session, message and part.
    agent: 'opencode',
    source: true,
    lay: (home) => {
      const storage = copy(F('opencode', 'storage'), share(home, 'opencode', 'storage'));
      const dir = path.join(storage, 'session', '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750');
      // In the order opencode made them (the sub-agent's session after its parent's).
      const created = (f: string): number =>
        (JSON.parse(fs.readFileSync(f, 'utf8')) as { time: { created: number } }).time.created;
      return fs
        .readdirSync(dir)
        .map((n) => path.join(dir, n))
        .sort((a, b) => created(a) - created(b));
    },
    expected: () => count.opencodeStorage(F('opencode', 'storage')),
  },
  {
    // Kilo CLI keeps opencode's records in kilo.db.
    agent: 'kilo',
    source: true,
    lay: (home) => {
      fs.mkdirSync(share(home, 'kilo'), { recursive: true });
      return [opencodeDbFrom(F('opencode', 'storage'), path.join(share(home, 'kilo'), 'kilo.db'))];
    },
    expected: () => count.opencodeStorage(F('opencode', 'storage')),
  },
  {
    agent: 'copilot-cli',
    source: true,
    lay: (home) => [
      copy(
        F('copilot-cli', COPILOT, 'events.jsonl'),
        path.join(home, '.copilot', 'session-state', COPILOT, 'events.jsonl'),
      ),
    ],
    expected: () => count.copilotCli(F('copilot-cli', COPILOT, 'events.jsonl')),
    // A sub-agent's own events: its answer is the result of the task call that started it.
    ignored: [
      {
        what: 'copilot sub-agent event',
        covers: (item) =>
          count.copilotSubagentItems(F('copilot-cli', COPILOT, 'events.jsonl')).has(item),
      },
    ],
  },
  {
    agent: 'cursor',
    source: true,
    lay: (home) => [
      copy(F('cursor', ...CURSOR), path.join(home, '.cursor', 'projects', ...CURSOR)),
    ],
    expected: () => count.cursor(F('cursor', ...CURSOR)),
  },
  {
    agent: 'qwen-code',
    source: true,
    lay: (home) => [copy(F('qwen-code', ...QWEN), path.join(home, '.qwen', 'projects', ...QWEN))],
    expected: () => count.qwenCode(F('qwen-code', ...QWEN)),
  },
  {
    agent: 'crush',
    source: true,
    folders: (home) => [path.join(home, 'src', 'api')],
    lay: (home) => [crushDb(path.join(home, 'src', 'api', '.crush', 'crush.db'))],
    expected: () => count.crush(crushRows()),
  },
  {
    agent: 'amp',
    source: true,
    lay: (home) => [copy(F('amp', AMP), share(home, 'amp', 'threads', AMP))],
    expected: () => count.amp(F('amp', AMP)),
  },
  {
    agent: 'goose',
    source: true,
    // sessions.db (with a delegate's sub_agent session), and an older JSON Lines session
    // beside it (before Goose 1.10)
    lay: (home) => [
      gooseDb(share(home, 'goose', 'sessions', 'sessions.db'), ['sessions.json', 'delegate.json']),
      copy(F('goose', GOOSE_JSONL), share(home, 'goose', 'sessions', GOOSE_JSONL)),
    ],
    expected: () =>
      count.countAll([
        () => count.goose(gooseRows()),
        () => count.goose(gooseRows('delegate.json')),
        () => count.gooseJsonl(F('goose', GOOSE_JSONL)),
      ]),
  },
  {
    agent: 'continue',
    source: true,
    lay: (home) => [
      copy(F('continue', CONTINUE), path.join(home, '.continue', 'sessions', CONTINUE)),
    ],
    expected: () => count.continueSession(F('continue', CONTINUE)),
  },
  {
    agent: 'zed',
    source: true,
    lay: (home) => [zedDb(share(home, 'zed', 'threads', 'threads.db'))],
    expected: () => count.zedThread(F('zed', `${ZED}.zst`)),
  },
  {
    agent: 'droid',
    source: true,
    lay: (home) => {
      const dir = path.join(home, '.factory', 'sessions', DROID[0]!);
      copy(
        F('droid', DROID[0]!, `${DROID[1]}.settings.json`),
        path.join(dir, `${DROID[1]}.settings.json`),
      );
      return [
        copy(F('droid', DROID[0]!, `${DROID[1]}.jsonl`), path.join(dir, `${DROID[1]}.jsonl`)),
      ];
    },
    expected: () => count.droid(F('droid', DROID[0]!, `${DROID[1]}.jsonl`)),
  },
];

interface Stored {
  rows: TaskRow[];
  /** Per task: its messages as (role, content, call ids, answered id) and its tool records. */
  tasks: {
    title: string | null;
    task_id: string | null;
    /** The parent task's title: a subagent is under the same task whether imported or synced. */
    parent: string | null;
    messages: unknown[];
    tools: unknown[];
  }[];
  /** Tool call ids of the messages and tools.jsonl (a record without an id: a key of its own). */
  calls: Set<string>;
  results: Set<string>;
  texts: string;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

function stored(store: ContextStore, agent: string): Stored {
  const rows = store
    .listTasks({ limit: 500 })
    .rows.filter((r) => r.agent === agent)
    .sort(
      (a, b) =>
        (a.task_id ?? '').localeCompare(b.task_id ?? '') ||
        (a.title ?? '').localeCompare(b.title ?? ''),
    );
  const out: Stored = { rows, tasks: [], calls: new Set(), results: new Set(), texts: '' };
  const texts: string[] = [];
  const titles = new Map(rows.map((r) => [r.uuid, r.title]));
  for (const row of rows) {
    const messages = lines(path.join(store.taskPath(row), 'messages.jsonl'));
    const tools = lines(path.join(store.taskPath(row), 'tools.jsonl'));
    const calls = new Set<string>();
    for (const m of messages) {
      for (const c of (m.tool_calls as { id: string }[] | undefined) ?? []) {
        // A call is once in its task (a subagent's copy of its parent's history is not).
        expect(calls.has(c.id), `${agent}: call ${c.id} twice in ${row.title}`).toBe(false);
        calls.add(c.id);
      }
      if (m.role === 'tool' && typeof m.tool_call_id === 'string') out.results.add(m.tool_call_id);
      if (typeof m.content === 'string') texts.push(m.content);
    }
    // Executions only in tools.jsonl (SWE-agent's trajectory steps): each a call, and a
    // result when it has an output.
    tools.forEach((t, i) => {
      const id = typeof t.tool_call_id === 'string' ? t.tool_call_id : `${row.uuid}#${i}`;
      calls.add(id);
      if (t.result !== null || t.result_seq !== undefined) out.results.add(id);
    });
    for (const id of calls) out.calls.add(id);
    out.tasks.push({
      title: row.title,
      task_id: row.task_id,
      parent: row.parent_uuid === null ? null : (titles.get(row.parent_uuid) ?? '(elsewhere)'),
      // tools.jsonl is a log of executions: compared as a set (import and sync may write an
      // unanswered call's failure at different points).
      tools: tools.map((t) => JSON.stringify([t.tool, t.tool_call_id, t.status])).sort(),
      messages: messages.map((m) => [
        m.role,
        m.content,
        ((m.tool_calls as { id: string }[] | undefined) ?? []).map((c) => c.id),
        m.tool_call_id,
      ]),
    });
  }
  out.texts = squash(texts.join('\n'));
  return out;
}

interface Report {
  skips: string[];
  ignored: Record<string, number>;
}

/** Why an item that is not in the tasks is accounted for: a skip naming it, or an ignore kind of the case. */
function explained(c: AgentCase, report: Report, item: string): boolean {
  if (report.skips.some((s) => s.includes(item))) return true;
  return (c.ignored ?? []).some((i) => (report.ignored[i.what] ?? 0) > 0 && i.covers(item));
}

/**
 * Ids: each distinct one in the tasks or explained. Calls without an id: the tasks hold
 * exactly as many calls beyond the fixture's ids (their made-up ids), no more, no fewer.
 */
function accountIds(
  c: AgentCase,
  report: Report,
  expected: (string | null)[],
  got: Set<string>,
): { missing: string[]; extra: number } {
  const named = new Set(expected.filter((id): id is string => id !== null));
  const unnamed = expected.filter((id) => id === null).length;
  const missing = [...named].filter((id) => !got.has(id) && !explained(c, report, id));
  const extras = [...got].filter((id) => !named.has(id));
  if (extras.length !== unnamed) console.log('not in the fixture:', extras, 'id-less:', unnamed);
  const extra = extras.length - unnamed;
  return { missing, extra };
}

const covered: string[] = [];

afterAll(() => {
  console.log(`agents accounted for: ${covered.length} (${[...covered].sort().join(', ')})`);
});

describe('every agent: each message, tool call and tool result of its fixtures accounted for', () => {
  for (const c of CASES) {
    it(`${c.agent}: imported${c.source ? ' and synced' : ''}, nothing lost, no empty task`, async () => {
      const root = tempDir();
      const home = path.join(root, 'home');
      const files = c.lay(home);
      const expected = c.expected();

      const imported = ContextStore.open(path.join(root, 'imported'));
      const report: Report = { skips: [], ignored: {} };
      for (const f of files) {
        const result = await importFile(imported, f);
        for (const s of result.skipped) {
          expect(s.error.trim(), `${c.agent}: a skip without a reason`).not.toBe('');
          report.skips.push(`${s.item ?? ''} ${s.error}`);
        }
        for (const [what, n] of Object.entries(result.ignored))
          report.ignored[what] = (report.ignored[what] ?? 0) + n;
      }
      const got = stored(imported, c.agent);
      imported.close();

      expect(got.rows.length, `${c.agent}: no task`).toBeGreaterThan(0);
      for (const row of got.rows)
        expect(row.total_messages, `${c.agent}: empty task ${row.title}`).toBeGreaterThan(0);
      const texts = expected.messages.filter(
        (t) => !got.texts.includes(squash(t).slice(0, 80)) && !explained(c, report, t),
      );
      expect({
        calls: accountIds(c, report, expected.calls, got.calls),
        results: accountIds(c, report, expected.results, got.results),
        texts,
      }).toEqual({
        calls: { missing: [], extra: 0 },
        results: { missing: [], extra: 0 },
        texts: [],
      });

      if (c.source) {
        const kind = sourceKind(c.agent)!;
        expect(kind, `${c.agent} is a source kind`).toBeDefined();
        const live = ContextStore.open(path.join(root, 'live'));
        const found = new Set<string>();
        for (const folder of c.folders?.(home) ?? kind.defaultFolders({ HOME: home }))
          for (const f of await discoverFiles(kind, folder)) found.add(f);
        expect(found.size, `${c.agent}: nothing found in its folders`).toBeGreaterThan(0);
        // Against the order the agent writes them: a sub-agent's file before its parent's
        // (its task waits for the parent's, which takes it when it is made), then the rest.
        const order = [
          ...files.filter((f) => found.has(f)).reverse(),
          ...[...found].filter((f) => !files.includes(f)).sort(),
        ];
        for (const f of order) {
          const r = await syncFile(live, kind, f, { quietMs: 0 });
          expect(r.status, `${c.agent}: ${f}`).not.toBe('error');
        }
        const synced = stored(live, c.agent);
        live.close();
        expect(synced.tasks).toEqual(got.tasks);
      }
      covered.push(c.agent);
      console.log(
        `${c.agent}: ${files.length} file(s), ${got.rows.length} task(s); ` +
          `${expected.messages.length} messages, ${distinctCount(expected.calls)} tool calls, ` +
          `${distinctCount(expected.results)} tool results in the fixture` +
          (report.skips.length > 0 ? `; ${report.skips.length} skipped with a reason` : ''),
      );
    });
  }

  it('covers at least 18 agents', () => {
    expect(new Set(covered).size).toBeGreaterThanOrEqual(18);
  });
});

function distinctCount(ids: (string | null)[]): number {
  return new Set(ids.filter((id) => id !== null)).size + ids.filter((id) => id === null).length;
}
