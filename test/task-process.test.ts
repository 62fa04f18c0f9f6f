import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskSupervisor } from '../src/core/supervisor/task-supervisor';
import { nodeForkWorker } from '../src/core/supervisor/node-fork';
import type { WorkerHandle } from '../src/core/supervisor/worker-handle';
import { ContextStore } from '../src/core/store/context-store';
import { toProviderMessage } from '../src/core/llm';
import type { WorkerEvent } from '../src/shared/worker-protocol';
import { startScriptedLlm, type ScriptedLlm, type ScriptStep } from './support/scripted-llm-server';
import { BUILT_WORKER } from './support/run-ts';
import { moduleListHook } from './support/module-list';
import { allFiles, deadRunningTask, makeTaskEnv, readCurrent } from './support/task-env';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const API_KEY = 'sk-test-4f9c1e2b7a6d5c3e';
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function supervisorFor(
  env: { root: string; configFile: string },
  worker: { file: string; execArgv: string[] } = BUILT_WORKER,
): {
  supervisor: TaskSupervisor;
  events: WorkerEvent[];
} {
  const supervisor = new TaskSupervisor({
    fork: nodeForkWorker(worker),
    contextsRoot: env.root,
    configFile: env.configFile,
    env: { ...process.env, OPENAI_API_KEY: API_KEY },
  });
  const events: WorkerEvent[] = [];
  supervisor.on('event', (e) => events.push(e));
  return { supervisor, events };
}

