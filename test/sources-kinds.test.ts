/**
 * Every source kind and the row of every synced task, against the real fixtures: each file
 * is copied into a temporary home at the agent's default folder, grown (appended to, cut
 * anywhere, or rewritten in place) and synced after each step, then synced once more when it
 * has been still; the synced task must then be what `cwb import` of the final file gives —
 * messages, tools.jsonl records (calls without a result too), title, times, model, usage,
 * working directory, repository, git branch, agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind, type SourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import { SourceSync } from '../src/core/sources/source-sync';
import { loadSourcesConfig } from '../src/core/sources/sources-config';
import { SyncStateRepository } from '../src/core/sources/sync-state';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { FILE_AGENT_CASES } from './support/file-agent-cases';
import { readView } from '../src/core/compaction/read-view';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();

export interface Case {
  kind: string;
  fixture: string[];
  /** Where the file goes below the temporary home (the kind's default folder + its layout). */
  at: (home: string) => string;
  /** The fixture cut to its first part, as the agent had written it earlier. */
  earlier?: (text: string) => string;
  /** Files copied beside it (Cline's ui_messages.json, task_metadata.json). */
  siblings?: string[];
  /** The folder configured for a kind that has no default one (Aider). */
  folder?: (home: string) => string;
  /** Appended to (Aider's history), not rewritten. */
  appended?: boolean;
  /** No message times in the file (Cursor): each store stamps them when it writes them. */
  untimed?: boolean;
}

const half = <T>(list: T[]): T[] => list.slice(0, Math.ceil(list.length / 2));
const vscode = (home: string, ext: string): string =>
  path.join(home, '.config', 'Code', 'User', 'globalStorage', ext, 'tasks', '1762353105322');

const halfJson =
  (
    pick: (doc: Record<string, unknown>) => unknown[],
    put: (doc: Record<string, unknown>, l: unknown[]) => unknown,
  ) =>
  (text: string): string => {
    const doc = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(put(doc, half(pick(doc))), null, 2);
  };
const geminiHalf = halfJson(
  (d) => d.messages as unknown[],
  (d, messages) => ({ ...d, messages }),
);
const listHalf = (text: string): string => JSON.stringify(half(JSON.parse(text) as unknown[]));

