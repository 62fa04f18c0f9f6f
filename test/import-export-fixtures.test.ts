/**
 * Every real transcript in test/fixtures/real imports, and the counts tasks.db holds
 * for each task equal counts derived here from the source file with plain JSON parsing
 * (independently of the importers' code), per the mapping each importer documents.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import type { FileImportResult } from '../src/core/import';
import type { TaskRow } from '../src/shared/task-types';
import { runCwb } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';

const FIXTURES = REAL_FIXTURES;

interface Counts {
  messages: number;
  toolCalls: number;
  llmCalls: number;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function jsonLines(file: string): Json[] {
  const out: Json[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(rec(JSON.parse(line)));
    } catch {
      // a malformed line: the importer skips it too
    }
  }
  return out;
}

/** Claude Code: per thread ('main' or 'root:<uuid of the subagent's first entry>'). */
function claudeCounts(file: string): Map<string, Counts> {
  const threadOf = new Map<string, string>();
  const state = new Map<
    string,
    Counts & { callIds: Set<string>; responses: Set<string>; run?: string; runHasMessage: boolean }
  >();
  for (const e of jsonLines(file)) {
    const type = e.type;
    if (type !== 'user' && type !== 'assistant' && type !== 'system') continue;
    let key = 'main';
    if (e.isSidechain === true) {
      key =
        (typeof e.parentUuid === 'string' ? threadOf.get(e.parentUuid) : undefined) ??
        `root:${String(e.uuid)}`;
      threadOf.set(String(e.uuid), key);
    }
    let s = state.get(key);
    if (!s) {
      s = {
        messages: 0,
        toolCalls: 0,
        llmCalls: 0,
        callIds: new Set(),
        responses: new Set(),
        runHasMessage: false,
      };
      state.set(key, s);
    }
    const message = rec(e.message);
    const content = message.content;
    const blocks = typeof content === 'string' ? [{ type: 'text' }] : list(content).map(rec);
    if (type === 'assistant') {
      const id = String(message.id);
      if (s.run !== id) s.runHasMessage = false;
      s.run = id;
      s.messages += blocks.filter(
        (b) => b.type === 'thinking' || b.type === 'redacted_thinking',
      ).length;
      if (!s.runHasMessage && blocks.some((b) => b.type === 'text' || b.type === 'tool_use')) {
        s.messages++;
        s.runHasMessage = true;
      }
      for (const b of blocks.filter((b) => b.type === 'tool_use')) {
        s.toolCalls++;
        s.callIds.add(String(b.id));
      }
      if (message.model !== '<synthetic>') s.responses.add(id);
    } else if (type === 'user') {
      s.run = undefined;
      if (typeof content === 'string') s.messages++;
      else {
        const results = blocks.filter((b) => b.type === 'tool_result');
        s.messages += results.length + (blocks.length > results.length ? 1 : 0);
        s.toolCalls += results.filter((b) => !s.callIds.has(String(b.tool_use_id))).length;
      }
    } else if (e.subtype === 'compact_boundary') s.run = undefined;
  }
  return new Map(
    [...state].map(([k, s]) => [
      k,
      { messages: s.messages, toolCalls: s.toolCalls, llmCalls: s.responses.size },
    ]),
  );
}

/** Codex rollout: one task. */
function codexCounts(file: string): Counts {
  const lines = jsonLines(file);
  const items = lines.filter((l) => l.type === 'response_item').map((l) => rec(l.payload));
  const userItems = items.filter((p) => p.type === 'message' && p.role === 'user').length;
  const meta = rec(lines.find((l) => l.type === 'session_meta')?.payload);
  let messages = typeof rec(meta.base_instructions).text === 'string' ? 1 : 0;
  let toolCalls = 0;
  let llmCalls = 0;
  let tokenCounts = 0;
  let groupOpen = false;
  let modelRun = false;
  const callIds = new Set<string>();
  const model = (): void => {
    if (!modelRun) llmCalls++;
    modelRun = true;
  };
  for (const l of lines) {
    const p = rec(l.payload);
    if (l.type === 'event_msg') {
      if (p.type === 'user_message' && userItems === 0) {
        messages++;
        groupOpen = modelRun = false;
      }
      if (p.type === 'token_count' && p.info) tokenCounts++;
      continue;
    }
    if (l.type !== 'response_item') continue;
    if (p.type === 'message') {
      if (p.role === 'assistant') {
        messages++;
        groupOpen = true;
        model();
      } else if (p.role !== 'user' || userItems > 0) {
        messages++;
        groupOpen = modelRun = false;
      }
    } else if (p.type === 'reasoning') {
      messages++;
      groupOpen = false;
      model();
    } else if (
      p.type === 'function_call' ||
      p.type === 'custom_tool_call' ||
      p.type === 'local_shell_call'
    ) {
      if (!groupOpen) messages++;
      groupOpen = true;
      toolCalls++;
      callIds.add(String(p.call_id));
      model();
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      messages++;
      groupOpen = modelRun = false;
      if (!callIds.has(String(p.call_id))) toolCalls++;
    }
  }
  return { messages, toolCalls, llmCalls: tokenCounts > 0 ? tokenCounts : llmCalls };
}

