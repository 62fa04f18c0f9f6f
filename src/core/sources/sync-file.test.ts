import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ContextStore } from '../store/context-store';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { registerSourceKind, sourceKind, type SourceKind } from './source-kinds';
import { syncFile } from './sync-file';
import { SyncStateRepository } from './sync-state';

const tempDir = useTempDir();
const claude = sourceKind('claude-code')!;
const codex = sourceKind('codex')!;
const CLAUDE = realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
const CODEX = realFixture(
  'codex',
  'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
);

function setup(): { store: ContextStore; dir: string } {
  const dir = tempDir();
  const store = ContextStore.open(path.join(dir, 'contexts'));
  return { store, dir };
}

/** Every message of every task of the store: "<task title>|<role>|<content>". */
function allMessages(store: ContextStore): string[] {
  const out: string[] = [];
  for (const row of store.listTasks({ limit: 1000 }).rows) {
    const file = path.join(store.taskPath(row), 'messages.jsonl');
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const m = JSON.parse(line) as { role: string; content: string | null; tool_call_id?: string };
      out.push(`${row.task_type}|${m.role}|${m.tool_call_id ?? ''}|${m.content ?? ''}`);
    }
  }
  return out.sort();
}

/** Messages per task, in order, keyed by the task's thread. */
function byTask(store: ContextStore): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const row of store.listTasks({ limit: 1000 }).rows) {
    const file = path.join(store.taskPath(row), 'messages.jsonl');
    const lines = fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
      : [];
    const meta = JSON.parse(
      fs.readFileSync(path.join(store.taskPath(row), 'metadata.json'), 'utf8'),
    ) as {
      source?: { thread?: string; generation?: number };
    };
    out.set(
      `${meta.source?.generation ?? 0}:${meta.source?.thread ?? '?'}`,
      lines.map((l) => {
        const m = JSON.parse(l) as { role: string; content: string | null; seq: number };
        return `${m.role}:${m.content ?? ''}`;
      }),
    );
  }
  return out;
}

async function oneShot(fixture: string, kind = claude): Promise<Map<string, string[]>> {
  const { store, dir } = setup();
  const file = path.join(dir, path.basename(fixture));
  fs.copyFileSync(fixture, file);
  expect((await syncFile(store, kind, file)).status).toBe('synced');
  const result = byTask(store);
  store.close();
  return result;
}

