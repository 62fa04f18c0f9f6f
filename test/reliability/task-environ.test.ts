/**
 * No secret in a task process's environment or argv, nor in those of a command it runs
 * (issue 18). A task is started every way a task can start — `cwb run`, `cwb resume`,
 * `cwb run --detach`, a real `cwb serve` over HTTP, `cwb serve`'s service (new task and
 * resume) and the desktop app's utilityProcess adapter — with a test key in the parent's
 * OPENAI_API_KEY, referenced from config.yaml as `${OPENAI_API_KEY}`, against a scripted
 * server on 127.0.0.1 that requires
 * it. The model runs a command that records its own /proc/self/environ and cmdline and its
 * parent's (the task process's) pid; while the task process waits for the next answer, the
 * server reads /proc/<task pid>/environ and cmdline. The key is in none of them, nor
 * anywhere in the contexts folder or what the processes printed — and every request the
 * server got carried it (so the handover over the process's own channel works).
 */
import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkbenchService } from '../../src/core/api/workbench-service';
import { ContextStore } from '../../src/core/store/context-store';
import { TaskSupervisor } from '../../src/core/supervisor/task-supervisor';
import { nodeForkWorker } from '../../src/core/supervisor/node-fork';
import { utilityProcessForkWorker } from '../../src/main/utility-fork';
import type { WorkbenchEvent } from '../../src/shared/api/events';
import { BUILT_WORKER, spawnCwb, waitForExit } from '../support/run-ts';
import {
  startScriptedLlm,
  type RecordedRequest,
  type ScriptStep,
  type ScriptedLlm,
} from '../support/scripted-llm-server';
import { allFiles, makeTaskEnv } from '../support/task-env';
import { startServe } from '../support/serve-process';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-environ-');
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const PROBE_COMMAND = [
  'echo $PPID > probe.pid',
  'cat /proc/self/environ > probe.child-environ',
  'cat /proc/self/cmdline > probe.child-cmdline',
].join('; ');

/** What one task process and one command it ran held, read while both were alive. */
interface Probe {
  taskEnviron: string[];
  taskCmdline: string;
  childEnviron: string[];
  childCmdline: string;
}

interface Harness {
  key: string;
  /** The parent's environment: the key, a token and a harmless variable off the allow-list. */
  parentEnv: NodeJS.ProcessEnv;
  llm: ScriptedLlm;
  env: ReturnType<typeof makeTaskEnv>;
  probes: Probe[];
  /** When set, the next chat request is refused (400): the task fails, for a resume. */
  failNext: { value: boolean };
}

/**
 * The scripted model: asks for PROBE_COMMAND, and on the tool result (the task process
 * waiting for this very answer) reads /proc/<task pid>/{environ,cmdline} and the files the
 * command wrote; a request without tools is the final summary.
 */
async function harness(): Promise<Harness> {
  const key = `sk-test-${crypto.randomBytes(16).toString('hex')}`;
  const probes: Probe[] = [];
  const failNext = { value: false };
  let workdir = '';
  const script = (request: RecordedRequest): ScriptStep => {
    const body = request.body as { messages: { role: string }[]; tools?: unknown[] };
    if (failNext.value) {
      failNext.value = false;
      return { status: 400, error: { message: 'refused once, for the test' } };
    }
    if (!body.tools) return { content: 'Summary: ran one command.' };
    if (body.messages.at(-1)?.role !== 'tool')
      return { tool_calls: [{ name: 'run_command', arguments: { command: PROBE_COMMAND } }] };
    const read = (name: string): string => fs.readFileSync(path.join(workdir, name), 'latin1');
    const pid = Number(read('probe.pid').trim());
    probes.push({
      taskEnviron: fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0'),
      taskCmdline: fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1'),
      childEnviron: read('probe.child-environ').split('\0'),
      childCmdline: read('probe.child-cmdline'),
    });
    for (const name of ['probe.pid', 'probe.child-environ', 'probe.child-cmdline'])
      fs.rmSync(path.join(workdir, name));
    return { content: 'Done.' };
  };
  const llm = await startScriptedLlm({
    flavor: 'openai',
    requireKey: key,
    script: (r) => script(r),
  });
  servers.push(llm);
  const env = makeTaskEnv(tempDir(), {
    provider: 'openai',
    url: llm.url,
    extraYaml: 'tools:\n  run_command: true\n',
  });
  workdir = env.workdir;
  const parentEnv = {
    OPENAI_API_KEY: key,
    GITHUB_TOKEN: `ghp_${crypto.randomBytes(8).toString('hex')}`,
    CWB_TEST_OFF_THE_LIST: 'off-the-list',
    NODE_OPTIONS: '--max-old-space-size=4000',
  };
  return { key, parentEnv, llm, env, probes, failNext };
}

