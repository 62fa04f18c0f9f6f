import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { useTempDir } from '../../../test/support/temp-dir';
import { MAIN, type ThreadInfo } from './sync-sink';
import { describeSourceTask, openSourceTask } from './source-tasks';

const tempDir = useTempDir();

const PARENT = '6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b';
const CHILD = '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

/** A source task opened, closed and published as staged (its row as first made). */
function open(store: ContextStore, uuid: string, info: ThreadInfo, thread = MAIN): void {
  const { task, staged } = openSourceTask(store, {
    uuid,
    kind: 'codex',
    file: `/home/u/.codex/sessions/${uuid}.jsonl`,
    thread,
    generation: 0,
    info,
    parentUuid: null,
  });
  task.close();
  staged?.publish();
}

describe('describeSourceTask on tasks.db', () => {
  it('writes what the session says and assigns only the columns that change', () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const info: ThreadInfo = {
      sessionId: 's-parent',
      prompt: 'fix the parser',
      workdir: '/work/parser',
      model: 'gpt-5',
      gitRemote: 'https://github.com/acme/parser.git',
      gitBranch: 'main',
      firstTimestamp: '2026-05-11T13:28:45.000Z',
      lastTimestamp: '2026-05-11T13:40:00.000Z',
    };
    open(store, PARENT, info);
    describeSourceTask(store, PARENT, info, true, 'codex');
    expect(store.repo.get(PARENT)).toMatchObject({
      title: 'fix the parser',
      prompt: 'fix the parser',
      model: 'gpt-5',
      agent: 'codex',
      owner: 'acme',
      repo: 'parser',
      git_branch: 'main',
      task_id: 's-parent',
      created_at: '2026-05-11T13:28:45.000Z',
      started_at: '2026-05-11T13:28:45.000Z',
      completed_at: '2026-05-11T13:40:00.000Z',
      updated_at: '2026-05-11T13:40:00.000Z',
    });

    // Every assignment of title or prompt rewrites the task's search entry (its trigger).
    store.db.exec(`
      CREATE TEMP TABLE assigned (what TEXT);
      CREATE TEMP TRIGGER title_assigned AFTER UPDATE OF title, prompt ON tasks
        BEGIN INSERT INTO assigned VALUES ('title'); END;
      CREATE TEMP TRIGGER time_assigned AFTER UPDATE OF completed_at ON tasks
        BEGIN INSERT INTO assigned VALUES ('completed_at'); END;`);
    const assigned = (): string[] =>
      (store.db.prepare('SELECT what FROM assigned').all() as { what: string }[]).map(
        (r) => r.what,
      );
    describeSourceTask(store, PARENT, info, true, 'codex');
    expect(assigned()).toEqual([]);
    const later = { ...info, lastTimestamp: '2026-05-11T14:00:00.000Z' };
    describeSourceTask(store, PARENT, later, true, 'codex');
    expect(assigned()).toEqual(['completed_at']);
    expect(store.repo.get(PARENT)).toMatchObject({
      title: 'fix the parser',
      completed_at: '2026-05-11T14:00:00.000Z',
      updated_at: '2026-05-11T14:00:00.000Z',
    });

    // The agent's own title replaces the prompt's; a subagent session finds its parent.
    describeSourceTask(store, PARENT, { ...later, title: 'Parser fix' }, true, 'codex');
    expect(store.repo.get(PARENT)?.title).toBe('Parser fix');
    const child: ThreadInfo = { sessionId: 's-child', parentSessionId: 's-parent', prompt: 'look' };
    open(store, CHILD, child);
    expect(store.repo.get(CHILD)?.parent_uuid).toBeNull();
    describeSourceTask(store, CHILD, child, true, 'codex');
    expect(store.repo.get(CHILD)).toMatchObject({ parent_uuid: PARENT, task_id: 's-child' });
    store.close();
  });
});
