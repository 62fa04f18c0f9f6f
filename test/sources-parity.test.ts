/**
 * Live sync against `cwb import` of the same file where a growing file makes it hard: a
 * response whose entries arrive in two syncs, the agent's own compaction synced after the
 * messages it replaced, calls of the last reply left without a result, and restarts or kills
 * in between. Each case ends with the whole file synced and quiet, and compares the task
 * with the imported one: messages (history-only flags too), current.jsonl, tools.jsonl,
 * summaries.jsonl and the row's counts and usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile, importPaths } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind } from '../src/core/sources/source-kinds';
import { SourceSync } from '../src/core/sources/source-sync';
import { parseSourcesConfig } from '../src/core/sources/sources-config';
import { syncFile } from '../src/core/sources/sync-file';
import { SyncStateRepository } from '../src/core/sources/sync-state';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const claude = sourceKind('claude-code')!;
const codex = sourceKind('codex')!;
const cline = sourceKind('cline')!;

/** Everything of a task that live sync must give as import does. */
function snapshot(store: ContextStore, row: TaskRow): Record<string, unknown> {
  const dir = store.taskPath(row);
  const sorted = (list: unknown[]): unknown[] =>
    [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    row: {
      title: row.title,
      task_type: row.task_type,
      llm_call_count: row.llm_call_count,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_creation_tokens: row.cache_creation_tokens,
      cache_read_tokens: row.cache_read_tokens,
      total_tokens: row.total_tokens,
      total_messages: row.total_messages,
      total_tool_calls: row.total_tool_calls,
      total_summaries: row.total_summaries,
      compression_count: row.compression_count,
      final_message_count: row.final_message_count,
      final_token_count: row.final_token_count,
    },
    messages: lines(path.join(dir, 'messages.jsonl')).map((m) => {
      const { tokens: _t, token_counter: _c, ...rest } = m;
      return rest;
    }),
    current: lines(path.join(dir, 'current.jsonl')),
    tools: sorted(
      lines(path.join(dir, 'tools.jsonl')).map((t) => {
        const { seq: _s, ...rest } = t;
        return rest;
      }),
    ),
    summaries: lines(path.join(dir, 'summaries.jsonl')).map((s) => {
      const { created_at: _c, timestamp: _t, live: _l, ...rest } = s;
      return rest;
    }),
  };
}

function tasks(store: ContextStore): Record<string, unknown>[] {
  return store
    .listTasks({ limit: 100 })
    .rows.sort((a, b) => a.created_at.localeCompare(b.created_at))
    .map((r) => snapshot(store, r));
}

/** The file has been still for a minute: the next sync takes its last reply as complete. */
function quiet(file: string): void {
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(file, past, past);
}

async function imported(root: string, file: string): Promise<Record<string, unknown>[]> {
  const store = ContextStore.open(path.join(root, `imported-${path.basename(file)}`));
  try {
    await importFile(store, file);
    return tasks(store);
  } finally {
    store.close();
  }
}

/** A Claude Code session written entry by entry. */
function claudeSession(sessionId: string): {
  entry(fields: Record<string, unknown>): string;
  user(content: unknown, extra?: Record<string, unknown>): string;
  part(id: string, block: Record<string, unknown>, output: number, stop?: string): string;
} {
  let n = 0;
  const entry = (fields: Record<string, unknown>): string =>
    JSON.stringify({
      uuid: `${sessionId}-u${++n}`,
      sessionId,
      cwd: '/w/repo',
      isSidechain: false,
      timestamp: new Date(Date.UTC(2026, 10, 25, 12, 0, n)).toISOString(),
      ...fields,
    });
  return {
    entry,
    user: (content, extra = {}) =>
      entry({ type: 'user', message: { role: 'user', content }, ...extra }),
    // One content block of a response, as Claude Code writes them: one entry each, the
    // response's usage repeated and growing.
    part: (id, block, output, stop) =>
      entry({
        type: 'assistant',
        requestId: `req-${id}`,
        message: {
          id,
          role: 'assistant',
          model: 'claude-x',
          content: [block],
          stop_reason: stop ?? null,
          usage: {
            input_tokens: 100,
            output_tokens: output,
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 10,
          },
        },
      }),
  };
}

