/**
 * Gemini CLI's newer layout, synced live: a slug project folder (its `.project_root` names the
 * project), the JSON Lines chat appended to line by line, a sub-agent's chat in a folder named
 * after its parent's session, and a compression — against `cwb import` of the same files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../src/shared/task-types';
import { ContextStore } from '../src/core/store/context-store';
import { importFile } from '../src/core/import';
import { discoverFiles } from '../src/core/sources/discover';
import { sourceKind } from '../src/core/sources/source-kinds';
import { syncFile } from '../src/core/sources/sync-file';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';
import { jsonlLines as lines } from './support/jsonl-lines';

const tempDir = useTempDir();
const gemini = sourceKind('gemini-cli')!;
const PARENT_ID = '7d3a1c52-9e4b-4f1a-8c2d-5b6e7f809a1b';
const MAIN_NAME = 'session-2026-11-20T09-00-7d3a1c52.jsonl';
const SUB_NAME = path.join(PARENT_ID, 'codebase_investigator-3f9a2b.jsonl');

function content(store: ContextStore, row: TaskRow): Record<string, unknown> {
  const dir = store.taskPath(row);
  return {
    messages: lines(path.join(dir, 'messages.jsonl')).map(({ id: _i, ...m }) => m),
    current: lines(path.join(dir, 'current.jsonl')),
    summaries: lines(path.join(dir, 'summaries.jsonl')).map(
      ({ created_at: _c, timestamp: _t, live: _l, ...s }) => s,
    ),
  };
}

/** The fixture's project folder under a temporary home, as the CLI lays it out. */
function project(root: string): string {
  const dir = path.join(root, 'home', '.gemini', 'tmp', 'acme-parser');
  fs.cpSync(realFixture('gemini-cli-jsonl', 'acme-parser'), dir, { recursive: true });
  return dir;
}

/** Older than the quiet time: the file has been still. */
function still(file: string): void {
  const then = new Date(Date.now() - 60_000);
  fs.utimesSync(file, then, then);
}

describe('Gemini CLI: slug folders, JSON Lines chats, sub-agents and compressions, synced live', () => {
  it('finds both chats, links the sub-agent to its parent, and syncs what import gives', async () => {
    const root = tempDir();
    const dir = project(root);
    const main = path.join(dir, 'chats', MAIN_NAME);
    const sub = path.join(dir, 'chats', SUB_NAME);
    const folder = path.dirname(dir);
    expect((await discoverFiles(gemini, folder)).sort()).toEqual([main, sub].sort());

    const live = ContextStore.open(path.join(root, 'live'));
    // The parent's log as the CLI appended it: line by line in three syncs, then still;
    // discovery lists it before the sub-agent's chat (shallower), whose task then hangs
    // under the parent's.
    const text = fs.readFileSync(main, 'utf8');
    const all = text.split('\n');
    for (const cut of [12, 30]) {
      fs.writeFileSync(main, all.slice(0, cut).join('\n') + '\n');
      await syncFile(live, gemini, main);
    }
    fs.writeFileSync(main, text);
    await syncFile(live, gemini, main);
    still(main);
    await syncFile(live, gemini, main);
    still(sub);
    await syncFile(live, gemini, sub);

    const rows = live.listTasks({ limit: 10 }).rows;
    expect(rows).toHaveLength(2);
    const parent = rows.find((r) => r.task_type !== 'subagent')!;
    const child = rows.find((r) => r.task_type === 'subagent')!;
    expect(parent).toMatchObject({
      title: 'Fix CSV parser dropping the last row',
      workdir: '/home/dev/src/acme-parser',
      repo: 'acme-parser',
      task_id: PARENT_ID,
      agent: 'gemini-cli',
      total_summaries: 1,
    });
    expect(child).toMatchObject({
      parent_uuid: parent.uuid,
      task_id: 'codebase_investigator-3f9a2b',
      workdir: '/home/dev/src/acme-parser',
    });
    expect(child.title).toMatch(/^Subagent: /);

    const imported = ContextStore.open(path.join(root, 'imported'));
    const [importedMain] = (await importFile(imported, main)).tasks;
    const [importedSub] = (await importFile(imported, sub)).tasks;
    const importedParent = imported.requireTask(importedMain!.uuid);
    const importedChild = imported.requireTask(importedSub!.uuid);
    expect(importedChild.task_type).toBe('subagent');
    expect(content(live, parent)).toEqual(content(imported, importedParent));
    expect(content(live, child)).toEqual(content(imported, importedChild));
    expect([parent.total_messages, parent.llm_call_count, parent.tool_call_count]).toEqual([
      importedParent.total_messages,
      importedParent.llm_call_count,
      importedParent.tool_call_count,
    ]);

    // The compression: before it, history; the new context is the snapshot and what it kept.
    const { summaries, current } = content(live, parent) as {
      summaries: Record<string, unknown>[];
      current: Record<string, unknown>[];
    };
    expect(summaries[0]).toMatchObject({
      strategy: 'gemini-compress',
      agent_compaction: true,
      agent_tokens_before: 9571,
      context_percent_before: 71,
      context_percent_after: 4,
    });
    expect(String(current[0]!.content)).toContain('<state_snapshot>');
    expect(current.some((m) => String(m.content).includes('drops the last row'))).toBe(false);
    live.close();
    imported.close();
  });

  it('a chat the CLI resumed into a .jsonl beside its .json is one session: the log', async () => {
    const root = tempDir();
    const dir = project(root);
    const legacy = path.join(dir, 'chats', 'session-2025-12-30T01-16-3f9ce747.json');
    fs.copyFileSync(realFixture('gemini-cli', 'session-2025-12-30T01-16-3f9ce747.json'), legacy);
    fs.copyFileSync(path.join(dir, 'chats', MAIN_NAME), `${legacy}l`);
    const live = ContextStore.open(path.join(root, 'live'));
    still(legacy);
    expect((await syncFile(live, gemini, legacy)).messages).toBe(0);
    expect(live.listTasks({ limit: 10 }).rows).toHaveLength(0);
    live.close();
  });
});