/** The probe saw a real environment, without the key or anything off the allow-list. */
function expectClean(h: Harness, probe: Probe | undefined): void {
  expect(probe).toBeDefined();
  const { taskEnviron, taskCmdline, childEnviron, childCmdline } = probe!;
  for (const environ of [taskEnviron, childEnviron]) {
    expect(environ.some((v) => v.startsWith('PATH='))).toBe(true);
    const names = environ.map((v) => v.split('=')[0]);
    for (const name of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'CWB_TEST_OFF_THE_LIST', 'NODE_OPTIONS'])
      expect(names).not.toContain(name);
    expect(environ.join('\n')).not.toContain(h.key);
  }
  expect(taskCmdline).toMatch(/worker/);
  expect(childCmdline).toMatch(/^cat\0/);
  for (const cmdline of [taskCmdline, childCmdline]) expect(cmdline).not.toContain(h.key);
}

/** The key reached the server with every chat request: the handover worked. */
function expectKeySent(h: Harness): void {
  const chats = h.llm.chatRequests();
  expect(chats.length).toBeGreaterThan(0);
  for (const r of chats) expect(r.headers.authorization).toBe(`Bearer ${h.key}`);
}

/** Files under `dirs` and printed texts that hold the key (plain, base64 or URL-encoded). */
function findKey(key: string, dirs: string[], outputs: string[] = []): string[] {
  const forms = [key, Buffer.from(key).toString('base64'), encodeURIComponent(key)];
  const found: string[] = [];
  for (const dir of dirs)
    for (const file of allFiles(dir)) {
      const data = fs.readFileSync(file);
      if (forms.some((f) => data.includes(f))) found.push(file);
    }
  outputs.forEach((text, i) => {
    if (forms.some((f) => text.includes(f))) found.push(`output ${i}`);
  });
  return found;
}

async function cwb(h: Harness, ...args: string[]) {
  const child = spawnCwb(
    ['--contexts', h.env.root, '--config', h.env.configFile, ...args],
    h.parentEnv,
  );
  return waitForExit(child);
}

