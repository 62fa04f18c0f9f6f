import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { useTempDir } from '../../../test/support/temp-dir';
import { TASK_FILES } from './contexts-layout';

const tempDir = useTempDir();

function openStore(options: Parameters<typeof ContextStore.open>[1] = {}): ContextStore {
  return ContextStore.open(path.join(tempDir(), 'contexts'), options);
}

const exists = (p: string): boolean => fs.existsSync(p);

describe('ContextStore layout', () => {
  it('creates tasks.db and the three status folders', () => {
    const store = openStore();
    for (const f of ['tasks.db', 'running', 'paused', 'completed'])
      expect(exists(path.join(store.root, f))).toBe(true);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    store.close();
  });

  it('refuses task ids that are not lowercase UUID v4 before touching a path', () => {
    const store = openStore();
    for (const bad of [
      '../x',
      '/etc/passwd',
      'a\0b',
      '550E8400-E29B-41D4-A716-446655440000',
      'x'.repeat(5000),
      '',
    ]) {
      expect(() => store.createTask({ uuid: bad })).toThrow(/is not a task id/);
      expect(() => store.readTask(bad)).toThrow(/is not a task id/);
    }
    expect(fs.readdirSync(path.join(store.root, 'running'))).toEqual([]);
    store.close();
  });
});