function claudeFile(root: string, name: string): string {
  const dir = path.join(root, 'home', '.claude', 'projects', '-w-repo');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

describe('a Claude Code response whose entries arrive in two syncs', () => {
  const response = (s: ReturnType<typeof claudeSession>): string[] => [
    s.user('fix the parser'),
    s.part('msg_1', { type: 'thinking', thinking: 'Where is the parser?' }, 3),
    s.part('msg_1', { type: 'text', text: 'Let me look at it.' }, 8),
    // ← a sync falls here
    s.part(
      'msg_1',
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'src/p.ts' } },
      40,
    ),
    s.user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const p = 1;' }]),
    s.part('msg_2', { type: 'text', text: 'The parser is fine.' }, 12),
  ];

  it('is one assistant message with its tool call and one usage, as on import', async () => {
    const root = tempDir();
    const file = claudeFile(root, 'split.jsonl');
    const all = response(claudeSession('split'));
    const live = ContextStore.open(path.join(root, 'live'));
    fs.writeFileSync(file, all.slice(0, 3).join('\n') + '\n');
    await syncFile(live, claude, file);
    // The response may still grow: nothing of it is written yet.
    const [row] = live.listTasks({ limit: 10 }).rows;
    expect(lines(path.join(live.taskPath(row!), 'messages.jsonl')).map((m) => m.role)).toEqual([
      'user',
    ]);
    fs.appendFileSync(file, all.slice(3).join('\n') + '\n');
    await syncFile(live, claude, file);
    quiet(file);
    await syncFile(live, claude, file);
    const got = tasks(live);
    live.close();
    expect(got).toEqual(await imported(root, file));
    const messages = got[0]!.messages as { role: string; tool_calls?: unknown[] }[];
    expect(messages.filter((m) => m.role === 'assistant' && m.tool_calls)).toHaveLength(1);
  });

  it('the last response of a quiet file is written once the file has been still', async () => {
    const root = tempDir();
    const file = claudeFile(root, 'last.jsonl');
    const all = response(claudeSession('last'));
    fs.writeFileSync(file, all.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    await syncFile(live, claude, file);
    const count = (): number => live.listTasks({ limit: 1 }).rows[0]!.total_messages;
    const before = count();
    // A later sync of a file that has not grown and has been still finalizes it.
    quiet(file);
    const done = await syncFile(live, claude, file);
    expect(done.messages).toBe(1);
    expect(count()).toBe(before + 1);
    expect((await syncFile(live, claude, file)).status).toBe('unchanged');
    const got = tasks(live);
    live.close();
    expect(got).toEqual(await imported(root, file));
  });

  it('held entries survive restarts and a kill before the commit: every message once', async () => {
    const root = tempDir();
    const file = claudeFile(root, 'kill.jsonl');
    const all = response(claudeSession('kill'));
    const contexts = path.join(root, 'live');
    fs.writeFileSync(file, all.slice(0, 3).join('\n') + '\n');
    let live = ContextStore.open(contexts);
    await syncFile(live, claude, file);
    live.close();
    // A restart: nothing of the held response lives outside the file and tasks.db.
    live = ContextStore.open(contexts);
    fs.appendFileSync(file, all.slice(3, 5).join('\n') + '\n');
    const killed = await syncFile(live, claude, file, {
      beforeCommit: () => {
        throw new Error('killed');
      },
    });
    expect(killed.status).toBe('error');
    const repo = new SyncStateRepository(live.db);
    repo.update(file, { lease_pid: 2 ** 22 + 17 });
    live.close();
    live = ContextStore.open(contexts);
    fs.appendFileSync(file, all.slice(5).join('\n') + '\n');
    await syncFile(live, claude, file);
    quiet(file);
    await syncFile(live, claude, file);
    const got = tasks(live);
    live.close();
    expect(got).toEqual(await imported(root, file));
  });
});