const CASES: Case[] = [
  ...['session-2025-12-06T07-22-e0f194ce.json', 'session-2025-12-30T01-16-3f9ce747.json'].map(
    (name): Case => ({
      kind: 'gemini-cli',
      fixture: ['gemini-cli', name],
      at: (home) => path.join(home, '.gemini', 'tmp', 'a1b2c3', 'chats', name),
      earlier: geminiHalf,
    }),
  ),
  {
    kind: 'gemini-cli',
    fixture: [
      'gemini-cli-jsonl',
      'acme-parser',
      'chats',
      'session-2026-11-20T09-00-7d3a1c52.jsonl',
    ],
    at: (home) =>
      path.join(
        home,
        '.gemini',
        'tmp',
        'acme-parser',
        'chats',
        'session-2026-11-20T09-00-7d3a1c52.jsonl',
      ),
    // Appended to: its first lines, as the CLI had written them (before its compression).
    earlier: (text) => text.split('\n').slice(0, 18).join('\n') + '\n',
  },
  ...(['cline', 'roo-code'] as const).map((kind): Case => ({
    kind,
    fixture: ['cline', '1762353105322', 'api_conversation_history.json'],
    at: (home) =>
      path.join(
        vscode(home, kind === 'cline' ? 'saoudrizwan.claude-dev' : 'rooveterinaryinc.roo-cline'),
        'api_conversation_history.json',
      ),
    earlier: listHalf,
    siblings: ['ui_messages.json', 'task_metadata.json'],
  })),
  ...['basic.json', 'basic_interactions.json', 'wrong_initial_state.json'].map((name): Case => ({
    kind: 'openhands',
    fixture: ['openhands', name],
    at: (home) => path.join(home, '.openhands', 'sessions', name),
    earlier: (text) => {
      const doc = JSON.parse(text) as unknown;
      return Array.isArray(doc) ? JSON.stringify(half(doc)) : JSON.stringify(doc); // other shapes are written once
    },
  })),
  ...[
    'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
    '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
  ].map((name): Case => ({
    kind: 'claude-code',
    fixture: ['claude-code', name],
    at: (home) => path.join(home, '.claude', 'projects', '-work-x', name),
  })),
  {
    kind: 'aider',
    fixture: ['aider', 'aider', '.aider.chat.history.md'],
    folder: (home) => path.join(home, 'src'),
    at: (home) => path.join(home, 'src', 'aider', '.aider.chat.history.md'),
    // Runs appended one after another: the last run arrives later.
    earlier: (text) => text.slice(0, text.lastIndexOf('# aider chat started at')),
    appended: true,
  },
  {
    kind: 'codex',
    fixture: ['codex', 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl'],
    at: (home) =>
      path.join(
        home,
        '.codex',
        'sessions',
        '2026',
        '05',
        '11',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
  },
  ...FILE_AGENT_CASES,
];

/** Rewrites a file whole through a temporary file and a rename, as Cline, Roo and Gemini save. */
function rewrite(file: string, text: string): void {
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

/** What must be equal between a synced task and the same session imported. */
interface Snapshot {
  row: Record<string, unknown>;
  messages: Record<string, unknown>[];
  tools: Record<string, unknown>[];
  /** The agent's own compactions: the same records, at the session's times (live flag aside). */
  summaries: Record<string, unknown>[];
}

function task(store: ContextStore, row: TaskRow): Snapshot {
  const dir = store.taskPath(row);
  return {
    row: {
      title: row.title,
      prompt: row.prompt,
      model: row.model,
      workdir: row.workdir,
      owner: row.owner,
      repo: row.repo,
      agent: row.agent,
      git_branch: row.git_branch,
      task_source: row.task_source,
      task_id: row.task_id,
      task_type: row.task_type,
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: row.completed_at,
      status: row.status,
      llm_call_count: row.llm_call_count,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_creation_tokens: row.cache_creation_tokens,
      cache_read_tokens: row.cache_read_tokens,
      total_tokens: row.total_tokens,
      total_messages: row.total_messages,
      total_tool_calls: row.total_tool_calls,
    },
    messages: lines(path.join(dir, 'messages.jsonl')).map((m) => ({
      role: m.role,
      content: m.content,
      tool_calls: m.tool_calls,
      tool_call_id: m.tool_call_id,
      tool_name: m.tool_name,
      kind: m.kind,
      timestamp: m.timestamp,
    })),
    tools: lines(path.join(dir, 'tools.jsonl')).map((t) => ({
      error: t.error,
      tool: t.tool,
      args: t.args,
      status: t.status,
      tool_call_id: t.tool_call_id,
      duration_ms: t.duration_ms,
    })),
    summaries: lines(path.join(dir, 'summaries.jsonl')).map(({ live: _live, ...rest }) => rest),
  };
}

/** The file has been still for a minute: its last reply is complete, its open calls unanswered. */
function quiet(file: string): void {
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(file, past, past);
}

function tasksOf(store: ContextStore): TaskRow[] {
  return store
    .listTasks({ limit: 100 })
    .rows.sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.title!.localeCompare(b.title!),
    );
}

describe('source kinds of every agent, against the real fixtures', () => {
  for (const c of CASES) {
    it(`${c.kind} ${c.fixture.at(-1)}: found in the default folder, grown in place, synced as imported`, async () => {
      const root = tempDir();
      const home = path.join(root, 'home');
      const kind: SourceKind = sourceKind(c.kind)!;
      expect(kind).toBeDefined();
      const env = { HOME: home };
      const file = c.at(home);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const source = realFixture(...c.fixture);
      for (const sibling of c.siblings ?? [])
        fs.copyFileSync(
          path.join(path.dirname(source), sibling),
          path.join(path.dirname(file), sibling),
        );
      const text = fs.readFileSync(source, 'utf8');
      const live = ContextStore.open(path.join(root, 'live'));
      const folders = (c.folder ? [c.folder(home)] : kind.defaultFolders(env)).filter((f) =>
        fs.existsSync(f),
      );
      expect(folders).toHaveLength(1);

      if (c.earlier) {
        if (c.appended) fs.writeFileSync(file, c.earlier(text));
        else rewrite(file, c.earlier(text));
        expect(await discoverFiles(kind, folders[0]!)).toEqual([file]);
        expect((await syncFile(live, kind, file)).status).toBe('synced');
      }
      if (kind.reader.mode === 'jsonl') {
        // Appended: the first half of its lines (a response may be cut in two), then the rest.
        const all = text.split('\n');
        const cut = Math.ceil(all.length / 2);
        fs.writeFileSync(file, all.slice(0, cut).join('\n') + '\n');
        expect(await discoverFiles(kind, folders[0]!)).toEqual([file]);
        await syncFile(live, kind, file);
        fs.writeFileSync(file, text);
      } else if (c.appended)
        fs.appendFileSync(file, Buffer.from(text).subarray(fs.statSync(file).size));
      else rewrite(file, text);
      expect((await syncFile(live, kind, file)).status).toBe('synced');
      // A rewrite with the same content adds nothing.
      if (!c.appended) rewrite(file, fs.readFileSync(file, 'utf8'));
      else fs.utimesSync(file, new Date(), new Date());
      const again = await syncFile(live, kind, file);
      expect(again.messages).toBe(0);
      // Still for a while: the last reply is complete, calls without a result are recorded.
      quiet(file);
      await syncFile(live, kind, file);
      expect((await syncFile(live, kind, file)).status).toBe('unchanged');

      const imported = ContextStore.open(path.join(root, 'imported'));
      await importFile(imported, file, { format: c.kind === 'roo-code' ? 'roo-code' : 'auto' });
      const synced = tasksOf(live).map((r) => task(live, r));
      const expected = tasksOf(imported).map((r) => task(imported, r));
      expect(synced.length).toBeGreaterThan(0);
      // Aider's history has no message times: each store stamps them when it writes them.
      const times = (m: Record<string, unknown>): Record<string, unknown> =>
        c.kind === 'aider' || c.untimed ? { ...m, timestamp: undefined } : m;
      expect(synced.map((t) => t.messages.map(times))).toEqual(
        expected.map((t) => t.messages.map(times)),
      );
      // Without message times, a task's times are its file's, read by each store at another
      // moment of a file that grew (Cursor).
      const rowTimes = (r: Record<string, unknown>): Record<string, unknown> =>
        c.untimed ? { ...r, created_at: 0, started_at: 0, completed_at: 0 } : r;
      expect(synced.map((t) => rowTimes(t.row))).toEqual(expected.map((t) => rowTimes(t.row)));
      // Calls never answered are recorded once the agent moves on or the file is still
      // (import: at the file's end).
      const order = (tools: unknown[]): unknown[] =>
        [...tools].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      expect(synced.map((t) => order(t.tools))).toEqual(expected.map((t) => order(t.tools)));
      expect(synced.map((t) => t.summaries)).toEqual(expected.map((t) => t.summaries));
      for (const t of synced) {
        const row = t.row as { total_tokens: number; agent: string; title: string | null };
        expect(row.total_tokens).toBeGreaterThan(0);
        expect(row.agent).toBe(c.kind);
        expect(row.title).toBeTruthy();
      }
      live.close();
      imported.close();
    });
  }
});

const store0 = (store: ContextStore): TaskRow => store.listTasks({ limit: 10 }).rows[0]!;

/** summaries.jsonl of a store's only task, without the times of writing and the live flag. */
function summaries(store: ContextStore): Record<string, unknown>[] {
  const row = store.listTasks({ limit: 10 }).rows[0]!;
  return lines(path.join(store.taskPath(row), 'summaries.jsonl')).map((s) => {
    const { created_at: _c, timestamp: _t, live: _l, ...rest } = s;
    return rest;
  });
}

describe('an agent compacting its own context in a live session', () => {
  it('Claude Code: the compaction becomes a summaries.jsonl record, as on import, even when synced in pieces', async () => {
    const root = tempDir();
    const dir = path.join(root, 'home', '.claude', 'projects', '-w');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'sess-c.jsonl');
    let n = 0;
    const entry = (fields: Record<string, unknown>): string =>
      JSON.stringify({
        uuid: `u${++n}`,
        sessionId: 'sess-c',
        cwd: '/w/repo',
        isSidechain: false,
        timestamp: new Date(Date.UTC(2026, 10, 25, 12, 0, n)).toISOString(),
        ...fields,
      });
    const user = (text: string, extra: Record<string, unknown> = {}): string =>
      entry({ type: 'user', message: { role: 'user', content: text }, ...extra });
    const reply = (text: string): string =>
      entry({
        type: 'assistant',
        message: {
          id: `msg${n}`,
          role: 'assistant',
          model: 'claude-x',
          content: [{ type: 'text', text }],
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      });
    const before = [
      user('fix the parser'),
      reply('Looking at it.'),
      user('and the tests'),
      reply('Done.'),
    ];
    const after = [
      entry({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 12345 },
      }),
      user('This session is being continued. Summary: the parser was fixed.', {
        isCompactSummary: true,
      }),
      user('now the docs'),
      reply('Docs updated.'),
    ];
    fs.writeFileSync(file, before.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('claude-code')!;
    await syncFile(live, kind, file);
    fs.appendFileSync(file, after.join('\n') + '\n');
    await syncFile(live, kind, file);
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);

    const got = summaries(live);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      strategy: 'claude-code-compact',
      start_seq: 1,
      end_seq: 4,
      trigger: 'auto',
      pre_tokens: 12345,
    });
    expect(got).toEqual(summaries(imported));
    const [liveRow] = live.listTasks({ limit: 10 }).rows;
    const [importedRow] = imported.listTasks({ limit: 10 }).rows;
    expect(liveRow).toMatchObject({
      total_summaries: 1,
      compression_count: importedRow!.compression_count,
    });
    live.close();
    imported.close();
  });

  it('Codex: a compacted entry becomes a summaries.jsonl record and the kept messages, as on import', async () => {
    const root = tempDir();
    const dir = path.join(root, 'home', '.codex', 'sessions', '2026', '11', '25');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'rollout-2026-11-25-c.jsonl');
    let n = 0;
    const line = (type: string, payload: Record<string, unknown>): string =>
      JSON.stringify({
        timestamp: new Date(Date.UTC(2026, 10, 25, 12, 0, ++n)).toISOString(),
        type,
        payload,
      });
    const message = (role: string, text: string): Record<string, unknown> => ({
      type: 'message',
      role,
      content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
    });
    const before = [
      line('session_meta', { id: 'sess-x', cwd: '/w/repo', timestamp: '2026-11-25T11:59:00Z' }),
      line('response_item', message('user', 'fix the parser')),
      line('response_item', message('assistant', 'Looking at it.')),
    ];
    const after = [
      line('compacted', {
        message: 'The parser was fixed.',
        replacement_history: [
          message('user', 'fix the parser'),
          message('user', 'Summary so far: The parser was fixed.'),
        ],
      }),
      line('response_item', message('user', 'now the docs')),
      line('response_item', message('assistant', 'Docs updated.')),
    ];
    fs.writeFileSync(file, before.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('codex')!;
    await syncFile(live, kind, file);
    fs.appendFileSync(file, after.join('\n') + '\n');
    await syncFile(live, kind, file);
    quiet(file);
    await syncFile(live, kind, file);
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    expect(summaries(live)).toHaveLength(1);
    expect(summaries(live)).toEqual(summaries(imported));
    const shown = (store: ContextStore): unknown[] =>
      task(store, store.listTasks({ limit: 10 }).rows[0]!).messages.map((m) => [
        m.role,
        m.kind,
        m.content,
      ]);
    expect(shown(live)).toEqual(shown(imported));
    live.close();
    imported.close();
  });

  it('Codex: a context_compacted event whose compacted item is not in the file is a record saying so, as on import', async () => {
    // The real rollout with the event Codex writes when it compacts, here alone (its item lost),
    // after the first answer, before the next request; synced cut right after it.
    const name = 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl';
    const rows = fs.readFileSync(realFixture('codex', name), 'utf8').trimEnd().split('\n');
    const at = (JSON.parse(rows[31]!) as { timestamp: string }).timestamp;
    const event = JSON.stringify({
      timestamp: at,
      type: 'event_msg',
      payload: { type: 'context_compacted' },
    });
    const root = tempDir();
    const dir = path.join(root, 'home', '.codex', 'sessions', '2026', '05', '11');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    fs.writeFileSync(file, [...rows.slice(0, 32), event].join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    const kind = sourceKind('codex')!;
    await syncFile(live, kind, file);
    fs.appendFileSync(file, rows.slice(32).join('\n') + '\n');
    await syncFile(live, kind, file);
    quiet(file);
    await syncFile(live, kind, file);
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    const records = summaries(imported);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ summary: '', strategy: 'codex-compact' });
    expect(String(records[0]!.note)).toMatch(/context_compacted event without a compacted item/);
    expect((records[0]!.replaced_seqs as number[]).length).toBeGreaterThan(15);
    // Only the instructions stay: what Codex kept besides them is not in the file.
    expect(records[0]!.plan).toEqual([{ seq: 1 }]);
    expect(summaries(live)).toEqual(records);
    const current = (store: ContextStore): unknown[] =>
      readView(store.taskPath(store.listTasks({ limit: 10 }).rows[0]!)).view.map(
        (e) => e.message.content,
      );
    expect(current(live)).toEqual(current(imported));
    // The instructions, then the next request: nothing from before the event.
    const request = (JSON.parse(rows[32]!) as { payload: { message: string } }).payload.message;
    expect(current(imported).slice(0, 2)).toEqual([
      expect.stringMatching(/^You are Codex/),
      request,
    ]);
    expect(task(live, store0(live)).messages).toEqual(task(imported, store0(imported)).messages);
    live.close();
    imported.close();
  });
});