describe('task lifecycle', () => {
  it('create writes metadata.json with both seeds fields and inserts a running row', () => {
    const store = openStore();
    const task = store.createTask({
      title: 'Fix login',
      prompt: 'Fix the login bug',
      key: {
        task_source: 'github',
        owner: 'notfolder',
        repo: 'coding_agent',
        task_type: 'issue',
        task_id: '27',
        user: 'alice',
      },
      llm_provider: 'openai',
      model: 'gpt-4o',
      context_length: 128000,
    });
    expect(task.dir).toBe(path.join(store.root, 'running', task.uuid));
    const meta = JSON.parse(fs.readFileSync(path.join(task.dir, TASK_FILES.metadata), 'utf8'));
    expect(meta).toMatchObject({
      uuid: task.uuid,
      task_key: {
        task_source: 'github',
        owner: 'notfolder',
        repo: 'coding_agent',
        task_type: 'issue',
        task_id: '27',
      },
      config: { llm_provider: 'openai', model: 'gpt-4o', context_length: 128000 },
      user: 'alice',
      task_type: 'issue',
      task_identifier: '27',
      repository: 'notfolder/coding_agent',
      process_id: process.pid,
    });
    const row = store.requireTask(task.uuid);
    expect(row).toMatchObject({
      status: 'running',
      repository: 'notfolder/coding_agent',
      task_identifier: '27',
      user: 'alice',
    });
    task.close();
    store.close();
  });

  it('refuses a second task with the same uuid', () => {
    const store = openStore();
    const task = store.createTask();
    expect(() => store.createTask({ uuid: task.uuid })).toThrow(/exists already/);
    task.close();
    store.close();
  });

  it('a history task is made completed with its metadata, and its empty logs only when first written', () => {
    const store = openStore();
    const uuid = '0b5c5f4e-8a8e-4c55-9d3b-3d2f1c1a7e01';
    const task = store.createHistoryTask({
      uuid,
      title: 'a session',
      key: { task_source: 'claude-code', task_id: 's1' },
      source: { format: 'claude-code', live: true },
    });
    const dir = path.join(store.root, 'completed', uuid);
    expect(task.dir).toBe(dir);
    const row = store.repo.get(uuid)!;
    expect(row).toMatchObject({
      status: 'completed',
      process_id: null,
      hostname: null,
      task_source: 'claude-code',
      task_id: 's1',
    });
    // Started and ended as it was made, as a task made running and then completed.
    expect(row.started_at).toBe(row.created_at);
    expect(row.completed_at).toBe(row.created_at);
    // The status folder's count knows it (facet counts follow the inserted row).
    expect(store.repo.statusCounts({}).completed).toBe(1);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, TASK_FILES.metadata), 'utf8')) as {
      title: string;
      source: unknown;
    };
    expect(meta).toMatchObject({ title: 'a session', source: { format: 'claude-code' } });
    // No temp file of the atomic write is left beside it.
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
    for (const file of [TASK_FILES.summaries, TASK_FILES.tools, TASK_FILES.planning])
      expect(exists(path.join(dir, file))).toBe(false);
    expect(task.summaries.nextId).toBe(1);
    expect(task.summaries.latest()).toBeUndefined();
    expect(task.planning.last(3)).toEqual([]);
    expect(task.tools.count()).toBe(0);
    task.messages.append({ role: 'user', content: 'hi' });
    expect(
      task.tools.add({ tool: 'ls', args: {}, result: 'a', status: 'success', duration_ms: 1 }).seq,
    ).toBe(1);
    expect(task.tools.count()).toBe(1);
    expect(() => store.createHistoryTask({ uuid })).toThrow(/exists already/);
    task.close();
    const reader = store.readTask(uuid);
    expect(reader.tools().records.map((t) => t.seq)).toEqual([1]);
    expect(reader.summaries().records).toEqual([]);
    expect(reader.metadata()).toMatchObject({ uuid, title: 'a session' });
    store.close();
  });

  it("a history task's folder takes its uuid only with its row, and a failed create leaves nothing behind", () => {
    const store = openStore();
    const uuid = '0b5c5f4e-8a8e-4c55-9d3b-3d2f1c1a7e03';
    const completed = path.join(store.root, 'completed');
    // Inside the write transaction the folder is filled already, under its staging name.
    let seenInTransaction: string[] = [];
    let stagedFiles: string[] = [];
    const write = store.repo.write.bind(store.repo);
    store.repo.write = <T>(fn: () => T): T =>
      write(() => {
        seenInTransaction = fs.readdirSync(completed);
        stagedFiles = fs.readdirSync(path.join(completed, seenInTransaction[0]!));
        return fn();
      });
    const task = store.createHistoryTask({ uuid, title: 'a session' });
    expect(seenInTransaction).toEqual([`.new-${uuid}-${process.pid}`]);
    expect(stagedFiles).toEqual([TASK_FILES.metadata]);
    expect(fs.readdirSync(completed)).toEqual([uuid]);
    expect(fs.readdirSync(task.dir)).toContain(TASK_FILES.metadata);
    task.close();
    // A uuid with a row already: refused, and its staging folder removed.
    expect(() => store.createHistoryTask({ uuid })).toThrow(/exists already/);
    // A folder of that uuid without a row (a crash's leftover): refused as well.
    const other = '0b5c5f4e-8a8e-4c55-9d3b-3d2f1c1a7e04';
    fs.mkdirSync(path.join(completed, other));
    expect(() => store.createHistoryTask({ uuid: other })).toThrow(/exists already/);
    expect(store.repo.get(other)).toBeUndefined();
    expect(fs.readdirSync(completed).sort()).toEqual([uuid, other].sort());
    store.close();
  });

  it('stop → paused/, resume → running/, complete → completed/ with final_summary.txt', async () => {
    const store = openStore({ summarizer: (t) => `summary of ${t.uuid}` });
    const task = store.createTask({ title: 't' });
    task.addMessage({ role: 'user', content: 'hello' });
    const stopped: string[] = [];
    task.registerStopHook('note', (t) => void stopped.push(t.uuid));
    await task.stop();
    expect(stopped).toEqual([task.uuid]);
    expect(store.requireTask(task.uuid).status).toBe('paused');
    expect(exists(path.join(store.root, 'paused', task.uuid, TASK_FILES.messages))).toBe(true);
    expect(exists(path.join(store.root, 'running', task.uuid))).toBe(false);
    expect(() => task.addMessage({ role: 'user', content: 'late' })).toThrow(/no longer open/);

    const resumed = store.resumeTask(task.uuid);
    expect(resumed.dir).toBe(path.join(store.root, 'running', task.uuid));
    const next = resumed.addMessage({ role: 'assistant', content: 'hi again' });
    expect(next.seq).toBe(2);
    const completedHooks: string[] = [];
    resumed.registerCompletionHook('a', () => void completedHooks.push('a'));
    resumed.registerCompletionHook('b', () => {
      throw new Error('hook b broke');
    });
    const failures = await resumed.complete();
    expect(completedHooks).toEqual(['a']);
    expect(failures).toEqual([{ hook: 'b', error: 'hook b broke' }]);
    const row = store.requireTask(task.uuid);
    expect(row.status).toBe('completed');
    expect(row.completed_at).not.toBeNull();
    expect(row).toMatchObject({ total_messages: 2, final_message_count: 2 });
    const done = path.join(store.root, 'completed', task.uuid);
    expect(fs.readFileSync(path.join(done, TASK_FILES.finalSummary), 'utf8')).toBe(
      `summary of ${task.uuid}\n`,
    );
    expect(() => store.resumeTask(task.uuid)).toThrow(/has completed/);
    store.close();
  });

  it('fail → completed/ with the error message, and can be resumed', () => {
    const store = openStore();
    const task = store.createTask();
    task.fail('model returned 500');
    const row = store.requireTask(task.uuid);
    expect(row).toMatchObject({ status: 'failed', error_message: 'model returned 500' });
    expect(exists(path.join(store.root, 'completed', task.uuid))).toBe(true);
    const again = store.resumeTask(task.uuid);
    expect(store.requireTask(task.uuid)).toMatchObject({
      status: 'running',
      error_message: null,
      completed_at: null,
    });
    again.close();
    store.close();
  });

  it('a summarizer that throws is reported and the task still completes', async () => {
    const store = openStore({
      summarizer: () => {
        throw new Error('no LLM');
      },
    });
    const task = store.createTask();
    const failures = await task.complete();
    expect(failures).toEqual([{ hook: 'final-summary', error: 'no LLM' }]);
    expect(store.requireTask(task.uuid).status).toBe('completed');
    store.close();
  });

  it('the default summarizer writes an offline digest of the task', async () => {
    const store = openStore();
    const task = store.createTask({ title: 'Digest me' });
    task.addMessage({ role: 'user', content: 'Rename foo to bar in src/' });
    task.addMessage({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
        },
      ],
    });
    task.addMessage({
      role: 'tool',
      content: 'export const foo = 1',
      tool_call_id: 'c1',
      tool_name: 'read_file',
    });
    task.addMessage({ role: 'assistant', content: 'Renamed foo to bar in 3 files.' });
    await task.complete();
    const text = store.readTask(task.uuid).finalSummary() ?? '';
    expect(text).toContain('Goal: Rename foo to bar in src/');
    expect(text).toContain('read_file ×1');
    expect(text).toContain('Outcome: Renamed foo to bar in 3 files.');
    store.close();
  });

  it('updates updated_at and the statistics once per step (message counts batched until the row is read)', async () => {
    const store = openStore();
    const task = store.createTask();
    const before = store.requireTask(task.uuid).updated_at;
    await new Promise((r) => setTimeout(r, 5));
    task.addMessage({ role: 'user', content: 'x'.repeat(400) });
    // Batched: nothing written to tasks.db per message...
    expect(store.requireTask(task.uuid).total_messages).toBe(0);
    // ...until the step ends (the agent loop reads the row for its progress event).
    const afterMessage = task.row();
    expect(afterMessage.total_messages).toBe(1);
    expect(afterMessage.updated_at > before).toBe(true);
    task.recordLlmCall({
      input_tokens: 100,
      output_tokens: 20,
      cache_creation_tokens: 3,
      cache_read_tokens: 40,
    });
    task.recordLlmCall({ input_tokens: 1, output_tokens: 2, total_tokens: 10 });
    task.recordToolCall({
      tool: 'read_file',
      args: { path: 'a' },
      result: 'ok',
      status: 'success',
      duration_ms: 3,
    });
    task.recordSummary({
      strategy: 'summarize',
      start_seq: 1,
      end_seq: 1,
      summary: 's',
      original_tokens: 100,
      summary_tokens: 10,
      compressed_message_count: 1,
    });
    expect(store.requireTask(task.uuid)).toMatchObject({
      llm_call_count: 2,
      input_tokens: 101,
      output_tokens: 22,
      cache_creation_tokens: 3,
      cache_read_tokens: 40,
      total_tokens: 130,
      tool_call_count: 1,
      total_tool_calls: 1,
      compression_count: 1,
      total_summaries: 1,
      total_messages: 1,
    });
    expect(task.statistics()).toEqual({
      total_messages: 1,
      total_summaries: 1,
      total_tool_calls: 1,
      final_token_count: 100,
      final_message_count: 1,
    });
    task.close();
    store.close();
  });
});

