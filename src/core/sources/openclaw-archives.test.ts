import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from '../import';
import { readMetadata } from '../store/task-metadata';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { discoverFiles } from './discover';
import { sourceKind } from './source-kinds';
import { SyncStateRepository } from './sync-state';
import { syncFile } from './sync-file';

const tempDir = useTempDir();

const ID = 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617';
const PI = realFixture(
  'pi',
  '--Users-badlogic-workspaces-pi-mono--',
  `2025-11-20T23-33-50-805Z_${ID}.jsonl`,
);

/** `~/.openclaw/agents/main/sessions` with the Pi session as OpenClaw names it; the folder. */
function laySessions(home: string): string {
  const dir = path.join(home, '.openclaw', 'agents', 'main', 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(PI, path.join(dir, `${ID}.jsonl`));
  return dir;
}

describe('OpenClaw: sessions it reset or deleted (`<id>.jsonl.reset.<time>`)', () => {
  it('a synced session OpenClaw resets (renames) goes on in its task; one first seen archived is listed, marked', async () => {
    const home = tempDir();
    const dir = laySessions(home);
    const kind = sourceKind('openclaw')!;
    const live = ContextStore.open(tempDir());
    const transcript = path.join(dir, `${ID}.jsonl`);
    expect((await syncFile(live, kind, transcript, { quietMs: 0 })).status).toBe('synced');
    const [task] = live.listTasks({ limit: 10 }).rows;

    // `/reset`: OpenClaw renames the transcript; the conversation goes on in a new session.
    const reset = `${transcript}.reset.2026-11-20T10-00-00.000Z`;
    fs.renameSync(transcript, reset);
    // Beside it: a backup, a pre-compaction checkpoint and a runtime trace (not sessions).
    fs.copyFileSync(PI, `${transcript}.bak.2026-11-20T09-00-00.000Z`);
    fs.copyFileSync(
      PI,
      path.join(dir, `${ID}.checkpoint.0b7e3c1a-5d2f-4a8e-9c61-2f4d8e7a1b3c.jsonl`),
    );
    fs.writeFileSync(path.join(dir, `${ID}.trajectory.jsonl`), '{"type":"trace"}\n');
    expect(await discoverFiles(kind, path.join(home, '.openclaw', 'agents'))).toEqual([reset]);
    const moved = await syncFile(live, kind, reset, { quietMs: 0 });
    expect(moved.messages).toBe(0);
    expect(live.listTasks({ limit: 10 }).rows.map((r) => [r.uuid, r.total_messages])).toEqual([
      [task!.uuid, task!.total_messages],
    ]);
    expect(new SyncStateRepository(live.sourcesDb).get(reset)?.notice).toMatch(
      /renamed .*\.jsonl to this file \(it archived the session\)/,
    );

    // Deleted before any sync: listed as the session it is, as `cwb import` lists it.
    const other = tempDir();
    const deleted = `${laySessions(other)}/${ID}.jsonl.deleted.2026-11-21T08-30-15.250Z`;
    fs.renameSync(path.join(path.dirname(deleted), `${ID}.jsonl`), deleted);
    const fresh = ContextStore.open(tempDir());
    expect((await syncFile(fresh, kind, deleted, { quietMs: 0 })).status).toBe('synced');
    const imported = ContextStore.open(tempDir());
    const result = await importFile(imported, deleted);
    expect(result.format).toBe('openclaw');
    const pick = (store: ContextStore): unknown[] =>
      store
        .listTasks({ limit: 10 })
        .rows.map((r) => [r.task_id, r.title, r.total_messages, r.total_tool_calls]);
    expect(pick(fresh)).toEqual(pick(imported));
    expect(pick(fresh)).toEqual([[ID, task!.title, task!.total_messages, task!.total_tool_calls]]);
    const [row] = imported.listTasks({ limit: 10 }).rows;
    expect(readMetadata(imported.taskPath(row!))?.source).toMatchObject({
      session_id: ID,
      openclaw_archived: 'deleted',
      archived_at: '2026-11-21T08:30:15.250Z',
    });
    for (const s of [live, fresh, imported]) s.close();
  });
});
