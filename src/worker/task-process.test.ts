import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runTaskProcess } from './task-process';
import type { WorkerChannel } from './worker-channel';
import { ContextStore } from '../core/store/context-store';
import { taskSpecSchema, type WorkerEvent } from '../shared/worker-protocol';
import { startScriptedLlm, type ScriptedLlm } from '../../test/support/scripted-llm-server';
import { makeTaskEnv } from '../../test/support/task-env';
import { useTempDir } from '../../test/support/temp-dir';
import { loadConfig } from '../core/config/load-config';
import type { AppConfig } from '../core/config/app-config';

/**
 * The task process in this process (its entry is src/worker/index.ts), with a full disk
 * injected where a real one hits first: the write of a model call's request.json (a write on
 * an open file, so the error names no file), and the folder move that pausing needs.
 * test/reliability/full-disk.test.ts does the same on a real full tmpfs where root may mount one.
 */

const tempDir = useTempDir();
const restores: (() => void)[] = [];
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const restore of restores.splice(0).reverse()) restore();
  for (const s of servers.splice(0)) await s.close();
  vi.restoreAllMocks();
});

function enospc(syscall: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${syscall}`);
  err.code = 'ENOSPC';
  err.syscall = syscall;
  return err;
}

/**
 * From the `nth` request.json opened on, its writes fail with `error()`. request.json is
 * opened and written synchronously through its descriptor (request-file.ts), so the writes
 * to those descriptors fail, until they are closed.
 */
function failRequestWrites(nth: number, error: () => Error): void {
  const realOpen = fs.openSync;
  const realClose = fs.closeSync;
  const realWriteSync = fs.writeSync;
  const failing = new Set<number>();
  let opened = 0;
  fs.openSync = ((...args: Parameters<typeof realOpen>) => {
    const fd = realOpen(...args);
    if (path.basename(String(args[0])) === 'request.json' && ++opened >= nth) failing.add(fd);
    return fd;
  }) as typeof realOpen;
  fs.closeSync = ((fd: number) => {
    failing.delete(fd);
    realClose(fd);
  }) as typeof realClose;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (failing.has(fd)) throw error();
    return (realWriteSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  restores.push(() => {
    fs.openSync = realOpen;
    fs.closeSync = realClose;
    fs.writeSync = realWriteSync;
  });
}

/** From the `nth` request.json on, its writes fail with ENOSPC (the file is opened, as on a real disk). */
function failRequestWritesFrom(nth: number): void {
  failRequestWrites(nth, () => enospc('write'));
}

/** From the `nth` request.json on, its writes fail with an unexpected error saying `text`. */
function failRequestWritesWith(nth: number, text: string): void {
  failRequestWrites(nth, () => new Error(text));
}

/** Folder moves out of running/ fail with ENOSPC (what a full disk does to the move's journal). */
function failTaskMoves(): void {
  const realRename = fs.renameSync;
  fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    if (path.basename(path.dirname(String(from))) === 'running') throw enospc('rename');
    realRename(from, to);
  }) as typeof fs.renameSync;
  restores.push(() => {
    fs.renameSync = realRename;
  });
}

async function setup(apiKey = 'sk-x'): Promise<{
  env: ReturnType<typeof makeTaskEnv>;
  run: (mode: 'new' | 'resume') => Promise<{ code: number; events: WorkerEvent[] }>;
  uuid: string;
}> {
  let finishing = false;
  const llm = await startScriptedLlm({
    flavor: 'openai',
    script: (_r, i) =>
      finishing || i > 0
        ? { content: 'Done.' }
        : { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
  });
  servers.push(llm);
  const env = makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
  const uuid = crypto.randomUUID();
  const run = (mode: 'new' | 'resume'): Promise<{ code: number; events: WorkerEvent[] }> => {
    finishing = mode === 'resume';
    return runInProcess(env, { uuid, mode, prompt: 'Look around.', apiKey });
  };
  return { env, run, uuid };
}

/** Runs a task process in this process, with a host that only records what it is told. */
async function runInProcess(
  env: ReturnType<typeof makeTaskEnv>,
  task: { uuid: string; mode: 'new' | 'resume'; prompt: string; apiKey: string },
  config?: AppConfig,
): Promise<{ code: number; events: WorkerEvent[] }> {
  const events: WorkerEvent[] = [];
  const host: WorkerChannel = {
    send: (e) => events.push(e),
    onMessage: () => undefined,
    release: () => undefined,
  };
  const spec = taskSpecSchema.parse({
    uuid: task.uuid,
    mode: task.mode,
    contextsRoot: env.root,
    configFile: env.configFile,
    prompt: task.prompt,
    workdir: env.workdir,
  });
  const vars = { ...process.env, OPENAI_API_KEY: task.apiKey };
  return { code: await runTaskProcess(spec, host, vars, config ? { config } : {}), events };
}

const PAUSED =
  /^the disk is full \(no space left writing .*[/\\]running[/\\][0-9a-f-]{36}[/\\]request\.json\): the task was paused; free some space and resume it$/;

describe('the task process on a full disk', () => {
  it('pauses the task (not fails it) with a message naming the file and what to do; it resumes once space is back', async () => {
    const { env, run, uuid } = await setup();
    failRequestWritesFrom(2);
    const { code, events } = await run('new');
    expect(code).toBe(0);
    const status = events.filter((e) => e.type === 'status');
    expect(status.at(-1)).toMatchObject({ status: 'paused', error: expect.stringMatching(PAUSED) });
    let store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({
      status: 'paused',
      llm_call_count: 1,
      error_message: expect.stringMatching(PAUSED),
    });
    expect(fs.existsSync(path.join(env.root, 'paused', uuid, 'messages.jsonl'))).toBe(true);
    store.close();

    restores.splice(0).forEach((restore) => restore());
    const resumed = await run('resume');
    expect(resumed.code).toBe(0);
    store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({ status: 'completed', error_message: null });
    store.close();
  });

  it('when even pausing fails: tells the host, prints one line, exits with 1 and leaves the task for recovery', async () => {
    const { env, run, uuid } = await setup();
    failRequestWritesFrom(2);
    failTaskMoves();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { code, events } = await run('new');
    expect(code).toBe(1);
    const told =
      /^the disk is full \(no space left writing .*request\.json\): the task could not be paused either; free some space and resume it$/;
    expect(events.at(-1)).toMatchObject({ type: 'error', message: expect.stringMatching(told) });
    const printed = stderr.mock.calls.map((c) => String(c[0])).join('');
    expect(printed.trim().split('\n')).toHaveLength(1);
    expect(printed).toMatch(/^cwb worker: the disk is full/);
    stderr.mockRestore();
    restores.splice(0).forEach((restore) => restore());
    // The move was refused, so the transaction rolled back: still "running" where it was.
    const store = ContextStore.open(env.root, { recover: false });
    expect(store.requireTask(uuid).status).toBe('running');
    expect(fs.existsSync(path.join(env.root, 'running', uuid, 'messages.jsonl'))).toBe(true);
    store.close();
  });
});

describe('the task process after an unexpected error', () => {
  it('fails the task with the error message, the API key scrubbed from it', async () => {
    const key = 'sk-live-0123456789abcdef';
    const { env, run, uuid } = await setup(key);
    failRequestWritesWith(2, `proxy said: bad key ${key}`);
    const { code, events } = await run('new');
    expect(code).toBe(0);
    const store = ContextStore.open(env.root);
    const row = store.requireTask(uuid);
    expect(row.status).toBe('failed');
    expect(row.error_message).toContain('proxy said: bad key');
    expect(row.error_message).not.toContain(key);
    expect(JSON.stringify(events)).not.toContain(key);
    store.close();
  });
});

describe('the config of a task process', () => {
  async function scriptedEnv(): Promise<ReturnType<typeof makeTaskEnv>> {
    const llm = await startScriptedLlm({ flavor: 'openai', script: () => ({ content: 'Done.' }) });
    servers.push(llm);
    return makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
  }

  async function runWith(
    env: ReturnType<typeof makeTaskEnv>,
    config?: AppConfig,
  ): Promise<{ code: number; events: WorkerEvent[]; uuid: string }> {
    const uuid = crypto.randomUUID();
    const task = { uuid, mode: 'new' as const, prompt: 'Say done.', apiKey: 'sk-x' };
    return { ...(await runInProcess(env, task, config)), uuid };
  }

  it('is the one its host handed over: config.yaml is not read again', async () => {
    const env = await scriptedEnv();
    const { config } = loadConfig({ file: env.configFile, env: { OPENAI_API_KEY: 'sk-x' } });
    // Broken since the host loaded it: only a task process that reads it again notices.
    fs.writeFileSync(env.configFile, 'llm: [never closed\n');
    const { code, uuid } = await runWith(env, config);
    expect(code).toBe(0);
    const store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({ status: 'completed', model: 'gpt-4o' });
    store.close();
  });

  it('is loaded from config.yaml when none was handed over, and a broken one is reported', async () => {
    const env = await scriptedEnv();
    const good = await runWith(env);
    expect(good.code).toBe(0);
    fs.writeFileSync(env.configFile, 'llm: [never closed\n');
    const broken = await runWith(env);
    expect(broken.code).toBe(2);
    expect(broken.events.at(-1)).toMatchObject({
      type: 'error',
      message: expect.stringContaining('config.yaml'),
    });
  });
});