describe('listing', () => {
  it('filters, searches, sorts and pages in SQLite', () => {
    const store = openStore();
    const make = (title: string, repo: string, user: string): string => {
      const t = store.createTask({
        title,
        prompt: `prompt ${title}`,
        key: { owner: 'acme', repo, user },
      });
      t.close();
      return t.uuid;
    };
    make('alpha 100%', 'web', 'ann');
    make('beta', 'web', 'bob');
    make('gamma_x', 'api', 'ann');
    expect(store.listTasks({ repo: 'web' }).total).toBe(2);
    expect(store.listTasks({ repo: 'acme/api' }).total).toBe(1);
    expect(store.listTasks({ user: 'ann' }).total).toBe(2);
    expect(store.listTasks({ search: '100%' }).rows.map((r) => r.title)).toEqual(['alpha 100%']);
    // LIKE wildcards in the search text are literal
    expect(store.listTasks({ search: 'b_t' }).total).toBe(0);
    expect(store.listTasks({ search: 'a_x' }).rows.map((r) => r.title)).toEqual(['gamma_x']);
    expect(store.listTasks({ sort: 'title', order: 'asc' }).rows.map((r) => r.title)).toEqual([
      'alpha 100%',
      'beta',
      'gamma_x',
    ]);
    const page = store.listTasks({ sort: 'title', order: 'asc', limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3 });
    expect(page.rows.map((r) => r.title)).toEqual(['beta']);
    expect(store.listTasks({ status: ['paused'] }).total).toBe(0);
    store.close();
  });
});