describe("an agent's own compaction synced after the messages it replaced", () => {
  it('Claude Code: the earlier messages become history-only, as on import', async () => {
    const root = tempDir();
    const file = claudeFile(root, 'compact.jsonl');
    const s = claudeSession('compact');
    const before = [
      s.user('fix the parser'),
      s.part('msg_a', { type: 'text', text: 'Looking at it.' }, 5, 'end_turn'),
      s.user('and the tests'),
      s.part('msg_b', { type: 'text', text: 'Done.' }, 5, 'end_turn'),
    ];
    const after = [
      s.entry({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 12345 },
      }),
      s.user('This session is being continued. Summary: the parser was fixed.', {
        isCompactSummary: true,
      }),
      s.user('now the docs'),
      s.part('msg_c', { type: 'text', text: 'Docs updated.' }, 5, 'end_turn'),
    ];
    fs.writeFileSync(file, before.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    await syncFile(live, claude, file);
    fs.appendFileSync(file, after.join('\n') + '\n');
    await syncFile(live, claude, file);
    quiet(file);
    await syncFile(live, claude, file);
    const got = tasks(live);
    live.close();
    const want = await imported(root, file);
    expect(got).toEqual(want);
    const flags = (got[0]!.messages as { history_only?: boolean }[]).map(
      (m) => m.history_only === true,
    );
    expect(flags).toEqual([true, true, true, true, false, false, false]);
  });

  it('Codex: the messages before a compacted entry become history-only; the instructions stay', async () => {
    const root = tempDir();
    const dir = path.join(root, 'home', '.codex', 'sessions', '2026', '11', '25');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'rollout-2026-11-25-compact.jsonl');
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
      line('session_meta', {
        id: 'sess-x',
        cwd: '/w/repo',
        timestamp: '2026-11-25T11:59:00Z',
        base_instructions: { text: 'You are Codex.' },
      }),
      line('response_item', message('user', 'fix the parser')),
      line('response_item', message('assistant', 'Looking at it.')),
      line('response_item', message('user', 'thanks')),
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
      line('response_item', message('user', 'good')),
    ];
    fs.writeFileSync(file, before.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    await syncFile(live, codex, file);
    fs.appendFileSync(file, after.join('\n') + '\n');
    await syncFile(live, codex, file);
    quiet(file);
    await syncFile(live, codex, file);
    const got = tasks(live);
    live.close();
    expect(got).toEqual(await imported(root, file));
    const messages = got[0]!.messages as { role: string; history_only?: boolean }[];
    expect(messages[0]).toMatchObject({ role: 'system' });
    expect(messages[0]!.history_only).toBeUndefined();
    expect(messages.slice(1, 4).every((m) => m.history_only === true)).toBe(true);
  });
});

describe('calls of the last reply left without a result', () => {
  it('Claude Code: recorded as failed once the file is quiet; a result arriving later adds no second record', async () => {
    const root = tempDir();
    const file = claudeFile(root, 'open.jsonl');
    const s = claudeSession('open');
    const head = [
      s.user('run the tests'),
      s.part(
        'msg_1',
        { type: 'tool_use', id: 'toolu_9', name: 'Bash', input: { command: 'npm test' } },
        20,
        'tool_use',
      ),
    ];
    fs.writeFileSync(file, head.join('\n') + '\n');
    const live = ContextStore.open(path.join(root, 'live'));
    await syncFile(live, claude, file);
    const toolsOf = (): Record<string, unknown>[] =>
      lines(path.join(live.taskPath(live.listTasks({ limit: 1 }).rows[0]!), 'tools.jsonl'));
    expect(toolsOf()).toEqual([]);
    quiet(file);
    await syncFile(live, claude, file);
    expect(toolsOf()).toMatchObject([
      { tool: 'Bash', status: 'error', error: 'no result in the transcript' },
    ]);
    expect(tasks(live)).toEqual(await imported(root, file));
    // The command was only slow: its result comes after all.
    fs.appendFileSync(
      file,
      s.user([{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'ok' }]) + '\n',
    );
    await syncFile(live, claude, file);
    expect(toolsOf()).toHaveLength(1);
    const messages = lines(
      path.join(live.taskPath(live.listTasks({ limit: 1 }).rows[0]!), 'messages.jsonl'),
    );
    expect(messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'toolu_9',
      tool_name: 'Bash',
    });
    live.close();
  });

  it('a whole-document session (Cline): recorded once the file is quiet, never twice', async () => {
    const root = tempDir();
    const dir = path.join(
      root,
      'home',
      '.config',
      'Code',
      'User',
      'globalStorage',
      'saoudrizwan.claude-dev',
      'tasks',
      '1764000000000',
    );
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'api_conversation_history.json');
    const history: Record<string, unknown>[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: '<task>\nrun the tests\n</task>' }],
        ts: 1764000000000,
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running them.' },
          {
            type: 'tool_use',
            id: 'toolu_c1',
            name: 'execute_command',
            input: { command: 'npm test' },
          },
        ],
        ts: 1764000001000,
      },
    ];
    const save = (): void => {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(history));
      fs.renameSync(`${file}.tmp`, file);
    };
    save();
    const live = ContextStore.open(path.join(root, 'live'));
    await syncFile(live, cline, file);
    const toolsOf = (): Record<string, unknown>[] =>
      lines(path.join(live.taskPath(live.listTasks({ limit: 1 }).rows[0]!), 'tools.jsonl'));
    expect(toolsOf()).toEqual([]);
    quiet(file);
    await syncFile(live, cline, file);
    expect(toolsOf()).toMatchObject([{ tool: 'execute_command', status: 'error' }]);
    expect(tasks(live)).toEqual(await imported(root, file));
    history.push(
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_c1', content: 'all passed' }],
        ts: 1764000002000,
      },
      { role: 'assistant', content: [{ type: 'text', text: 'All green.' }], ts: 1764000003000 },
    );
    save();
    await syncFile(live, cline, file);
    quiet(file);
    await syncFile(live, cline, file);
    expect(toolsOf()).toHaveLength(1);
    live.close();
  });
});