describe('a task process against a scripted OpenAI-compatible server', () => {
  it('streams each request from current.jsonl, runs tools, records statistics, completes with a final summary, and never writes the key', async () => {
    const base = tempDir();
    let uuid = '';
    let root = '';
    const mismatches: string[] = [];
    const steps: ScriptStep[] = [
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { prompt_tokens: 100, completion_tokens: 10, cached_tokens: 40 },
      },
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'out/result.txt', content: 'gamma found\n' } },
        ],
        usage: { prompt_tokens: 150, completion_tokens: 20 },
      },
      { content: 'Wrote out/result.txt.', usage: { prompt_tokens: 200, completion_tokens: 5 } },
      { content: 'The agent read notes.txt and wrote out/result.txt.' },
    ];
    const llm = await startScriptedLlm({
      flavor: 'openai',
      requireKey: API_KEY,
      script: (request, index) => {
        const body = request.body as { messages: unknown[] };
        // The last request is the final summary (a one-shot prompt, not the context).
        if (index < 3) {
          const expected = readCurrent(root, uuid).map((m) => toProviderMessage('openai', m));
          if (JSON.stringify(body.messages) !== JSON.stringify(expected))
            mismatches.push(`request ${index}`);
        }
        return steps[index]!;
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    root = env.root;
    const { supervisor, events } = supervisorFor(env);
    uuid = supervisor.start({
      prompt: 'Find gamma in notes.txt and write the result.',
      workdir: env.workdir,
    });
    const exit = await supervisor.waitForExit(uuid);
    expect(exit).toMatchObject({ code: 0, status: 'completed' });

    const chats = llm.chatRequests();
    expect(chats).toHaveLength(4);
    for (const r of chats) expect(r.invalidJson).toBeUndefined();
    expect(mismatches).toEqual([]);
    // the first request carries the system prompt, the user prompt and the tool definitions
    const first = chats[0]!.body as {
      model: string;
      messages: { role: string }[];
      tools: { function: { name: string } }[];
    };
    expect(first.model).toBe('gpt-4o');
    expect(first.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(first.tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining([
        'read_file',
        'write_file',
        'grep',
        'list_dir',
        'update_plan',
        'tool_output_cache',
      ]),
    );
    expect(first.tools.map((t) => t.function.name)).not.toContain('run_command');

    expect(fs.readFileSync(path.join(env.workdir, 'out', 'result.txt'), 'utf8')).toBe(
      'gamma found\n',
    );
    const store = ContextStore.open(env.root);
    const row = store.requireTask(uuid);
    expect(row).toMatchObject({
      status: 'completed',
      llm_call_count: 3,
      tool_call_count: 2,
      input_tokens: 410, // seed 002 §2.3: cached tokens are counted apart (450 − 40)
      output_tokens: 35,
      cache_read_tokens: 40,
      total_tokens: 485,
      total_messages: 7,
      final_message_count: 7,
      model: 'gpt-4o',
      llm_provider: 'openai',
      workdir: env.workdir,
    });
    const reader = store.readTask(uuid);
    expect(reader.finalSummary()).toBe('The agent read notes.txt and wrote out/result.txt.');
    const tools = reader.tools().records;
    expect(tools.map((t) => [t.tool, t.status])).toEqual([
      ['read_file', 'success'],
      ['write_file', 'success'],
    ]);
    expect(tools[0]!.result).toContain('gamma');
    const history = reader.messages(1, 100).messages;
    expect(history.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(history[2]!.usage).toEqual({
      input_tokens: 60,
      output_tokens: 10,
      cache_creation_tokens: 0,
      cache_read_tokens: 40,
      total_tokens: 110,
    });
    expect(history[3]!.tool_call_id).toBe(history[2]!.tool_calls![0]!.id);
    store.close();

    expect(
      events.filter((e) => e.type === 'status').map((e) => (e as { status: string }).status),
    ).toEqual(['running', 'completed']);
    expect(events.some((e) => e.type === 'stats')).toBe(true);
    // The API key went in the Authorization header and nowhere else.
    for (const file of allFiles(env.root))
      expect(fs.readFileSync(file).includes(API_KEY), file).toBe(false);
    expect(fs.existsSync(path.join(env.root, 'completed', uuid, 'request.json'))).toBe(false);
  });

  it('makes its model calls without loading node:http or node:fs/promises', async () => {
    // Each would be memory every task process carries (docs/benchmarks.md, group 1): the
    // calls go over src/core/llm/http1-request.ts, and request.json is read and written
    // through synchronous descriptors.
    const base = tempDir();
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: [
        { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { stream: false, tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { content: 'Read it.' },
        { content: 'The agent read notes.txt.' },
      ],
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const modules = moduleListHook(base);
    const { supervisor } = supervisorFor(env, {
      file: BUILT_WORKER.file,
      execArgv: ['--require', modules.hook],
    });
    const uuid = supervisor.start({ prompt: 'Read notes.txt twice.', workdir: env.workdir });
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ status: 'completed' });
    // Four calls: two answers with a tool call (streamed and not), the last answer, the summary.
    expect(llm.chatRequests()).toHaveLength(4);
    const builtins = modules.builtins();
    expect(builtins).toContain('NativeModule net');
    for (const unwanted of ['http', 'https', 'internal/fs/promises']) {
      expect(builtins, unwanted).not.toContain(`NativeModule ${unwanted}`);
    }
  });

  it('a worker killed mid-task is marked failed with its signal and keeps every file', async () => {
    const base = tempDir();
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: [
        { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
        { content: 'never', delayMs: 60_000 },
      ],
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const { supervisor, events } = supervisorFor(env);
    const uuid = supervisor.start({ prompt: 'List the folder.', workdir: env.workdir });
    await waitFor(() => llm.chatRequests().length === 2);
    const pid = (
      supervisor as unknown as { running: Map<string, { handle: { pid: number } }> }
    ).running.get(uuid)!.handle.pid;
    process.kill(pid, 'SIGKILL');
    const exit = await supervisor.waitForExit(uuid);
    expect(exit).toMatchObject({ signal: 'SIGKILL', status: 'failed' });
    const store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({
      status: 'failed',
      error_message: 'task process killed by SIGKILL',
    });
    const dir = path.join(env.root, 'completed', uuid);
    expect(fs.readdirSync(dir)).toEqual(
      expect.arrayContaining(['metadata.json', 'messages.jsonl', 'current.jsonl', 'tools.jsonl']),
    );
    expect(
      store
        .readTask(uuid)
        .messages(1, 10)
        .messages.map((m) => m.role),
    ).toEqual(['system', 'user', 'assistant', 'tool']);
    store.close();
    expect(events.at(-1)).toMatchObject({ type: 'status', status: 'failed' });
  });
});

describe('a task process and recovery', () => {
  it('leaves recovery to its host: a dead task it does not own stays for the next host to mark', async () => {
    const base = tempDir();
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: [{ content: 'Done.' }, { content: 'Said done.' }],
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const dead = deadRunningTask(env.root);
    const { supervisor } = supervisorFor(env);
    const uuid = supervisor.start({ prompt: 'Say done.', workdir: env.workdir });
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ status: 'completed' });
    // Recovery reads every row and folder: a task process that ran it would have marked the
    // dead task, at a cost that grows with the number of tasks (issue #17).
    const look = ContextStore.open(env.root, { recover: false });
    expect(look.requireTask(dead).status).toBe('running');
    look.close();
    const host = ContextStore.open(env.root);
    expect(host.recovery?.interrupted).toEqual([dead]);
    expect(host.requireTask(dead).status).toBe('failed');
    host.close();
  });
});