/** How many turns the event loop had while `run` ran (one per pass of its check phase). */
async function turnsDuring(run: () => Promise<void>): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = (): void => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await run();
  } finally {
    running = false;
  }
  return turns;
}
describe('syncFile', () => {
  it('judges the file by its size once it holds it: another process having read further since is not a truncation', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'session.jsonl');
    const lines = fs.readFileSync(CLAUDE, 'utf8').split('\n').filter(Boolean);
    const third = Math.floor(lines.length / 3);
    fs.writeFileSync(file, `${lines.slice(0, third).join('\n')}\n`);
    // What a slow process saw before another one synced the next lines.
    const stale = fs.statSync(file);
    fs.appendFileSync(file, `${lines.slice(third, 2 * third).join('\n')}\n`);
    expect((await syncFile(store, claude, file)).status).toBe('synced');
    fs.appendFileSync(file, `${lines.slice(2 * third).join('\n')}\n`);
    const realStat = fs.statSync;
    let first = true;
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((
      p: fs.PathLike,
      o?: fs.StatSyncOptions,
    ) => {
      if (first && p === file) {
        first = false;
        return stale;
      }
      return realStat(p, o);
    }) as typeof fs.statSync);
    try {
      expect((await syncFile(store, claude, file)).status).toBe('synced');
    } finally {
      spy.mockRestore();
    }
    const row = new SyncStateRepository(store.db).get(file)!;
    expect(row).toMatchObject({ generation: 0, notice: null, offset: fs.statSync(file).size });
    expect(byTask(store)).toEqual(await oneShot(CLAUDE));
    store.close();
  });

  it('reads to the end the file has once it holds it, not to the end an earlier look saw', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'session.jsonl');
    const lines = fs.readFileSync(CLAUDE, 'utf8').split('\n').filter(Boolean);
    const third = Math.floor(lines.length / 3);
    fs.writeFileSync(file, `${lines.slice(0, third).join('\n')}\n`);
    expect((await syncFile(store, claude, file)).status).toBe('synced');
    fs.appendFileSync(file, `${lines.slice(third, 2 * third).join('\n')}\n`);
    // The look before the claim (the agent wrote the rest while this process waited for it).
    const early = fs.statSync(file);
    fs.appendFileSync(file, `${lines.slice(2 * third).join('\n')}\n`);
    const realStat = fs.statSync;
    let first = true;
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((
      p: fs.PathLike,
      o?: fs.StatSyncOptions,
    ) => {
      if (first && p === file) {
        first = false;
        return early;
      }
      return realStat(p, o);
    }) as typeof fs.statSync);
    try {
      expect((await syncFile(store, claude, file)).status).toBe('synced');
    } finally {
      spy.mockRestore();
    }
    const repo = new SyncStateRepository(store.db);
    expect(repo.get(file)).toMatchObject({ offset: fs.statSync(file).size, pending: null });
    expect(byTask(store)).toEqual(await oneShot(CLAUDE));
    store.close();
  });

  it('reads a file appended in pieces (cut anywhere, mid-line, mid-response) exactly as one sync of the whole', async () => {
    for (const [fixture, kind] of [
      [CLAUDE, claude],
      [CODEX, codex],
    ] as const) {
      const whole = await oneShot(fixture, kind);
      const { store, dir } = setup();
      const file = path.join(dir, path.basename(fixture));
      const bytes = fs.readFileSync(fixture);
      fs.writeFileSync(file, '');
      // Cuts at line ends, after a byte of a line, and in the middle of a line.
      let at = 0;
      let step = 1;
      while (at < bytes.length) {
        const next = Math.min(bytes.length, at + step * 997);
        fs.appendFileSync(file, bytes.subarray(at, next));
        at = next;
        step = (step % 7) + 1;
        const result = await syncFile(store, kind, file);
        expect(['synced', 'unchanged']).toContain(result.status);
        const row = new SyncStateRepository(store.db).get(file)!;
        // Only complete lines are read: the offset is always just after a newline.
        if (row.offset > 0) expect(bytes[row.offset - 1]).toBe(0x0a);
      }
      // Same tasks, same messages: a response whose entries straddle two syncs is held back
      // until it is complete, then written as one message.
      expect(byTask(store)).toEqual(whole);
      store.close();
    }
  });

  it('links subagent (sidechain) threads to the main task of their session', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'session.jsonl');
    fs.copyFileSync(CLAUDE, file);
    await syncFile(store, claude, file);
    const rows = store.listTasks({ limit: 100 }).rows;
    const main = rows.find((r) => r.task_type === '')!;
    const subagents = rows.filter((r) => r.task_type === 'subagent');
    expect(subagents.length).toBeGreaterThan(0);
    for (const s of subagents) expect(s.parent_uuid).toBe(main.uuid);
    expect(main).toMatchObject({ status: 'completed', task_source: 'claude-code' });
    expect(main.total_messages).toBeGreaterThan(0);
    expect(main.total_tokens).toBeGreaterThan(0);
    store.close();
  });

  it('lets the event loop run while it reads a long session (a `cwb serve` doing it answers)', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'session.jsonl');
    // 2.6 MB, 222 lines: read synchronously, far longer than one turn of the loop.
    fs.copyFileSync(realFixture('claude-code-compacted', '624a4a58-compacted.jsonl'), file);
    let result: Awaited<ReturnType<typeof syncFile>> | undefined;
    // A turn after every entry: how many the timed turns give depends on the machine's speed.
    const turns = await turnsDuring(async () => {
      result = await syncFile(store, claude, file, { eventLoopTurnMs: 0 });
    });
    expect(result).toMatchObject({ status: 'synced' });
    expect(result!.messages).toBeGreaterThan(100);
    expect(turns).toBeGreaterThan(1);
    store.close();
  });

  it('lets the event loop run while it reads many short sessions one after the other', async () => {
    const { store, dir } = setup();
    // One line each: no file alone reads long enough to give the loop a turn.
    const line = fs
      .readFileSync(CLAUDE, 'utf8')
      .split('\n')
      .find((l) => l.includes('"type":"user"'))!;
    const files = Array.from({ length: 100 }, (_, i) => {
      const file = path.join(dir, `session-${i}.jsonl`);
      fs.writeFileSync(file, line + '\n');
      return file;
    });
    // As SourceSync.syncAll goes through a folder: one file after the other.
    const turns = await turnsDuring(async () => {
      for (const file of files)
        expect(await syncFile(store, claude, file)).toMatchObject({ status: 'synced' });
    });
    expect(turns).toBeGreaterThan(1);
    store.close();
  });

  it('leaves an incomplete last line for the next sync', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'rollout-x.jsonl');
    const lines = fs.readFileSync(CODEX, 'utf8').split('\n').filter(Boolean);
    fs.writeFileSync(file, `${lines.slice(0, 10).join('\n')}\n${lines[10]!.slice(0, 40)}`);
    await syncFile(store, codex, file);
    const before = allMessages(store);
    const row = new SyncStateRepository(store.db).get(file)!;
    expect(row.line_no).toBe(10);
    fs.appendFileSync(file, `${lines[10]!.slice(40)}\n${lines.slice(11).join('\n')}\n`);
    await syncFile(store, codex, file);
    const after = allMessages(store);
    expect(after.length).toBeGreaterThan(before.length);
    expect(allMessages(store)).toEqual([...(await oneShotAll(CODEX, codex))]);
    store.close();
  });

  it('a sync cut short after writing (a kill before the offset is recorded) is redone without duplicates', async () => {
    const expected = await oneShotAll(CLAUDE, claude);
    const { store, dir } = setup();
    const file = path.join(dir, 's.jsonl');
    const text = fs.readFileSync(CLAUDE, 'utf8');
    const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
    fs.writeFileSync(file, text.slice(0, cut));
    await syncFile(store, claude, file);
    fs.appendFileSync(file, text.slice(cut));
    const killed = await syncFile(store, claude, file, {
      beforeCommit: () => {
        throw new Error('killed');
      },
    });
    expect(killed.status).toBe('error');
    const repo = new SyncStateRepository(store.db);
    expect(repo.get(file)!.pending).not.toBeNull();
    // The process that claimed it is gone.
    repo.update(file, { lease_pid: 2 ** 22 + 17, lease_host: repo.get(file)!.lease_host ?? 'x' });
    expect((await syncFile(store, claude, file)).status).toBe('synced');
    expect(repo.get(file)!.pending).toBeNull();
    expect(allMessages(store)).toEqual(expected);
    store.close();
  });

  it('one sync after a run cut short reads the redone range and what was appended after it', async () => {
    const expected = await oneShotAll(CLAUDE, claude);
    const { store, dir } = setup();
    const file = path.join(dir, 's.jsonl');
    const text = fs.readFileSync(CLAUDE, 'utf8');
    const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
    fs.writeFileSync(file, text.slice(0, cut));
    const killed = await syncFile(store, claude, file, {
      beforeCommit: () => {
        throw new Error('killed');
      },
    });
    expect(killed.status).toBe('error');
    const repo = new SyncStateRepository(store.db);
    repo.update(file, { lease_pid: 2 ** 22 + 17, lease_host: repo.get(file)!.lease_host ?? 'x' });
    // The agent went on writing while nothing synced: the pending range ends before these.
    fs.appendFileSync(file, text.slice(cut));
    expect((await syncFile(store, claude, file)).status).toBe('synced');
    expect(repo.get(file)).toMatchObject({ pending: null, offset: fs.statSync(file).size });
    expect(allMessages(store)).toEqual(expected);
    store.close();
  });

  it("a new session's tasks appear with the commit, their rows complete: staged until then, gone with a sync that fails first", async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 's.jsonl');
    fs.copyFileSync(CLAUDE, file);
    const completed = path.join(store.root, 'completed');
    let atCommit: { rows: number; folders: string[] } | undefined;
    const failed = await syncFile(store, claude, file, {
      beforeCommit: () => {
        atCommit = {
          rows: store.listTasks({ limit: 10 }).total,
          folders: fs.readdirSync(completed),
        };
        throw new Error('killed');
      },
    });
    expect(failed.status).toBe('error');
    // Written under staging names, listed nowhere; then removed with the failed sync.
    expect(atCommit!.rows).toBe(0);
    expect(atCommit!.folders.length).toBeGreaterThan(0);
    expect(atCommit!.folders.every((name) => name.startsWith('.new-'))).toBe(true);
    expect(fs.readdirSync(completed)).toEqual([]);

    // Each row is inserted as its task ends up: no update of it after the insert.
    store.db.exec(`CREATE TEMP TABLE updated (uuid TEXT);
      CREATE TEMP TRIGGER row_updated AFTER UPDATE ON tasks
        BEGIN INSERT INTO updated VALUES (new.uuid); END;`);
    expect((await syncFile(store, claude, file)).status).toBe('synced');
    expect(store.db.prepare('SELECT count(*) AS n FROM updated').get()).toEqual({ n: 0 });
    const rows = store.listTasks({ limit: 10 }).rows;
    expect(fs.readdirSync(completed).sort()).toEqual(rows.map((r) => r.uuid).sort());
    const main = rows.find((r) => r.task_type === '')!;
    expect(main).toMatchObject({
      status: 'completed',
      agent: 'claude-code',
      title: 'Empty Repo Setup: CLAUDE.md Foundation Created',
      created_at: '2025-09-03T00:52:31.217Z',
      started_at: '2025-09-03T00:52:31.217Z',
      completed_at: '2025-09-03T01:02:03.665Z',
      updated_at: '2025-09-03T01:02:03.665Z',
      total_messages: allMessages(store).filter((m) => m.startsWith('|')).length,
    });
    expect(main.llm_call_count).toBeGreaterThan(0);
    expect(main.total_tokens).toBeGreaterThan(0);
    expect(main.final_message_count).toBe(main.total_messages);
    // The status counts (the insert's trigger) know each task once.
    expect(store.repo.statusCounts({}).completed).toBe(rows.length);
    store.close();
  });

  it('a file another live process is syncing is left to it', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 's.jsonl');
    fs.copyFileSync(CLAUDE, file);
    const repo = new SyncStateRepository(store.db);
    repo.claim(file, 'claude-code', () => undefined);
    repo.update(file, { lease_pid: process.ppid });
    expect((await syncFile(store, claude, file)).status).toBe('busy');
    expect(allMessages(store)).toEqual([]);
    store.close();
  });

  it('a truncated or replaced file is read again into new tasks; the same bytes under a new inode go on', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'rollout-y.jsonl');
    const text = fs.readFileSync(CODEX, 'utf8');
    fs.writeFileSync(file, text);
    await syncFile(store, codex, file);
    const first = allMessages(store);
    // Same bytes, new inode (an editor's save by rename), then more lines: no re-read.
    fs.writeFileSync(`${file}.tmp`, text);
    fs.renameSync(`${file}.tmp`, file);
    expect((await syncFile(store, codex, file)).messages).toBe(0);
    expect(allMessages(store)).toEqual(first);
    // Truncated: a new generation, the old task kept.
    const lines = text.split('\n').filter(Boolean);
    fs.writeFileSync(file, `${lines.slice(0, 5).join('\n')}\n`);
    const truncated = await syncFile(store, codex, file);
    expect(truncated.notice).toMatch(/replaced or truncated/);
    const repo = new SyncStateRepository(store.db);
    expect(repo.get(file)).toMatchObject({ generation: 1, line_no: 5 });
    expect(repo.get(file)!.notice).toMatch(/replaced or truncated/);
    expect(store.listTasks({ limit: 10 }).rows).toHaveLength(2);
    // Replaced by other content of the same length or more: another generation.
    fs.writeFileSync(file, `${lines.slice(5, 12).join('\n')}\n`);
    await syncFile(store, codex, file);
    expect(repo.get(file)).toMatchObject({ generation: 2 });
    expect(store.listTasks({ limit: 10 }).rows).toHaveLength(3);
    store.close();
  });

  it('a source task cannot be resumed; it stays completed and its source file is never written', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 's.jsonl');
    fs.copyFileSync(CLAUDE, file);
    const before = fs.readFileSync(file);
    await syncFile(store, claude, file);
    const main = store.listTasks({ limit: 100 }).rows.find((r) => r.task_type === '')!;
    expect(() => store.resumeTask(main.uuid)).toThrow(/cannot be resumed/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    store.close();
  });
});