/** An OpenAI chat message list. */
function chatCounts(messages: unknown[]): Counts {
  const ids = new Set<string>();
  let toolCalls = 0;
  for (const m of messages.map(rec)) {
    for (const c of list(m.tool_calls).map(rec)) {
      toolCalls++;
      ids.add(String(c.id));
    }
    if (m.role === 'tool' && !ids.has(String(m.tool_call_id ?? list(m.tool_call_ids)[0])))
      toolCalls++;
  }
  return {
    messages: messages.length,
    toolCalls,
    llmCalls: messages.filter((m) => rec(m).role === 'assistant').length,
  };
}

function sweCounts(file: string): Counts {
  const doc = rec(JSON.parse(fs.readFileSync(file, 'utf8')));
  const history = list(doc.history);
  const steps = list(doc.trajectory);
  const chat = chatCounts(history);
  const apiCalls = Number(rec(rec(doc.info).model_stats).api_calls ?? 0);
  return {
    messages: history.length,
    toolCalls: steps.length > 0 ? steps.length : chat.toolCalls,
    llmCalls: apiCalls > 0 ? apiCalls : chat.llmCalls,
  };
}

function fixtureFiles(folder: string): string[] {
  return fs
    .readdirSync(path.join(FIXTURES, folder))
    .sort()
    .map((f) => path.join(FIXTURES, folder, f));
}

let root = '';
let store: ContextStore;
const results = new Map<string, FileImportResult>();

beforeAll(async () => {
  root = path.join(
    fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'cwb-fixtures-')),
    'contexts',
  );
  store = ContextStore.open(root);
  for (const folder of ['claude-code', 'codex', 'openai-chat', 'swe-agent']) {
    for (const file of fixtureFiles(folder)) results.set(file, await importFile(store, file));
  }
});