describe('Codex archiving a session', () => {
  it('a rollout moved to archived_sessions/ is found there and goes on in its task, as imported', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const name = 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl';
    const text = fs.readFileSync(realFixture('codex', name), 'utf8');
    const all = text.split('\n');
    const active = path.join(home, '.codex', 'sessions', '2026', '05', '11', name);
    fs.mkdirSync(path.dirname(active), { recursive: true });
    fs.writeFileSync(active, all.slice(0, Math.ceil(all.length / 2)).join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    const sync = new SourceSync(live, loadSourcesConfig({ file: null, env: { HOME: home } }));
    const codex = (): SourceSync['config']['sources'][number] =>
      sync.config.sources.find((s) => s.id === 'codex')!;
    expect(codex().folders).toEqual([
      path.join(home, '.codex', 'sessions'),
      path.join(home, '.codex', 'archived_sessions'),
    ]);
    await sync.syncAll('codex');

    // Codex archives it: moved (same bytes), and it may still grow there.
    const archived = path.join(home, '.codex', 'archived_sessions', name);
    fs.mkdirSync(path.dirname(archived), { recursive: true });
    fs.renameSync(active, archived);
    fs.writeFileSync(archived, text);
    quiet(archived);
    const results = await sync.syncAll('codex');
    expect(results.map((r) => [r.path, r.status])).toEqual([[archived, 'synced']]);
    expect(new SyncStateRepository(live.db).list('codex').map((r) => r.path)).toEqual([archived]);

    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, archived);
    expect(tasksOf(live).map((r) => task(live, r))).toEqual(
      tasksOf(imported).map((r) => task(imported, r)),
    );
    live.close();
    imported.close();
  });
});

