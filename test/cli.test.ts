import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';
import type { TaskRow } from '../src/shared/task-types';

const tempDir = useTempDir();

/** A contexts root with three tasks in different states, built through the real store. */
async function seed(root: string): Promise<{ done: string; paused: string; running: string }> {
  const store = ContextStore.open(root);
  const done = store.createTask({
    title: 'Fix login bug',
    prompt: 'Fix the login bug',
    key: { owner: 'acme', repo: 'web', user: 'ann' },
    model: 'gpt-4o',
  });
  done.addMessage({ role: 'system', content: 'You are a coding agent.' });
  done.addMessage({ role: 'user', content: 'Fix the login bug' });
  done.addMessage({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"login.ts"}' },
      },
    ],
  });
  done.addMessage({
    role: 'tool',
    content: 'export function login() {}',
    tool_name: 'read_file',
    tool_call_id: 'c1',
  });
  done.addMessage({ role: 'assistant', content: 'Fixed.' });
  await done.complete();
  const paused = store.createTask({
    title: 'Refactor API',
    key: { owner: 'acme', repo: 'api', user: 'bob' },
  });
  paused.addMessage({ role: 'user', content: 'Refactor' });
  await paused.stop();
  // "running" on behalf of this (live) test process
  const running = store.createTask({
    title: 'Write docs',
    key: { owner: 'acme', repo: 'web', user: 'bob' },
  });
  running.close();
  store.close();
  return { done: done.uuid, paused: paused.uuid, running: running.uuid };
}