/** A whole-document format like Cline's: the file is rewritten whole on every change. */
const docKind: SourceKind = {
  id: 'test-doc',
  label: 'Test documents',
  defaultFolders: () => [],
  matches: (rel) => rel.endsWith('.json'),
  depth: 1,
  reader: {
    mode: 'document',
    async *parse(file) {
      const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        title: string;
        messages: { id: string; role: 'user' | 'assistant'; text: string }[];
      };
      yield {
        kind: 'session',
        key: 'doc-1',
        meta: { agent: 'cline', title: doc.title, sessionId: 'doc-1' },
      };
      for (const m of doc.messages)
        yield {
          kind: 'message',
          key: `m:${m.id}`,
          message: { role: m.role, content: m.text },
          ...(m.role === 'assistant' && { llmCall: true, usage: { output_tokens: 5 } }),
        };
    },
  },
};
registerSourceKind(docKind);

describe('syncFile, whole-document sources', () => {
  const write = (file: string, ids: string[], changed: Record<string, string> = {}): void => {
    const messages = ids.map((id, i) => ({
      id,
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: changed[id] ?? `text ${id}`,
    }));
    // Rewritten whole, through a new file (as Cline and Roo save).
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ title: 'Doc task', messages }));
    fs.renameSync(`${file}.tmp`, file);
  };

  it('a file rewritten in place with more messages gains only the new ones; a changed old one is listed, not duplicated', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'task.json');
    write(file, ['a', 'b']);
    await syncFile(store, docKind, file);
    write(file, ['a', 'b', 'c', 'd']);
    expect((await syncFile(store, docKind, file)).messages).toBe(2);
    write(file, ['a', 'b', 'c', 'd', 'e'], { b: 'edited' });
    expect((await syncFile(store, docKind, file)).messages).toBe(1);
    expect((await syncFile(store, docKind, file)).status).toBe('unchanged');
    expect(allMessages(store)).toEqual(
      ['a', 'b', 'c', 'd', 'e']
        .map((id, i) => `|${i % 2 === 0 ? 'user' : 'assistant'}||text ${id}`)
        .sort(),
    );
    const row = store.listTasks({ limit: 10 }).rows[0]!;
    expect(row).toMatchObject({
      title: 'Doc task',
      llm_call_count: 2,
      output_tokens: 10,
      task_id: 'doc-1',
    });
    const state = JSON.parse(new SyncStateRepository(store.db).get(file)!.state!) as {
      mapper: { changed: string[] };
    };
    expect(state.mapper.changed).toEqual(['m:b']);
    store.close();
  });

  it('a rewrite synced by a run cut short before its commit is redone without duplicates', async () => {
    const { store, dir } = setup();
    const file = path.join(dir, 'task.json');
    write(file, ['a', 'b']);
    await syncFile(store, docKind, file);
    write(file, ['a', 'b', 'c', 'd']);
    const cut = await syncFile(store, docKind, file, {
      beforeCommit: () => {
        throw new Error('killed');
      },
    });
    expect(cut.status).toBe('error');
    write(file, ['a', 'b', 'c', 'd', 'e', 'f']);
    await syncFile(store, docKind, file);
    expect(allMessages(store)).toHaveLength(6);
    expect(store.listTasks({ limit: 10 }).rows[0]).toMatchObject({ llm_call_count: 3 });
    store.close();
  });
});

async function oneShotAll(fixture: string, kind = claude): Promise<string[]> {
  const { store, dir } = setup();
  const file = path.join(dir, path.basename(fixture));
  fs.copyFileSync(fixture, file);
  await syncFile(store, kind, file);
  const out = allMessages(store);
  store.close();
  return out;
}