describe('no secret in the environment or argv of a task process or of a command it runs', () => {
  it('cwb run, then cwb resume of a failed task', async () => {
    const h = await harness();
    const run = await cwb(h, 'run', '--prompt', 'Probe', '--workdir', h.env.workdir, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    expect(h.probes).toHaveLength(1);
    expectClean(h, h.probes[0]);

    h.failNext.value = true;
    const failed = await cwb(h, 'run', '--prompt', 'Probe', '--workdir', h.env.workdir, '--json');
    const { uuid, status } = JSON.parse(failed.stdout) as { uuid: string; status: string };
    expect(status).toBe('failed');
    const resumed = await cwb(h, 'resume', uuid, '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ uuid, status: 'completed' });
    expect(h.probes).toHaveLength(2);
    expectClean(h, h.probes[1]);

    expectKeySent(h);
    const outputs = [run, failed, resumed].flatMap((r) => [r.stdout, r.stderr]);
    expect(findKey(h.key, [h.env.root, h.env.workdir], outputs)).toEqual([]);
  }, 120_000);

  it('cwb run --detach: the start message comes on stdin, not in argv or the environment', async () => {
    const h = await harness();
    const started = await cwb(
      h,
      'run',
      '--prompt',
      'Probe',
      '--workdir',
      h.env.workdir,
      '--detach',
    );
    expect(started.code, started.stderr).toBe(0);
    const uuid = started.stdout.trim();
    const store = ContextStore.open(h.env.root);
    try {
      await waitFor(() => store.repo.get(uuid)?.status === 'completed');
    } finally {
      store.close();
    }
    expect(h.probes).toHaveLength(1);
    expectClean(h, h.probes[0]);
    // Nothing of the spec in argv either: just the entry and --stdin.
    expect(h.probes[0]!.taskCmdline).not.toContain('Probe');
    expect(h.probes[0]!.taskCmdline).toMatch(/\0--stdin\0$/);
    expectKeySent(h);
    expect(findKey(h.key, [h.env.root, h.env.workdir], [started.stdout, started.stderr])).toEqual(
      [],
    );
  }, 60_000);

  it("cwb serve's service: a new task and a resume", async () => {
    const h = await harness();
    const service = createWorkbenchService({
      contextsRoot: h.env.root,
      configFile: h.env.configFile,
      fork: nodeForkWorker(BUILT_WORKER),
      host: { kind: 'serve', version: 'test', versions: {} },
      exportDir: path.join(path.dirname(h.env.root), 'exports'),
      env: { ...process.env, ...h.parentEnv },
    });
    const exits: WorkbenchEvent[] = [];
    service.subscribe((e) => {
      if (e.type === 'task-exit') exits.push(e);
    });
    try {
      const started = await service.invoke('startTask', {
        prompt: 'Probe',
        workdir: h.env.workdir,
      });
      expect(started.ok).toBe(true);
      const uuid = (started as { value: { uuid: string } }).value.uuid;
      await waitFor(() => exits.length === 1);
      expect(exits[0]).toMatchObject({ uuid, status: 'completed' });
      expectClean(h, h.probes[0]);

      h.failNext.value = true;
      const second = await service.invoke('startTask', { prompt: 'Probe', workdir: h.env.workdir });
      const failedUuid = (second as { value: { uuid: string } }).value.uuid;
      await waitFor(() => exits.length === 2);
      expect(exits[1]).toMatchObject({ uuid: failedUuid, status: 'failed' });
      const resumed = await service.invoke('resumeTask', { uuid: failedUuid });
      expect(resumed.ok).toBe(true);
      await waitFor(() => exits.length === 3);
      expect(exits[2]).toMatchObject({ uuid: failedUuid, status: 'completed' });
      expect(h.probes).toHaveLength(2);
      expectClean(h, h.probes[1]);
    } finally {
      await service.close();
    }
    expectKeySent(h);
    expect(findKey(h.key, [h.env.root, h.env.workdir])).toEqual([]);
  }, 60_000);

  it('cwb serve in a real process: the new-task operation over HTTP', async () => {
    const h = await harness();
    const serve = await startServe(
      ['--contexts', h.env.root, '--config', h.env.configFile],
      h.parentEnv,
    );
    let output: string;
    try {
      const started = await post(serve.port, serve.token, '/api/startTask', {
        prompt: 'Probe',
        workdir: h.env.workdir,
      });
      expect(started.status, started.body).toBe(200);
      const { uuid } = (JSON.parse(started.body) as { value: { uuid: string } }).value;
      const store = ContextStore.open(h.env.root);
      try {
        await waitFor(() => store.repo.get(uuid)?.status === 'completed');
      } finally {
        store.close();
      }
    } finally {
      await serve.stop();
      output = serve.output();
    }
    expect(h.probes).toHaveLength(1);
    expectClean(h, h.probes[0]);
    expectKeySent(h);
    expect(findKey(h.key, [h.env.root, h.env.workdir], [output])).toEqual([]);
  }, 90_000);

  it("the desktop app's utilityProcess path (driven through an adapter over child_process.fork)", async () => {
    const h = await harness();
    // Electron is not here: this stands in for utilityProcess.fork with the same options
    // and events, so utility-fork.ts and the supervisor run as in the app, with a real
    // task process at the other end.
    const utilityFork = (
      entry: string,
      args: string[],
      options: { env: NodeJS.ProcessEnv; execArgv: string[] },
    ) => {
      const child = fork(entry, args, {
        env: options.env,
        execArgv: options.execArgv,
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      const proc = Object.assign(new EventEmitter(), {
        get pid() {
          return child.pid;
        },
        stderr: child.stderr,
        postMessage: (m: unknown) => child.send(m as object),
        kill: () => child.kill(),
      });
      child.on('spawn', () => proc.emit('spawn'));
      child.on('message', (m) => proc.emit('message', m));
      child.on('exit', (code) => proc.emit('exit', code));
      return proc;
    };
    const supervisor = new TaskSupervisor({
      fork: utilityProcessForkWorker(utilityFork as never, BUILT_WORKER.file),
      contextsRoot: h.env.root,
      configFile: h.env.configFile,
      env: { ...process.env, ...h.parentEnv },
    });
    const uuid = supervisor.start({ prompt: 'Probe', workdir: h.env.workdir });
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ status: 'completed' });
    expect(h.probes).toHaveLength(1);
    expectClean(h, h.probes[0]);
    expectKeySent(h);
    expect(findKey(h.key, [h.env.root, h.env.workdir])).toEqual([]);
  }, 60_000);
});

function post(
  port: number,
  token: string,
  urlPath: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: urlPath,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': data.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
