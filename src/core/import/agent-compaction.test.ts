import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { allRecords } from '../compaction/compaction-record';
import { contextAroundRecord } from '../compaction/compaction-diff';
import { compactionQuality } from '../compaction/compaction-quality';
import { readView } from '../compaction/read-view';
import { viewTokens } from '../compaction/view';
import { undoCompaction } from '../compaction/undo';
import { taskCost } from '../cost/task-cost';
import { PriceBook } from '../cost/price-book';
import { importClaudeCode } from './claude-code';
import { importCodex } from './codex';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

const SESSION = '7d1c0a52-3b8e-4f2a-9c61-0d5e8b7a4f10';
const base = { sessionId: SESSION, cwd: '/repo', version: '2.1.90', gitBranch: 'fix-parser' };
const at = (s: number): string => new Date(Date.UTC(2026, 10, 20, 9, 0, s)).toISOString();

let uuid = 0;
function entry(s: number, fields: Record<string, unknown>): Record<string, unknown> {
  return { ...base, isSidechain: false, uuid: `u-${++uuid}`, timestamp: at(s), ...fields };
}
const user = (s: number, content: unknown, extra: object = {}): Record<string, unknown> =>
  entry(s, { type: 'user', message: { role: 'user', content }, ...extra });
const reply = (s: number, id: string, content: unknown[], extra: object = {}) =>
  entry(s, {
    type: 'assistant',
    message: {
      id,
      role: 'assistant',
      model: 'claude-opus-4-6',
      content,
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100 },
    },
    ...extra,
  });
const boundary = (s: number, preTokens = 98_765): Record<string, unknown> =>
  entry(s, {
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    parentUuid: null,
    logicalParentUuid: `u-${uuid}`,
    level: 'info',
    compactMetadata: { trigger: 'auto', preTokens },
  });
const summary = (s: number, text: string): Record<string, unknown> =>
  user(s, text, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
const attachment = (s: number, value: Record<string, unknown>): Record<string, unknown> =>
  entry(s, { type: 'attachment', attachment: value });

/** The conversation before the compaction: a request, a read, its output, a conclusion. */
function prefix(): Record<string, unknown>[] {
  return [
    user(1, 'fix the parser in src/parse.ts'),
    reply(2, 'msg_1', [
      { type: 'thinking', thinking: 'read it first', signature: 'x' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/repo/src/parse.ts' } },
    ]),
    user(3, [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: "export function parse() { throw new Error('ENOENT: config.yaml missing'); }",
      },
    ]),
    reply(4, 'msg_2', [
      { type: 'text', text: 'parse() fails when config.yaml is missing: see issue #412.' },
    ]),
  ];
}

/** What Claude Code 2.1 writes after the summary: files, a reference, the plan, hook output. */
function reattached(s: number): Record<string, unknown>[] {
  return [
    attachment(s, {
      type: 'file',
      filename: '/repo/src/parse.ts',
      displayPath: 'src/parse.ts',
      content: {
        type: 'text',
        file: {
          filePath: '/repo/src/parse.ts',
          content: 'export function parse() {}',
          numLines: 1,
        },
      },
    }),
    attachment(s, {
      type: 'compact_file_reference',
      filename: '/repo/big.log',
      displayPath: 'big.log',
    }),
    attachment(s, {
      type: 'plan_file_reference',
      planFilePath: '/home/u/.claude/plans/quiet-river.md',
      planContent: '1. make parse() tolerate a missing config.yaml',
    }),
    entry(s, {
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'SessionStart', hookName: 'SessionStart:compact' },
    }),
    attachment(s, {
      type: 'hook_additional_context',
      content: ['branch fix-parser is 2 commits ahead of main'],
      hookName: 'SessionStart:compact',
      hookEvent: 'SessionStart',
    }),
  ];
}