describe('pause, resume and inheritance', () => {
  it('pauses after the current step, resumes in a new process from the files, and continues seq', async () => {
    const base = tempDir();
    let index = 0;
    const llm = await startScriptedLlm({
      flavor: 'ollama',
      script: () => {
        index++;
        if (index === 1)
          return {
            tool_calls: [{ name: 'update_plan', arguments: { plan: '1. read\n2. answer' } }],
            delayMs: 1500, // time for the pause to arrive first, even on a loaded machine
          };
        if (index === 2) return { content: 'All done.' };
        return { content: 'Summary: planned and answered.' };
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'ollama', url: llm.url, model: 'qwen3:8b' });
    const { supervisor } = supervisorFor(env);
    const uuid = supervisor.start({ prompt: 'Plan, then answer.', workdir: env.workdir });
    await waitFor(() => llm.chatRequests().length === 1);
    supervisor.pause(uuid);
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ code: 0, status: 'paused' });
    let store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({
      status: 'paused',
      llm_call_count: 1,
      tool_call_count: 1,
    });
    expect(fs.existsSync(path.join(env.root, 'paused', uuid, 'planning.jsonl'))).toBe(true);
    store.close();
    // Ollama's native wire format: tool calls with object arguments, tool results by name.
    const body = llm.chatRequests()[0]!.body as { model: string; stream: boolean };
    expect(body.model).toBe('qwen3:8b');

    supervisor.resume(uuid);
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ code: 0, status: 'completed' });
    store = ContextStore.open(env.root);
    const history = store.readTask(uuid).messages(1, 100).messages;
    expect(history.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(history.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(store.requireTask(uuid)).toMatchObject({ status: 'completed', llm_call_count: 2 });
    store.close();
  });

  it('a resumed task keeps its max turns (counted from its first call) and its base URL', async () => {
    const base = tempDir();
    let pause = (): void => undefined;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: (_r, i) => {
        // Pause after the 60th call: more than the default 50 turns already. The answer waits
        // so the pause (a message to the task process) is there before the next turn begins;
        // on a loaded machine an immediate answer let the process start a 61st call first.
        if (i === 59) {
          pause();
          return { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }], delayMs: 1500 };
        }
        if (i < 69) return { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] };
        return { content: i === 69 ? 'Done after 70 calls.' : 'Summary.' };
      },
    });
    servers.push(llm);
    // config.yaml points nowhere: only the base URL the task was started with reaches the model.
    const env = makeTaskEnv(base, { provider: 'openai', url: 'http://127.0.0.1:9/v1' });
    const { supervisor } = supervisorFor(env);
    const uuid = supervisor.start({
      prompt: 'Look around for a while.',
      workdir: env.workdir,
      maxTurns: 200,
      baseUrl: llm.url,
    });
    pause = () => supervisor.pause(uuid);
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ code: 0, status: 'paused' });
    let store = ContextStore.open(env.root);
    const paused = store.requireTask(uuid);
    expect(paused).toMatchObject({ status: 'paused', llm_call_count: 60 });
    expect(JSON.parse(paused.metadata!)).toEqual({ run: { max_turns: 200, base_url: llm.url } });
    store.close();

    supervisor.resume(uuid);
    const exit = await supervisor.waitForExit(uuid);
    store = ContextStore.open(env.root);
    const row = store.requireTask(uuid);
    store.close();
    expect(exit, row.error_message ?? '').toMatchObject({ code: 0, status: 'completed' });
    expect(row.llm_call_count).toBe(70);
  }, 120_000);

  it('a new run with the same task key inherits the previous final summary and plan, and records parent_uuid', async () => {
    const base = tempDir();
    const summaries = ['FIRST RUN SUMMARY: fixed the parser.', 'SECOND RUN SUMMARY.'];
    let calls = 0;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: (request) => {
        const messages = (request.body as { messages: { role: string; content: string }[] })
          .messages;
        const isSummary =
          messages.length <= 2 && messages.at(-1)!.content.startsWith('Summarize this task');
        if (isSummary) return { content: summaries.shift()! };
        calls++;
        return calls === 1
          ? { tool_calls: [{ name: 'update_plan', arguments: { plan: 'fix the parser' } }] }
          : { content: 'done' };
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const { supervisor, events } = supervisorFor(env);
    const key = {
      task_source: 'github',
      owner: 'acme',
      repo: 'web',
      task_type: 'issue',
      task_id: '27',
      user: 'ann',
    };
    const first = supervisor.start({ prompt: 'Fix issue 27', workdir: env.workdir, key });
    expect(await supervisor.waitForExit(first)).toMatchObject({ status: 'completed' });
    const second = supervisor.start({
      prompt: 'Issue 27 again: add a test',
      workdir: env.workdir,
      key,
    });
    expect(await supervisor.waitForExit(second)).toMatchObject({ status: 'completed' });

    const store = ContextStore.open(env.root);
    expect(store.requireTask(second).parent_uuid).toBe(first);
    const messages = store.readTask(second).messages(1, 3).messages;
    expect(messages[1]).toMatchObject({ role: 'user', kind: 'inheritance' });
    expect(messages[1]!.content).toContain('FIRST RUN SUMMARY: fixed the parser.');
    expect(messages[1]!.content).toContain('fix the parser');
    expect(messages[2]).toMatchObject({ role: 'user', content: 'Issue 27 again: add a test' });
    expect(
      events.some((e) => e.type === 'notice' && e.uuid === second && e.text.includes(first)),
    ).toBe(true);
    // a task with another key does not inherit
    const other = supervisor.start({
      prompt: 'Unrelated',
      workdir: env.workdir,
      key: { ...key, task_id: '28' },
    });
    expect(await supervisor.waitForExit(other)).toMatchObject({ status: 'completed' });
    expect(store.requireTask(other).parent_uuid).toBeNull();
    store.close();
  });
});