describe('Claude Code 2.1', () => {
  const SESSION = '7f3c2a10-5b8e-4c1d-9a2f-3e4d5c6b7a81';
  const PROJECT = '-home-dev-acme-parser--claude-worktrees-fix-slug';

  it('a worktree session, its subagent file, a spilled output and the bookkeeping entries: synced as imported', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const projects = path.join(home, '.claude', 'projects');
    fs.cpSync(realFixture('claude-code-2.1', PROJECT), path.join(projects, PROJECT), {
      recursive: true,
    });
    const main = path.join(projects, PROJECT, `${SESSION}.jsonl`);
    const agent = path.join(
      projects,
      PROJECT,
      SESSION,
      'subagents',
      'agent-a1b2c3d4e5f6a7b89.jsonl',
    );
    quiet(main);
    quiet(agent);
    const live = ContextStore.open(path.join(root, 'live'));
    const sync = new SourceSync(live, loadSourcesConfig({ file: null, env: { HOME: home } }));
    const results = await sync.syncAll('claude-code');
    expect(results.map((r) => [path.basename(r.path), r.status])).toEqual([
      [`${SESSION}.jsonl`, 'synced'],
      ['agent-a1b2c3d4e5f6a7b89.jsonl', 'synced'],
    ]);

    const imported = ContextStore.open(path.join(root, 'imported'));
    const main1 = await importFile(imported, main);
    const agent1 = await importFile(imported, agent);
    const synced = tasksOf(live).map((r) => task(live, r));
    const expected = tasksOf(imported).map((r) => task(imported, r));
    expect(synced).toEqual(expected);

    const [session, subagent] = tasksOf(live);
    // The last ai-title is the title; the worktree belongs to its repository.
    expect(session).toMatchObject({
      title: 'Fix slugify for accented titles and check README',
      repo: 'acme-parser',
      workdir: '/home/dev/acme-parser/.claude/worktrees/fix-slug',
      git_branch: 'worktree-fix-slug',
    });
    // The subagent: titled from its own meta.json, under its session.
    expect(subagent).toMatchObject({
      title: 'Subagent: Find slugify callers',
      task_type: 'subagent',
      parent_uuid: session!.uuid,
    });
    const [s] = synced;
    // The prompt typed while the model worked is a user turn, where the model read it.
    expect(s!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'Fix the slugify bug: titles with accents give empty slugs. Run the tests first.',
      'also check the README example',
    ]);
    // The model saw the preview; the tool record holds the full output saved beside the session.
    const spilled = fs.readFileSync(
      path.join(projects, PROJECT, SESSION, 'tool-results', 'b8k2m4n6p.txt'),
      'utf8',
    );
    const bash = s!.messages.find((m) => m.tool_call_id === 'toolu_01Xa9')!;
    expect(bash.content).toContain('<persisted-output>');
    expect(bash.content).not.toContain('Test Files  1 failed');
    const record = lines(path.join(live.taskPath(session!), 'tools.jsonl')).find(
      (t) => t.tool_call_id === 'toolu_01Xa9',
    )!;
    expect(record.result).toBe(spilled);
    // Every entry accounted for: the bookkeeping ones reported as ignored, none skipped.
    expect(main1.skipped).toEqual([]);
    expect(main1.ignored).toMatchObject({
      'permission-mode': 1,
      'file-history-snapshot': 1,
      'attachment:hook_success': 1,
      'queue-operation': 2,
      'pr-link': 1,
      'last-prompt': 1,
      mode: 1,
    });
    expect(agent1.skipped).toEqual([]);
    live.close();
    imported.close();
  });
});