describe('a status change whose transaction fails after the folder was renamed', () => {
  /**
   * Makes the next COMMIT that follows a status update fail, with real SQLite: a trigger
   * inserts a row breaking a deferred foreign key, which is only checked at COMMIT — after
   * the folder has moved, like a COMMIT failing with SQLITE_FULL on a full disk.
   */
  function failNextCommit(store: ContextStore): () => void {
    store.db.pragma('foreign_keys = ON');
    store.db.exec(`
      CREATE TABLE fault_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE fault_child (
        parent INTEGER REFERENCES fault_parent(id) DEFERRABLE INITIALLY DEFERRED
      );
      CREATE TRIGGER fault_on_status AFTER UPDATE OF status ON tasks
        BEGIN INSERT INTO fault_child (parent) VALUES (-1); END;
    `);
    return () => store.db.exec('DROP TRIGGER fault_on_status');
  }

  it('transition renames the folder back, so the row and the folder still agree and the task goes on', async () => {
    const store = openStore();
    const task = store.createTask({ title: 'commit fails' });
    task.addMessage({ role: 'user', content: 'hello' });
    const running = task.dir;
    const heal = failNextCommit(store);
    await expect(task.stop()).rejects.toThrow(/FOREIGN KEY/);
    expect(store.requireTask(task.uuid).status).toBe('running');
    expect(exists(running)).toBe(true);
    expect(exists(path.join(store.root, 'paused', task.uuid))).toBe(false);
    heal();
    // The task can still change status: its folder is where its row says.
    const again = store.openTask(task.uuid);
    await again.stop();
    expect(store.requireTask(task.uuid).status).toBe('paused');
    expect(exists(path.join(store.root, 'paused', task.uuid, TASK_FILES.messages))).toBe(true);
    store.close();
  });

  it('resumeTask renames the folder back to paused/', async () => {
    const store = openStore();
    const task = store.createTask({ title: 'resume commit fails' });
    await task.stop();
    const paused = path.join(store.root, 'paused', task.uuid);
    const heal = failNextCommit(store);
    expect(() => store.resumeTask(task.uuid)).toThrow(/FOREIGN KEY/);
    expect(store.requireTask(task.uuid).status).toBe('paused');
    expect(exists(paused)).toBe(true);
    expect(exists(path.join(store.root, 'running', task.uuid))).toBe(false);
    heal();
    const resumed = store.resumeTask(task.uuid);
    expect(resumed.dir).toBe(path.join(store.root, 'running', task.uuid));
    resumed.close();
    store.close();
  });
});