describe('the task index kept by the host', () => {
  /** A supervisor whose task processes' handles the test can reach (pid, index pipe). */
  function watchedSupervisor(env: { root: string; configFile: string }) {
    const handles: WorkerHandle[] = [];
    const fork = nodeForkWorker(BUILT_WORKER);
    const supervisor = new TaskSupervisor({
      fork: (options) => {
        const handle = fork(options);
        handles.push(handle);
        return handle;
      },
      contextsRoot: env.root,
      configFile: env.configFile,
      env: { ...process.env, OPENAI_API_KEY: API_KEY },
    });
    return { supervisor, handles };
  }

  /** Whether the process has SQLite's library mapped (Linux: /proc/<pid>/maps). */
  function hasSqlite(pid: number): boolean {
    return fs.readFileSync(`/proc/${pid}/maps`, 'utf8').includes('better_sqlite3.node');
  }

  it.runIf(process.platform === 'linux')(
    'a supervised task process never opens tasks.db: its host records the row, the counters and the folder moves',
    async () => {
      const base = tempDir();
      let sqliteWhileRunning: boolean | undefined;
      let pid = 0;
      const llm = await startScriptedLlm({
        flavor: 'openai',
        script: (_request, index) => {
          // The second call comes after a step's appends, counters and control polls.
          if (index === 1) sqliteWhileRunning = hasSqlite(pid);
          return [
            {
              tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }],
              usage: { prompt_tokens: 100, completion_tokens: 10 },
            },
            { content: 'Done.', usage: { prompt_tokens: 120, completion_tokens: 5 } },
            { content: 'The agent listed the folder.' },
          ][index]!;
        },
      });
      servers.push(llm);
      const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
      const { supervisor, handles } = watchedSupervisor(env);
      const uuid = supervisor.start({ prompt: 'List the folder.', workdir: env.workdir });
      pid = handles[0]!.pid!;
      expect(await supervisor.waitForExit(uuid)).toMatchObject({ code: 0, status: 'completed' });
      expect(sqliteWhileRunning).toBe(false);
      const store = ContextStore.open(env.root);
      expect(store.requireTask(uuid)).toMatchObject({
        status: 'completed',
        process_id: pid,
        llm_call_count: 2,
        tool_call_count: 1,
        total_messages: 5,
        input_tokens: 220,
        output_tokens: 15,
      });
      expect(fs.existsSync(path.join(env.root, 'completed', uuid, 'final_summary.txt'))).toBe(true);
      store.close();
    },
  );

  it('a pause another process leaves in tasks.db reaches a task whose index its host keeps', async () => {
    const base = tempDir();
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: [
        { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }], delayMs: 1500 },
        { content: 'never reached' },
      ],
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const { supervisor } = watchedSupervisor(env);
    const uuid = supervisor.start({ prompt: 'List the folder.', workdir: env.workdir });
    await waitFor(() => llm.chatRequests().length === 1);
    // What `cwb pause UUID` in another terminal does.
    const other = ContextStore.open(env.root, { recover: false });
    other.repo.requestControl(uuid, 'pause');
    other.close();
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ code: 0, status: 'paused' });
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('a task whose host stops keeping its index goes on with tasks.db of its own and ends as it would have', async () => {
    const base = tempDir();
    let handles: WorkerHandle[] = [];
    let sqliteAfter: boolean | undefined;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: (_request, index) => {
        // The host lets go of the pipe while the process waits for its second answer.
        if (index === 1) handles[0]!.indexPipe!.destroy();
        if (index === 2 && process.platform === 'linux') sqliteAfter = hasSqlite(handles[0]!.pid!);
        return [
          { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
          { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
          { content: 'Done.' },
          { content: 'The agent listed the folder twice.' },
        ][index]!;
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, { provider: 'openai', url: llm.url });
    const watched = watchedSupervisor(env);
    handles = watched.handles;
    const uuid = watched.supervisor.start({ prompt: 'List it twice.', workdir: env.workdir });
    expect(await watched.supervisor.waitForExit(uuid)).toMatchObject({
      code: 0,
      status: 'completed',
    });
    const store = ContextStore.open(env.root);
    expect(store.requireTask(uuid)).toMatchObject({
      status: 'completed',
      llm_call_count: 3,
      tool_call_count: 2,
      total_messages: 7,
    });
    expect(fs.existsSync(path.join(env.root, 'completed', uuid, 'final_summary.txt'))).toBe(true);
    store.close();
    // It did go on by itself: tasks.db was opened in the process once the pipe was gone.
    if (process.platform === 'linux') expect(sqliteAfter).toBe(true);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
