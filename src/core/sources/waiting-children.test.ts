import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { sourceKind } from './source-kinds';
import { syncFile } from './sync-file';

const tempDir = useTempDir();

/** Each task's title and its parent's title. */
function tree(store: ContextStore): [string | null, string | null][] {
  const rows = store.listTasks({ limit: 20 }).rows;
  const title = new Map(rows.map((r) => [r.uuid, r.title]));
  return rows
    .map((r): [string | null, string | null] => [
      r.title,
      r.parent_uuid ? (title.get(r.parent_uuid) ?? '?') : null,
    ])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

/** Syncs `first` in one run (a store opened and closed), then `then` in the next. */
async function twoRuns(kind: string, first: string[], then: string[]): Promise<ContextStore> {
  const root = path.join(tempDir(), 'contexts');
  const k = sourceKind(kind)!;
  const before = ContextStore.open(root);
  for (const f of first)
    expect((await syncFile(before, k, f, { quietMs: 0 })).status).toBe('synced');
  expect(before.listTasks({ limit: 20 }).rows.every((r) => r.parent_uuid === null)).toBe(true);
  before.close();
  const after = ContextStore.open(root);
  for (const f of then) expect((await syncFile(after, k, f, { quietMs: 0 })).status).toBe('synced');
  return after;
}

describe('a sub-agent synced before its parent', () => {
  it('Gemini CLI: the chat in chats/<parent id>/ is linked when the parent’s chat is synced, in a later run', async () => {
    const home = tempDir();
    const project = path.join(home, '.gemini', 'tmp', 'acme-parser');
    fs.cpSync(realFixture('gemini-cli-jsonl', 'acme-parser'), project, { recursive: true });
    const chats = path.join(project, 'chats');
    const parent = path.join(chats, 'session-2026-11-20T09-00-7d3a1c52.jsonl');
    const child = path.join(
      chats,
      '7d3a1c52-9e4b-4f1a-8c2d-5b6e7f809a1b',
      'codebase_investigator-3f9a2b.jsonl',
    );
    const store = await twoRuns('gemini-cli', [child], [parent]);
    const [main, sub] = store
      .listTasks({ limit: 20 })
      .rows.sort((a, b) => a.task_type.localeCompare(b.task_type));
    expect([main!.task_type, sub!.task_type]).toEqual(['', 'subagent']);
    expect(sub!.parent_uuid).toBe(main!.uuid);
    store.close();
  });

  it('Codex: a thread_spawn rollout read before its parent’s is linked when the parent’s is', async () => {
    const home = tempDir();
    const day = path.join(home, '.codex', 'sessions', '2026', '11', '21');
    fs.cpSync(realFixture('codex-subagents'), day, { recursive: true });
    const [parent, child] = fs
      .readdirSync(day)
      .sort()
      .map((n) => path.join(day, n));
    const store = await twoRuns('codex', [child!], [parent!]);
    const got = tree(store);
    expect(got).toHaveLength(2);
    const main = got.find(([, p]) => p === null)!;
    expect(got.find(([, p]) => p !== null)).toEqual([
      expect.stringMatching(/^Subagent: /),
      main[0],
    ]);
    store.close();
  });
});