afterAll(() => {
  store.close();
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

function expectCounts(row: TaskRow, expected: Counts, label: string): void {
  expect({
    label,
    messages: row.total_messages,
    toolCalls: row.tool_call_count,
    llmCalls: row.llm_call_count,
  }).toEqual({
    label,
    ...expected,
  });
  // tasks.db agrees with the files themselves
  const reader = store.readTask(row.uuid);
  expect(reader.messages(1, 1).total).toBe(expected.messages);
  expect(reader.tools(0, 1_000_000).records).toHaveLength(expected.toolCalls);
  expect(row.total_tool_calls).toBe(expected.toolCalls);
}

function sourceOf(uuid: string): Json {
  return rec(store.readTask(uuid).metadata()?.source);
}

describe('real transcripts import with the counts their files hold', () => {
  it.each(fixtureFiles('claude-code'))('Claude Code %s: main thread and each subagent', (file) => {
    const result = results.get(file)!;
    expect(result.format).toBe('claude-code');
    expect(result.skipped).toEqual([]);
    const expected = claudeCounts(file);
    expect(result.tasks).toHaveLength(expected.size);
    const main = result.tasks.find((t) => t.parent_uuid === null)!;
    expectCounts(store.requireTask(main.uuid), expected.get('main')!, 'main');
    for (const task of result.tasks.filter((t) => t.parent_uuid !== null)) {
      expect(task.parent_uuid).toBe(main.uuid);
      const thread = String(sourceOf(task.uuid).thread);
      expect(expected.has(thread)).toBe(true);
      expectCounts(store.requireTask(task.uuid), expected.get(thread)!, thread);
    }
    const source = sourceOf(main.uuid);
    expect(source).toMatchObject({
      format: 'claude-code',
      cwd: '/path/to/Demo',
      session_id: path.basename(file, '.jsonl'),
    });
    expect(store.requireTask(main.uuid)).toMatchObject({
      workdir: '/path/to/Demo',
      status: 'completed',
      llm_provider: 'anthropic',
    });
    expect(store.requireTask(main.uuid).total_tokens).toBeGreaterThan(0);
  });

  it.each(fixtureFiles('codex'))('Codex %s', (file) => {
    const result = results.get(file)!;
    expect(result.format).toBe('codex');
    expect(result.skipped).toEqual([]);
    expect(result.tasks).toHaveLength(1);
    const row = store.requireTask(result.tasks[0]!.uuid);
    expectCounts(row, codexCounts(file), 'codex');
    expect(sourceOf(row.uuid)).toMatchObject({
      format: 'codex',
      session_id: '019e1695-0522-7c83-8b39-0dd379793f80',
      cwd: '/Users/Sample_User/naya',
    });
    expect(row.created_at).toBe('2026-05-11T10:28:45.482Z');
  });

  it.each(fixtureFiles('openai-chat'))('OpenAI chat runs %s: one task per run', (file) => {
    const result = results.get(file)!;
    expect(result.format).toBe('openai');
    const runs = JSON.parse(fs.readFileSync(file, 'utf8')) as Json[];
    expect(result.tasks).toHaveLength(runs.length);
    for (const task of result.tasks) {
      const source = sourceOf(task.uuid);
      const run = runs[Number(source.run_index)]!;
      expect(source).toMatchObject({
        format: 'openai',
        task_id: run.task_id,
        trial: run.trial,
        reward: run.reward,
      });
      expectCounts(
        store.requireTask(task.uuid),
        chatCounts(list(run.traj)),
        `run ${String(source.run_index)}`,
      );
    }
  });

  it.each(fixtureFiles('swe-agent'))('SWE-agent %s', (file) => {
    const result = results.get(file)!;
    expect(result.format).toBe('swe-agent');
    expect(result.tasks).toHaveLength(1);
    const row = store.requireTask(result.tasks[0]!.uuid);
    expectCounts(row, sweCounts(file), path.basename(file));
    const stats = rec(rec(rec(JSON.parse(fs.readFileSync(file, 'utf8'))).info).model_stats);
    if (stats.tokens_sent !== undefined) {
      expect(row.input_tokens).toBe(stats.tokens_sent);
      expect(row.output_tokens).toBe(stats.tokens_received);
    }
  });
});

describe('an imported task is browsed like any other', () => {
  it('through store.readTask: history, current context, tools', () => {
    const file = fixtureFiles('claude-code')[0]!;
    const main = results.get(file)!.tasks.find((t) => t.parent_uuid === null)!;
    const reader = store.readTask(main.uuid);
    const window = reader.messages(1, 5);
    expect(window.bad).toEqual([]);
    expect(window.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(window.messages[0]!.timestamp).toBe('2025-09-07T09:52:03.071Z');
    const toolMessage = reader.messages(1, 100).messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.tool_call_id).toMatch(/^toolu_/);
    expect(reader.current(1, 1000).total).toBe(reader.row.final_message_count);
    expect(reader.tools(0, 1).records[0]).toMatchObject({ tool: 'TodoWrite', status: 'success' });
  });

  it('through `cwb messages` and `cwb show` in a real process', () => {
    const file = fixtureFiles('codex')[0]!;
    const uuid = results.get(file)!.tasks[0]!.uuid;
    const shown = runCwb(['--contexts', root, 'messages', uuid, '--limit', '3', '--json']);
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    const parsed = JSON.parse(shown.stdout) as { total: number; messages: { role: string }[] };
    expect(parsed.total).toBe(codexCounts(file).messages);
    expect(parsed.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    const show = runCwb(['--contexts', root, 'show', uuid]);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain('analyze trascript');
  });
});

describe('format detection', () => {
  it('names the format of every fixture', async () => {
    const { detectFormat, readJsonDocument } = await import('../src/core/import');
    const seen: Record<string, string> = {};
    for (const folder of ['claude-code', 'codex', 'openai-chat', 'swe-agent']) {
      for (const file of fixtureFiles(folder))
        seen[path.basename(file)] = await detectFormat(file, (f) => readJsonDocument(f));
    }
    expect(Object.values(seen).sort()).toEqual([
      'claude-code',
      'claude-code',
      'codex',
      'openai',
      'swe-agent',
      'swe-agent',
    ]);
  });
});
