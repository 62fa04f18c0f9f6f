/**
 * Compactions the agents made themselves, end to end: every compaction Claude Code made in
 * the real sessions opens as a diff with the facts that did not survive, at the session's own
 * time; live sync gives the records `cwb import` gives; a compaction run (`agent-acompact-*`)
 * is never a task, its model and usage are on the record; `cwb compactions` shows both
 * counters.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { allRecords } from '../src/core/compaction/compaction-record';
import { contextAroundRecord } from '../src/core/compaction/compaction-diff';
import { compactionQuality } from '../src/core/compaction/compaction-quality';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import { realFixture } from './support/real-fixtures';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const COMPACTED = realFixture('claude-code-compacted');
const claudeCode = sourceKind('claude-code')!;

/** The boundaries a session file holds: time and Claude Code's own count. */
function boundaries(file: string): { timestamp: string; preTokens: number }[] {
  return lines(file)
    .filter((e) => e.subtype === 'compact_boundary')
    .map((e) => ({
      timestamp: e.timestamp as string,
      preTokens: (e.compactMetadata as { preTokens: number }).preTokens,
    }));
}

function mainTask(store: ContextStore) {
  const row = store.listTasks({ limit: 50 }).rows.find((r) => r.parent_uuid === null)!;
  return { row, dir: store.taskPath(row) };
}

function quiet(file: string): void {
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(file, past, past);
}

describe('the compactions Claude Code made in real sessions', () => {
  const files = fs
    .readdirSync(COMPACTED)
    .filter((n) => n.endsWith('.jsonl'))
    .sort();

  it.each(files)(
    '%s: every compaction opens as a diff with its lost facts, at the session time',
    async (name) => {
      const file = path.join(COMPACTED, name);
      const store = ContextStore.open(path.join(tempDir(), 'contexts'));
      await importFile(store, file);
      const { dir } = mainTask(store);
      const expected = boundaries(file);
      const records = allRecords(dir);
      expect(records).toHaveLength(expected.length);
      expect(expected.length).toBeGreaterThan(0);
      records.forEach((record, i) => {
        expect(record).toMatchObject({
          agent_compaction: true,
          created_at: new Date(expected[i]!.timestamp).toISOString(),
          agent_tokens_before: expected[i]!.preTokens,
        });
        const around = contextAroundRecord(dir, record.id);
        expect(around.before.length).toBeGreaterThan(10);
        expect(around.after[0]?.record?.kind).toBe('summary');
        const quality = compactionQuality(around.before, around.after);
        expect(quality.facts.lostCount).toBeGreaterThan(0);
        expect(quality.spanTokens).toBe(record.tokens_before);
      });
      store.close();
    },
  );

  it('a live sync in pieces (cut right after the summary) writes the records import writes', async () => {
    const root = tempDir();
    const dir = path.join(root, 'home', '.claude', 'projects', '-w');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'entire-53ea1606-compacted.jsonl');
    // The published copy lost its last newline; Claude Code ends every line with one.
    const all = fs.readFileSync(path.join(COMPACTED, 'entire-53ea1606-compacted.jsonl'), 'utf8');
    const text = all.endsWith('\n') ? all : `${all}\n`;
    const rows = text.split('\n');
    const summaryAt = rows.findIndex((l) => l.includes('"isCompactSummary":true'));
    const live = ContextStore.open(path.join(root, 'live'));
    for (const cut of [summaryAt - 1, summaryAt + 1, summaryAt + 3]) {
      fs.writeFileSync(file, rows.slice(0, cut).join('\n') + '\n');
      await syncFile(live, claudeCode, file);
    }
    fs.writeFileSync(file, text);
    await syncFile(live, claudeCode, file);
    quiet(file);
    await syncFile(live, claudeCode, file);
    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    const records = (store: ContextStore) =>
      lines(path.join(mainTask(store).dir, 'summaries.jsonl')).map(({ live: _l, ...r }) => r);
    expect(records(live)).toHaveLength(1);
    expect(records(live)).toEqual(records(imported));
    const diff = (store: ContextStore) => {
      const around = contextAroundRecord(mainTask(store).dir, 1);
      return [around.before.length, around.after.map((e) => e.message.content)];
    };
    expect(diff(live)).toEqual(diff(imported));
    live.close();
    imported.close();
  });
});