describe('an OpenHands session kept as one file per event (events/<n>.json)', () => {
  it('is followed event by event into one task, every event once, as `cwb import` of the folder gives', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const kind = sourceKind('openhands')!;
    const sessions = kind.defaultFolders({ HOME: home })[0]!;
    const id = '5f2b8c1d9e7a4b3c8d6e0f1a2b3c4d5e';
    const dir = path.join(sessions, id, 'events');
    fs.mkdirSync(dir, { recursive: true });
    const fixture = realFixture('openhands', 'sessions', id, 'events');
    const event = (n: number): string => fs.readFileSync(path.join(fixture, `${n}.json`), 'utf8');
    const write = (n: number, text = event(n)): void =>
      fs.writeFileSync(path.join(dir, `${n}.json`), text);
    for (let n = 0; n <= 3; n++) write(n);
    // Found as one session (the folder), and a changed event file stands for its folder.
    expect(await discoverFiles(kind, sessions)).toEqual([dir]);
    const contexts = path.join(root, 'live');
    let live = ContextStore.open(contexts);
    const sync = new SourceSync(live, parseSourcesConfig('', null, { HOME: home }));
    expect(sync.unitOf(path.join(dir, '3.json'))).toMatchObject({ path: dir });
    expect(sync.unitOf(path.join(sessions, id, 'metadata.json'))).toBeUndefined();

    expect(await syncFile(live, kind, dir)).toMatchObject({ status: 'synced', messages: 2 });
    const repo = (): SyncStateRepository => new SyncStateRepository(live.db);
    expect(repo().get(dir)).toMatchObject({ offset: 4, line_no: 4 });
    // OpenHands numbers event 5 while event 4's file is still being written: nothing past 3
    // is read until 4 is complete.
    write(5);
    write(4, event(4).slice(0, 40));
    expect((await syncFile(live, kind, dir)).messages).toBe(0);
    expect(repo().get(dir)).toMatchObject({ offset: 4 });
    write(4);
    for (let n = 6; n <= 9; n++) write(n);
    // A sync killed before its commit, then a restart: redone without duplicates.
    const killed = await syncFile(live, kind, dir, {
      beforeCommit: () => {
        throw new Error('killed');
      },
    });
    expect(killed.status).toBe('error');
    repo().update(dir, { lease_pid: 2 ** 22 + 17 });
    live.close();
    live = ContextStore.open(contexts);
    expect((await syncFile(live, kind, dir)).status).toBe('synced');
    expect(repo().get(dir)).toMatchObject({ offset: 10, line_no: 10, pending: null });
    const past = new Date(Date.now() - 60_000);
    for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), past, past);
    fs.utimesSync(dir, past, past);
    await syncFile(live, kind, dir);
    expect((await syncFile(live, kind, dir)).status).toBe('unchanged');
    const got = tasks(live);
    const row = live.listTasks({ limit: 10 }).rows[0]!;
    expect(row).toMatchObject({ task_source: 'openhands', task_id: id, agent: 'openhands' });
    live.close();

    const store = ContextStore.open(path.join(root, 'imported'));
    const run = await importPaths(store, [dir]);
    expect(run.failed).toEqual([]);
    const want = tasks(store);
    expect(store.listTasks({ limit: 10 }).rows[0]).toMatchObject({ task_id: id });
    store.close();
    expect(got).toEqual(want);
    expect(got).toHaveLength(1);
    const roles = (got[0]!.messages as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });
});