describe('Codex 0.121: a subagent thread and the newer items', () => {
  const PARENT = 'rollout-2026-11-21T10-02-00-019ab3c1-7e2a-7d40-9c11-5f6a7b8c9d01.jsonl';
  const CHILD = 'rollout-2026-11-21T10-03-12-019ab3c4-0b6d-7a12-8e33-1a2b3c4d5e6f.jsonl';

  it('the spawned thread is a subagent task under its parent; apply_patch, MCP and web search calls recorded; synced as imported', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const dir = path.join(home, '.codex', 'sessions', '2026', '11', '21');
    fs.mkdirSync(dir, { recursive: true });
    for (const name of [PARENT, CHILD]) {
      fs.copyFileSync(realFixture('codex-subagents', name), path.join(dir, name));
      quiet(path.join(dir, name));
    }
    const live = ContextStore.open(path.join(root, 'live'));
    const sync = new SourceSync(live, loadSourcesConfig({ file: null, env: { HOME: home } }));
    expect((await sync.syncAll('codex')).map((r) => r.status)).toEqual(['synced', 'synced']);

    const imported = ContextStore.open(path.join(root, 'imported'));
    const reports = [];
    for (const name of [PARENT, CHILD])
      reports.push(await importFile(imported, path.join(dir, name)));
    expect(tasksOf(live).map((r) => task(live, r))).toEqual(
      tasksOf(imported).map((r) => task(imported, r)),
    );

    const [parent, child] = tasksOf(live);
    expect(parent).toMatchObject({ task_type: '', parent_uuid: null, repo: 'parser' });
    expect(child).toMatchObject({
      title: 'Subagent: Hypatia (explorer)',
      task_type: 'subagent',
      parent_uuid: parent!.uuid,
      task_id: '019ab3c4-0b6d-7a12-8e33-1a2b3c4d5e6f',
    });
    const tools = lines(path.join(live.taskPath(parent!), 'tools.jsonl'));
    expect(tools.map((t) => [t.tool, t.status])).toEqual([
      ['spawn_agent', 'success'],
      ['apply_patch', 'success'],
      ['mcp__docs__search', 'success'],
      ['web_search', 'success'],
      // Interrupted (turn_aborted): never answered.
      ['shell', 'error'],
    ]);
    // The events that repeat items, and the interruption, are accounted for as ignored.
    expect(reports[0]!.skipped).toEqual([]);
    expect(reports[0]!.ignored).toMatchObject({
      'event_msg:mcp_tool_call_begin': 1,
      'event_msg:mcp_tool_call_end': 1,
      'event_msg:web_search_begin': 1,
      'event_msg:web_search_end': 1,
      'event_msg:turn_aborted': 1,
    });
    live.close();
    imported.close();
  });

  it('a model changed between turns names the replies of the new model, on import and in a sync alike', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const dir = path.join(home, '.codex', 'sessions', '2026', '11', '21');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(realFixture('codex-subagents', PARENT), path.join(dir, PARENT));
    quiet(path.join(dir, PARENT));
    const live = ContextStore.open(path.join(root, 'live'));
    const sync = new SourceSync(live, loadSourcesConfig({ file: null, env: { HOME: home } }));
    await sync.syncAll('codex');
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, path.join(dir, PARENT));
    for (const store of [live, imported]) {
      const [row] = tasksOf(store);
      expect(row!.model).toBe('gpt-5.1-codex');
      const messages = lines(path.join(store.taskPath(row!), 'messages.jsonl'));
      // The second turn (line 23 of the rollout) runs on gpt-5.1-codex-max: its replies say
      // so; the first turn's replies, on the task's own model, carry no model of their own.
      const firstOfTurn2 = messages.findIndex(
        (m) => String(m.timestamp) >= '2026-11-21T10:03:09.657Z',
      );
      expect(firstOfTurn2).toBeGreaterThan(0);
      const replies = (from: number, to: number) =>
        messages.slice(from, to).filter((m) => m.role === 'assistant');
      expect(replies(0, firstOfTurn2).length).toBeGreaterThan(0);
      expect(replies(0, firstOfTurn2).every((m) => m.model === undefined)).toBe(true);
      expect(replies(firstOfTurn2, messages.length).length).toBeGreaterThan(0);
      expect(
        replies(firstOfTurn2, messages.length).every((m) => m.model === 'gpt-5.1-codex-max'),
      ).toBe(true);
      // Only replies name a model.
      expect(messages.filter((m) => m.role !== 'assistant' && m.model !== undefined)).toEqual([]);
    }
    live.close();
    imported.close();
  });
});