describe("Claude Code 2.1's compaction run beside the session", () => {
  const session = '2b7f4c1a-9e3d-4a6b-8c2f-5d1e0a9b3c47';
  const at = (s: number): string => new Date(Date.UTC(2026, 10, 21, 8, 0, s)).toISOString();
  let n = 0;
  const entry = (s: number, fields: Record<string, unknown>) => ({
    sessionId: session,
    cwd: '/repo',
    version: '2.1.100',
    isSidechain: false,
    uuid: `e-${++n}`,
    timestamp: at(s),
    ...fields,
  });
  const user = (s: number, content: unknown, extra: object = {}) =>
    entry(s, { type: 'user', message: { role: 'user', content }, ...extra });
  const reply = (s: number, id: string, text: string, extra: object = {}) =>
    entry(s, {
      type: 'assistant',
      message: {
        id,
        role: 'assistant',
        model: 'claude-opus-4-6',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 12, output_tokens: 7 },
      },
      ...extra,
    });

  it('is never a task, wherever the sync meets it; its model and usage are on the compaction record, once', async () => {
    const root = tempDir();
    const projects = path.join(root, 'home', '.claude', 'projects');
    const dir = path.join(projects, '-repo');
    const runs = path.join(dir, session, 'subagents');
    fs.mkdirSync(runs, { recursive: true });
    const conversation = [
      user(1, 'rename the flag --fast to --quick in cli.ts'),
      reply(2, 'msg_1', 'Renamed --fast to --quick in src/cli.ts; 14 tests pass.'),
    ];
    const fork = { isSidechain: true, agentId: 'acompact-0c1d2e3f4a5b6c7d' };
    const run = [
      ...conversation.map((e) => ({ ...e, ...fork })),
      user(9, 'Your task is to create a detailed summary of the conversation so far.', fork),
      reply(10, 'msg_run', '<summary>renamed the flag</summary>', {
        ...fork,
        message: {
          id: 'msg_run',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: '<summary>renamed the flag</summary>' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 40_000, output_tokens: 1_500 },
        },
      }),
    ];
    fs.writeFileSync(
      path.join(runs, 'agent-acompact-0c1d2e3f4a5b6c7d.jsonl'),
      run.map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    const main = path.join(dir, `${session}.jsonl`);
    const after = [
      entry(11, {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'manual', preTokens: 61_000 },
      }),
      user(11, 'Summary: the flag was renamed.', { isCompactSummary: true }),
      entry(12, {
        type: 'attachment',
        attachment: {
          type: 'compact_file_reference',
          filename: '/repo/src/cli.ts',
          displayPath: 'src/cli.ts',
        },
      }),
      user(20, 'now update the README'),
    ];
    fs.writeFileSync(
      main,
      [...conversation, ...after].map((e) => JSON.stringify(e)).join('\n') + '\n',
    );

    const live = ContextStore.open(path.join(root, 'live'));
    const found = await discoverFiles(claudeCode, projects);
    expect(found.map((f) => path.basename(f)).sort()).toEqual([
      `${session}.jsonl`,
      'agent-acompact-0c1d2e3f4a5b6c7d.jsonl',
    ]);
    // The run first, then the session, then the run again: no task of its own either way.
    for (const f of [found[1]!, found[0]!, ...found]) await syncFile(live, claudeCode, f);
    const tasks = live.listTasks({ limit: 10 }).rows;
    expect(tasks.map((t) => t.title)).toEqual(['rename the flag --fast to --quick in cli.ts']);
    const [record] = allRecords(live.taskPath(tasks[0]!));
    expect(record).toMatchObject({
      created_at: at(11),
      trigger: 'manual',
      agent_tokens_before: 61_000,
      model: 'claude-sonnet-4-6',
      llm_usage: { input_tokens: 40_000, output_tokens: 1_500 },
      reattached: 1,
      plan: [{ seq: 3 }, { seq: 4 }],
    });
    // The agent's calls on the row; the run's call only on its record (priced once).
    expect(tasks[0]).toMatchObject({ llm_call_count: 1, input_tokens: 12 });

    // cwb compactions: our estimate and the agent's own count, labelled; never "- → -".
    const contexts = path.join(root, 'imported');
    const imported = runCwb(['--contexts', contexts, 'import', main, '--json']);
    expect(imported.status).toBe(0);
    const uuid = (JSON.parse(imported.stdout) as { imported: { uuid: string }[] }).imported[0]!
      .uuid;
    const out = runCwb(['--contexts', contexts, 'compactions', uuid]);
    expect(out.stdout).toMatch(/claude-code-compact .*est\. \(agent: 61k before\)\s+agent's own/);
    expect(out.stdout).not.toContain('- → -');
    live.close();
  });
});