/** A compaction run as Claude Code 2.1 writes it beside the session: a copy, then the call. */
function acompactRun(dir: string, answeredAt: number): string {
  const runs = path.join(dir, SESSION, 'subagents');
  fs.mkdirSync(runs, { recursive: true });
  const file = path.join(runs, 'agent-acompact-4f9a2c1e7b3d5a60.jsonl');
  const fork = { isSidechain: true, agentId: 'acompact-4f9a2c1e7b3d5a60' };
  const lines = [
    ...prefix().map((e) => ({ ...e, ...fork })),
    user(
      answeredAt - 20,
      'Your task is to create a detailed summary of the conversation so far.',
      fork,
    ),
    reply(
      answeredAt,
      'msg_compact',
      [{ type: 'text', text: '<summary>fixing the parser</summary>' }],
      {
        ...fork,
        message: {
          id: 'msg_compact',
          role: 'assistant',
          model: 'claude-haiku-4-5',
          content: [{ type: 'text', text: '<summary>fixing the parser</summary>' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 50_000, output_tokens: 2_000, cache_read_input_tokens: 1_000 },
        },
      },
    ),
  ];
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

function write(entries: readonly Record<string, unknown>[], tail = ''): string {
  const dir = path.join(tempDir(), 'projects', '-repo');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n' + tail);
  return file;
}

async function imported(file: string) {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const { rows, report } = await importClaudeCode(store, file);
  const dir = store.taskPath(rows[0]!);
  return { store, rows, report, dir, records: allRecords(dir) };
}

const texts = (view: { message: { content: string | null } }[]): string[] =>
  view.map((e) => e.message.content ?? '');

describe("Claude Code's own compaction, imported", () => {
  it('is a record with a plan: summary and re-attached context as the new context, the session time, both counters, the run on it', async () => {
    const file = write([
      ...prefix(),
      boundary(10),
      summary(10, 'Summary: the parser in src/parse.ts is being fixed.'),
      ...reattached(11),
      reply(20, 'msg_3', [{ type: 'text', text: 'Continuing with the fix.' }]),
      user(21, 'thanks'),
    ]);
    acompactRun(path.dirname(file), 8);
    const { store, rows, dir, records } = await imported(file);
    expect(rows).toHaveLength(1); // the compaction run is not a task
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record).toMatchObject({
      strategy: 'claude-code-compact',
      agent_compaction: true,
      imported: true,
      created_at: at(10),
      start_seq: 1,
      end_seq: 5, // request, reasoning, call, output, conclusion
      through_seq: 10, // summary + 4 re-attached
      created_seqs: [6, 7, 8, 9, 10],
      replaced_seqs: [1, 3, 4, 5], // the reasoning was never context
      agent_tokens_before: 98_765,
      token_counter: 'estimate',
      trigger: 'auto',
      pre_tokens: 98_765,
      reattached: 4,
      model: 'claude-haiku-4-5',
      llm_usage: { input_tokens: 50_000, output_tokens: 2_000, cache_read_tokens: 1_000 },
      compaction_run: { file: 'agent-acompact-4f9a2c1e7b3d5a60.jsonl' },
    });
    expect(record.plan).toEqual([6, 7, 8, 9, 10].map((seq) => ({ seq })));

    const around = contextAroundRecord(dir, record.id);
    // Our estimates are those of the contexts the diff rebuilds.
    expect([record.tokens_before, record.tokens_after]).toEqual([
      viewTokens(around.before),
      viewTokens(around.after),
    ]);
    expect(around.before.map((e) => e.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    const after = texts(around.after);
    expect(after[0]).toContain('Summary: the parser');
    expect(after.join('\n')).toContain('export function parse() {}');
    expect(after.join('\n')).toContain('/repo/big.log');
    expect(after.join('\n')).toContain('make parse() tolerate a missing config.yaml');
    expect(after.join('\n')).toContain('branch fix-parser is 2 commits ahead of main');
    const quality = compactionQuality(around.before, around.after);
    expect(quality.facts.lostCount).toBeGreaterThan(0);
    expect(quality.facts.lost?.map((f) => f.text).join('\n')).toContain(
      'fix the parser in src/parse.ts',
    );

    // The context now: the new context, then what followed; the row counts the agent's calls only.
    expect(texts(readView(dir).view).slice(5)).toEqual(['Continuing with the fix.', 'thanks']);
    expect(rows[0]).toMatchObject({ llm_call_count: 3, input_tokens: 30 });
    const cost = taskCost(rows[0]!, allRecords(dir), new PriceBook());
    expect(cost.compactions).toEqual([
      expect.objectContaining({ id: 1, model: 'claude-haiku-4-5', cost: expect.anything() }),
    ]);
    expect(cost.models.find((m) => m.model === 'claude-haiku-4-5')?.input_tokens).toBe(50_000);
    const task = store.openForMaintenance(rows[0]!.uuid);
    await expect(undoCompaction(task, 1)).rejects.toThrow(/agent's own/);
    task.close();
    store.close();
  });

  it('refuses to import a compaction run or a side question as a conversation, naming what it is', async () => {
    const file = write(prefix());
    const run = acompactRun(path.dirname(file), 8);
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    await expect(importClaudeCode(store, run)).rejects.toThrow(
      /compaction run .*import its session/,
    );
    const aside = path.join(path.dirname(run), 'agent-aside_question-c5e5c961a7749e08.jsonl');
    fs.writeFileSync(
      aside,
      [
        ...prefix(),
        user(30, 'btw, what does ENOENT mean?'),
        reply(31, 'msg_a', [{ type: 'text', text: 'No such file.' }]),
      ]
        .map((e) =>
          JSON.stringify({ ...e, isSidechain: true, agentId: 'aside_question-c5e5c961a7749e08' }),
        )
        .join('\n') + '\n',
    );
    await expect(importClaudeCode(store, aside)).rejects.toThrow(/side question/);
    expect(store.listTasks({ limit: 10 }).rows).toHaveLength(0);
    store.close();
  });
});

describe("Claude Code's own compaction: bad input is shown as it is, with a note", () => {
  it('a boundary without a summary: an empty new context, the note, the diff of what left', async () => {
    const file = write([
      ...prefix(),
      boundary(10),
      reply(20, 'msg_3', [{ type: 'text', text: 'Go on.' }]),
    ]);
    const { store, dir, records } = await imported(file);
    expect(records[0]).toMatchObject({
      summary: '',
      note: 'compact boundary without a summary entry',
      plan: [],
      created_seqs: [],
    });
    const around = contextAroundRecord(dir, 1);
    expect(around.before).toHaveLength(4);
    expect(around.after).toEqual([]);
    store.close();
  });

  it('a summary without a boundary: a record with the note, the summary its new context', async () => {
    const file = write([...prefix(), summary(10, 'Summary: parser.'), user(11, 'go on')]);
    const { store, dir, records } = await imported(file);
    expect(records[0]).toMatchObject({
      summary: 'Summary: parser.',
      note: 'summary entry without a compact boundary before it',
      created_at: at(10),
    });
    expect(records[0]).not.toHaveProperty('agent_tokens_before');
    expect(texts(contextAroundRecord(dir, 1).after)).toEqual(['Summary: parser.']);
    store.close();
  });

  it('a boundary at the very start: nothing before it, said so; no invented diff', async () => {
    const file = write([boundary(0), summary(0, 'Summary: earlier work.'), user(1, 'continue')]);
    const { store, dir, records } = await imported(file);
    expect(records[0]).toMatchObject({
      start_seq: 1,
      end_seq: 0,
      replaced_seqs: [],
      note: 'nothing of the conversation before it is in the file',
    });
    const around = contextAroundRecord(dir, 1);
    expect(around.before).toEqual([]);
    expect(texts(around.after)).toEqual(['Summary: earlier work.']);
    store.close();
  });

  it('a truncated session (cut inside the summary line): the boundary is recorded, the cut line reported', async () => {
    const file = write([...prefix(), boundary(10)], '{"type":"user","isCompactSummary":true,"mess');
    const { store, report, dir, records } = await imported(file);
    expect(records).toHaveLength(1);
    expect(records[0]!.note).toBe('compact boundary without a summary entry');
    expect(report.skipped.length).toBe(1);
    expect(contextAroundRecord(dir, 1).before).toHaveLength(4);
    store.close();
  });

  it('two compactions with nothing between them: two records, the second compacting the first', async () => {
    const file = write([
      ...prefix(),
      boundary(10),
      summary(10, 'Summary one.'),
      boundary(11),
      summary(11, 'Summary two.'),
      user(12, 'go on'),
    ]);
    const { store, dir, records } = await imported(file);
    expect(records.map((r) => [r.summary, r.plan])).toEqual([
      ['Summary one.', [{ seq: 6 }]],
      ['Summary two.', [{ seq: 7 }]],
    ]);
    const second = contextAroundRecord(dir, 2);
    expect(second.previousId).toBe(1);
    expect(texts(second.before)).toEqual(['Summary one.']);
    expect(texts(second.after)).toEqual(['Summary two.']);
    expect(records[1]!.replaced_seqs).toEqual([6]);
    store.close();
  });
});

describe("Codex's own compaction, imported", () => {
  const line = (s: number, type: string, payload: Record<string, unknown>): string =>
    JSON.stringify({ timestamp: at(s), type, payload });
  const message = (role: string, text: string) => ({
    type: 'message',
    role,
    content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
  });

  async function importRollout(lines: string[], tail = '') {
    const file = path.join(tempDir(), 'rollout-2026-11-20T09-00-00-c.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n' + tail);
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const { rows, report } = await importCodex(store, file);
    const dir = store.taskPath(rows[0]!);
    return { store, dir, report, records: allRecords(dir) };
  }
  /** Instructions, a request, a call and its output, a conclusion: what a compaction replaces. */
  const conversation = (): string[] => [
    line(0, 'session_meta', { id: 'c-3', cwd: '/repo', instructions: 'You are Codex.' }),
    line(1, 'response_item', message('user', 'fix the parser in src/parse.ts')),
    line(2, 'response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: '{"command":["cat","src/parse.ts"]}',
      call_id: 'call_1',
    }),
    line(3, 'response_item', {
      type: 'function_call_output',
      call_id: 'call_1',
      output: "throw new Error('ENOENT: config.yaml')",
    }),
    line(4, 'response_item', message('assistant', 'It throws ENOENT for config.yaml (#412).')),
  ];
  const compactedEvent = (s: number, payload: Record<string, unknown> = {}): string =>
    line(s, 'event_msg', { type: 'context_compacted', ...payload });
  const compactedItem = (s: number, text: string): string =>
    line(s, 'compacted', {
      message: text,
      replacement_history: [
        message('user', 'fix the parser in src/parse.ts'),
        message('user', `Summary so far: ${text}`),
      ],
    });

  it('the kept messages and the summary are the new context, with the instructions it never drops', async () => {
    const { store, dir, records } = await importRollout([
      line(0, 'session_meta', { id: 'c-1', cwd: '/repo', instructions: 'You are Codex.' }),
      line(1, 'response_item', message('user', 'fix the parser in src/parse.ts')),
      line(2, 'response_item', message('assistant', 'It throws ENOENT for config.yaml.')),
      line(3, 'compacted', {
        message: 'The parser was being fixed.',
        replacement_history: [
          message('user', 'fix the parser in src/parse.ts'),
          message('user', 'Summary so far: The parser was being fixed.'),
        ],
      }),
      line(4, 'response_item', message('user', 'now the docs')),
    ]);
    expect(records[0]).toMatchObject({
      strategy: 'codex-compact',
      created_at: at(3),
      agent_compaction: true,
    });
    const around = contextAroundRecord(dir, 1);
    expect(texts(around.before)).toEqual([
      'You are Codex.',
      'fix the parser in src/parse.ts',
      'It throws ENOENT for config.yaml.',
    ]);
    expect(texts(around.after)).toEqual([
      'You are Codex.',
      'fix the parser in src/parse.ts',
      'Summary so far: The parser was being fixed.',
    ]);
    expect(texts(readView(dir).view).at(-1)).toBe('now the docs');
    store.close();
  });

  it('a remote compaction (encrypted summary, no message) says so instead of an empty summary', async () => {
    const { store, dir, records } = await importRollout([
      line(0, 'session_meta', { id: 'c-2', cwd: '/repo' }),
      line(1, 'response_item', message('user', 'fix it')),
      line(2, 'compacted', {
        message: '',
        replacement_history: [
          message('user', 'fix it'),
          { type: 'compaction', encrypted_content: 'gAAAAB'.repeat(20) },
        ],
      }),
    ]);
    expect(records[0]!.note).toMatch(/without a summary message/);
    expect(texts(contextAroundRecord(dir, 1).after)).toEqual([
      'fix it',
      "[Codex's compaction summary, encrypted by the provider: 120 characters]",
    ]);
    store.close();
  });

  it('a context_compacted event with no compacted item: a record saying the file holds no summary, the diff of what left', async () => {
    const { store, dir, records } = await importRollout([
      ...conversation(),
      compactedEvent(5, { tokens_before: 182_000 }),
      line(6, 'response_item', message('user', 'go on')),
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      strategy: 'codex-compact',
      summary: '',
      created_at: at(5),
      agent_tokens_before: 182_000,
      created_seqs: [],
      replaced_seqs: [2, 3, 4, 5],
    });
    expect(records[0]!.note).toMatch(/without a compacted item: the file holds no summary/);
    const around = contextAroundRecord(dir, 1);
    expect(around.before).toHaveLength(5);
    // Only what Codex never drops (its instructions): nothing is invented for the rest.
    expect(texts(around.after)).toEqual(['You are Codex.']);
    expect(texts(readView(dir).view)).toEqual(['You are Codex.', 'go on']);
    store.close();
  });

  it('an event that carries the summary (newer builds) makes it the new context', async () => {
    const { store, dir, records } = await importRollout([
      ...conversation(),
      compactedEvent(5, { summary: 'Parser fix: config.yaml is optional.' }),
    ]);
    expect(records[0]).toMatchObject({ summary: 'Parser fix: config.yaml is optional.' });
    expect(records[0]!.note).toMatch(/its summary is the new context/);
    expect(texts(contextAroundRecord(dir, 1).after)).toEqual([
      'You are Codex.',
      'Parser fix: config.yaml is optional.',
    ]);
    store.close();
  });

  it('a summary with no event (older builds) and a summary with its event: one record each, never two', async () => {
    const { store, records, report } = await importRollout([
      ...conversation(),
      compactedItem(5, 'first.'),
      line(6, 'response_item', message('user', 'go on')),
      line(7, 'response_item', message('assistant', 'Done with src/parse.ts.')),
      compactedItem(8, 'second.'),
      compactedEvent(8),
      line(9, 'response_item', message('user', 'and the docs')),
    ]);
    expect(records.map((r) => [r.summary, r.note])).toEqual([
      ['first.', undefined],
      ['second.', undefined],
    ]);
    expect(report.ignored['event_msg:context_compacted']).toBe(1);
    store.close();
  });

  it('a compaction at the very start: nothing before it, said so; no invented diff', async () => {
    const { store, dir, records } = await importRollout([
      line(0, 'session_meta', { id: 'c-4', cwd: '/repo', instructions: 'You are Codex.' }),
      compactedItem(1, 'earlier work.'),
      compactedEvent(1),
      line(2, 'response_item', message('user', 'continue')),
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ replaced_seqs: [] });
    expect(records[0]!.note).toMatch(/nothing of the conversation before it is in the file/);
    const around = contextAroundRecord(dir, 1);
    expect(texts(around.before)).toEqual(['You are Codex.']);
    expect(texts(around.after)).toEqual([
      'You are Codex.',
      'fix the parser in src/parse.ts',
      'Summary so far: earlier work.',
    ]);
    store.close();
  });

  it('a truncated rollout: cut inside the compacted item, no compaction is invented and the cut line is reported', async () => {
    const { store, dir, records, report } = await importRollout(
      conversation(),
      '{"timestamp":"2026-11-20T09:00:05.000Z","type":"compacted","payload":{"message":"The par',
    );
    expect(records).toEqual([]);
    expect(report.skipped).toHaveLength(1);
    expect(readView(dir).view).toHaveLength(5);
    store.close();
  });

  it('a damaged compacted item followed by its event: the event is the record, the bad line reported', async () => {
    const { store, records, report } = await importRollout([
      ...conversation(),
      '{"timestamp":"2026-11-20T09:00:05.000Z","type":"compacted","payload":{"message":"The par',
      compactedEvent(5),
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]!.note).toMatch(/without a compacted item/);
    expect(report.skipped).toHaveLength(1);
    store.close();
  });

  it('two compactions with nothing between them: two records, the second compacting the first', async () => {
    const { store, dir, records } = await importRollout([
      ...conversation(),
      compactedItem(5, 'one.'),
      compactedEvent(5),
      compactedItem(6, 'two.'),
      compactedEvent(6),
      line(7, 'response_item', message('user', 'go on')),
    ]);
    expect(records.map((r) => r.summary)).toEqual(['one.', 'two.']);
    const second = contextAroundRecord(dir, 2);
    expect(second.previousId).toBe(1);
    expect(texts(second.before)).toEqual([
      'You are Codex.',
      'fix the parser in src/parse.ts',
      'Summary so far: one.',
    ]);
    expect(texts(second.after)).toEqual([
      'You are Codex.',
      'fix the parser in src/parse.ts',
      'Summary so far: two.',
    ]);
    expect(records[1]!.replaced_seqs).toEqual([6, 7]);
    store.close();
  });
});