describe('cwb CLI', () => {
  let root = '';
  let ids: Awaited<ReturnType<typeof seed>>;
  const cwb = (...args: string[]): ReturnType<typeof runCwb> =>
    runCwb(['--contexts', root, ...args]);

  beforeAll(async () => {
    root = path.join(
      fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'cwb-cli-')),
      'contexts',
    );
    ids = await seed(root);
  });

  it('tasks lists every task as a table and as JSON', () => {
    const table = cwb('tasks');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(
      /^ID\s+STATUS\s+UPDATED \(UTC\)\s+MSGS\s+TOKENS\s+COST\s+REPO\s+TITLE/,
    );
    expect(table.stdout).toContain('Fix login bug');
    expect(table.stdout).toContain('1–3 of 3 tasks');

    const json = cwb('tasks', '--json');
    expect(json.status).toBe(0);
    const parsed = JSON.parse(json.stdout) as { total: number; tasks: TaskRow[] };
    expect(parsed.total).toBe(3);
    expect(parsed.tasks.find((t) => t.uuid === ids.done)).toMatchObject({
      status: 'completed',
      total_messages: 5,
      repository: 'acme/web',
    });
  });

  it('tasks filters by status, repo, user and search, and pages with --limit', () => {
    const uuids = (...args: string[]): string[] =>
      (JSON.parse(cwb('tasks', '--json', ...args).stdout) as { tasks: TaskRow[] }).tasks
        .map((t) => t.uuid)
        .sort();
    expect(uuids('--status', 'completed')).toEqual([ids.done]);
    expect(uuids('--status', 'paused,running')).toEqual([ids.paused, ids.running].sort());
    expect(uuids('--repo', 'acme/web')).toEqual([ids.done, ids.running].sort());
    expect(uuids('--user', 'bob')).toEqual([ids.paused, ids.running].sort());
    expect(uuids('--search', 'login')).toEqual([ids.done]);
    expect(uuids('--limit', '1')).toHaveLength(1);
  });

  it('show prints the key, status, statistics and folder; --json carries the row and final summary', () => {
    const shown = cwb('show', ids.done);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`${ids.done}  completed`);
    expect(shown.stdout).toContain('messages:    5');
    expect(shown.stdout).toContain(path.join(root, 'completed', ids.done));
    const json = JSON.parse(cwb('show', ids.done, '--json').stdout) as {
      task: TaskRow;
      final_summary: string;
    };
    expect(json.task.uuid).toBe(ids.done);
    expect(json.final_summary).toContain('Goal: Fix the login bug');
  });

  it('messages prints a window of the history or of the current context', () => {
    const window = JSON.parse(
      cwb('messages', ids.done, '--from', '2', '--limit', '2', '--json').stdout,
    ) as {
      total: number;
      messages: { seq: number; role: string }[];
    };
    expect(window.total).toBe(5);
    expect(window.messages.map((m) => [m.seq, m.role])).toEqual([
      [2, 'user'],
      [3, 'assistant'],
    ]);
    const text = cwb('messages', ids.done, '--from', '3', '--limit', '2');
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('#3 assistant');
    expect(text.stdout).toContain('→ read_file({"path":"login.ts"}) [c1]');
    expect(text.stdout).toContain('#4 tool');
    const current = JSON.parse(cwb('messages', ids.done, '--current', '--json').stdout) as {
      view: string;
      messages: { index: number; role: string }[];
    };
    expect(current.view).toBe('current');
    expect(current.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('refuses unknown and malformed task ids in every command with exit code 2', () => {
    for (const command of ['show', 'messages']) {
      for (const bad of ['../x', '/etc/passwd', '..', 'C:\\Windows', `${'a'.repeat(300)}`]) {
        const r = cwb(command, bad);
        expect(r.status, `${command} ${bad}`).toBe(2);
        expect(r.stderr).toMatch(/^cwb: error: .* is not a task id/);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      const unknown = cwb(command, '550e8400-e29b-41d4-a716-446655440000');
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(
        /^cwb: error: no task with id 550e8400-e29b-41d4-a716-446655440000/,
      );
    }
    expect(fs.readdirSync(path.dirname(root)).sort()).toEqual(['contexts']);
  });

  it('usage errors exit with 1 and one clear line', () => {
    const unknownOption = cwb('tasks', '--colour');
    expect(unknownOption.status).toBe(1);
    expect(unknownOption.stderr).toMatch(/^cwb: error: unknown option '--colour'/);
    const badLimit = cwb('tasks', '--limit', 'lots');
    expect(badLimit.status).toBe(1);
    expect(badLimit.stderr).toBe(
      'cwb: error: --limit: "lots" is not a whole number from 1 to 10000\n',
    );
    const badStatus = cwb('tasks', '--status', 'done');
    expect(badStatus.status).toBe(1);
    expect(badStatus.stderr).toMatch(/--status: "done" is not a status/);
    expect(cwb('show').status).toBe(1);
    expect(cwb('frobnicate').status).toBe(1);
  });

  it('cleanup --dry-run lists old tasks and removes nothing', () => {
    const r = cwb('cleanup', '--days', '0', '--dry-run', '--json');
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { dryRun: boolean; removed: { uuid: string }[] };
    expect(result.dryRun).toBe(true);
    expect(result.removed.map((t) => t.uuid)).toEqual([ids.done]);
    expect(fs.existsSync(path.join(root, 'completed', ids.done))).toBe(true);
  });

  it('doctor checks the store and reports ok', () => {
    const r = cwb('doctor');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ok\s+tasks\.db: schema v\d+, wal journal, integrity ok/m);
    expect(r.stdout).toMatch(/^ok\s+recovery: tasks.db and the folders agree/m);
  });
});

describe('cwb with a config file', () => {
  it('init writes an example config and the contexts folder', () => {
    const dir = tempDir();
    const config = path.join(dir, 'conf', 'config.yaml');
    const contexts = path.join(dir, 'ctx');
    const r = runCwb(['--contexts', contexts, '--config', config, 'init', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ contexts, config, wrote_config: true });
    for (const f of ['tasks.db', 'running', 'paused', 'completed'])
      expect(fs.existsSync(path.join(contexts, f))).toBe(true);
    expect(fs.readFileSync(config, 'utf8')).toContain('context_storage:');
    const again = runCwb(['--contexts', contexts, '--config', config, 'init', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ wrote_config: false });
  });

  it('a bad value in config.yaml is exit 2 with the key, the value and what is allowed', () => {
    const dir = tempDir();
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(config, 'context_storage:\n  compression_threshold: 1.5\n');
    const r = runCwb(['--contexts', path.join(dir, 'ctx'), '--config', config, 'tasks']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/context_storage\.compression_threshold = 1\.5/);
    expect(r.stderr).toMatch(/greater than 0 and at most 1/);
    const doctor = runCwb(['--contexts', path.join(dir, 'ctx'), '--config', config, 'doctor']);
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(/^fail\s+config: .*compression_threshold/m);
  });

  it('CWB_CONTEXTS chooses the contexts folder; --contexts wins over it', () => {
    const dir = tempDir();
    const fromEnv = path.join(dir, 'env-ctx');
    const r = runCwb(['init', '--json', '--config', path.join(dir, 'c.yaml')], {
      CWB_CONTEXTS: fromEnv,
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ contexts: fromEnv });
    const flag = path.join(dir, 'flag-ctx');
    const r2 = runCwb(
      ['--contexts', flag, 'init', '--json', '--config', path.join(dir, 'c.yaml')],
      { CWB_CONTEXTS: fromEnv },
    );
    expect(JSON.parse(r2.stdout)).toMatchObject({ contexts: flag });
  });
});
