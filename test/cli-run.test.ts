import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { spawn } from 'node:child_process';
import { BUILT_CLI, spawnCwb, waitForExit } from './support/run-ts';
import { startScriptedLlm, type ScriptedLlm, type ScriptStep } from './support/scripted-llm-server';
import { deadRunningTask, makeTaskEnv } from './support/task-env';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const API_KEY = 'sk-cli-run-9d8e7f6a';
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function setup(
  script: ScriptStep[] | ((index: number) => ScriptStep),
): Promise<ReturnType<typeof makeTaskEnv> & { llm: ScriptedLlm }> {
  const llm = await startScriptedLlm({
    flavor: 'openai',
    requireKey: API_KEY,
    models: ['gpt-4o', 'gpt-4o-mini'],
    script: Array.isArray(script) ? script : (_r, i) => script(i),
  });
  servers.push(llm);
  return { ...makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url }), llm };
}

/** Runs cwb in a real process without blocking this one (the scripted server lives here). */
async function cwb(
  env: { root: string; configFile: string },
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCwb(['--contexts', env.root, '--config', env.configFile, ...args], {
    OPENAI_API_KEY: API_KEY,
  });
  return waitForExit(child);
}

describe('cwb run', () => {
  it('recovers the contexts folder, prints the uuid and ends with the outcome; a pipe gets no progress lines', async () => {
    const steps: ScriptStep[] = [
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      },
      { content: 'beta is on line 2', usage: { prompt_tokens: 80, completion_tokens: 6 } },
      { content: 'Read notes.txt; beta is on line 2.' },
    ];
    // What the dead task's row said while the new task ran its first step.
    let deadWhileRunning: unknown;
    const env = await setup((index) => {
      if (index === 0) {
        const look = ContextStore.open(env.root, { recover: false });
        deadWhileRunning = look.requireTask(dead).status;
        look.close();
      }
      return steps[index]!;
    });
    const dead = deadRunningTask(env.root);
    const r = await cwb(
      env,
      'run',
      '--prompt',
      'Where is beta?',
      '--workdir',
      env.workdir,
      '--task-key',
      'github/acme/web/issue/7',
      '--user',
      'ann',
    );
    expect(r.code).toBe(0);
    // The task process leaves recovery to its host: cwb run ran it before starting it.
    expect(deadWhileRunning).toBe('failed');
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.at(-1)).toBe('completed: 2 model calls, 1 tool calls, 141 tokens');
    // stderr is a pipe here: no progress lines (they are for a terminal, see below).
    expect(r.stderr).toBe('');
    const store = ContextStore.open(env.root);
    expect(store.requireTask(lines[0]!)).toMatchObject({
      status: 'completed',
      repository: 'acme/web',
      task_id: '7',
      user: 'ann',
      title: 'Where is beta?',
    });
    store.close();
  });

  it('draws progress on one status line when stderr is a terminal', async () => {
    const env = await setup([
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      },
      { content: 'beta is on line 2', usage: { prompt_tokens: 80, completion_tokens: 6 } },
    ]);
    // script(1) runs the command on a pseudo-terminal and copies what it shows to stdout.
    const command = [
      process.execPath,
      BUILT_CLI,
      '--contexts',
      env.root,
      '--config',
      env.configFile,
      'run',
      '--prompt',
      'Where is beta?',
      '--workdir',
      env.workdir,
    ]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, OPENAI_API_KEY: API_KEY, CWB_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = await waitForExit(child);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Drawn over itself: carriage return and erase-line before each status.
    expect(r.stdout).toContain('\r\u001b[Kturn 1/50 · 0 tool calls · 55 tokens used · context ');
    expect(r.stdout).toMatch(
      /turn 1\/50 · 0 tool calls · 55 tokens used · context \d+\/128k \(\d+%\)/,
    );
    expect(r.stdout).toContain('completed: 2 model calls, 1 tool calls');
  });

  it('--json prints one JSON document; --max-turns ends the task as failed with exit code 2, and a resume keeps it unless given another', async () => {
    const env = await setup(() => ({
      tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }],
    }));
    const r = await cwb(
      env,
      'run',
      '--prompt',
      'Loop forever',
      '--workdir',
      env.workdir,
      '--max-turns',
      '2',
      '--json',
    );
    expect(r.code).toBe(2);
    const result = JSON.parse(r.stdout) as {
      uuid: string;
      status: string;
      error: string;
      task: { llm_call_count: number };
    };
    expect(result).toMatchObject({
      status: 'failed',
      error: 'stopped after 2 turns (max turns reached)',
    });
    expect(result.task.llm_call_count).toBe(2);
    expect(r.stderr).toMatch(/^cwb: error: task .* failed: stopped after 2 turns/m);

    // Resumed, the task keeps its 2 turns, counted from its first call: it stops at once.
    const again = await cwb(env, 'resume', result.uuid, '--json');
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({
      error: 'stopped after 2 turns (max turns reached)',
      task: { llm_call_count: 2 },
    });
    const tooFew = await cwb(env, 'resume', result.uuid, '--max-turns', '2');
    expect(tooFew.code).toBe(1);
    expect(tooFew.stderr).toMatch(
      /--max-turns counts from the task's first model call: .* 2 already/,
    );
    // --max-turns gives it more, and stays the task's limit for later resumes.
    const more = await cwb(env, 'resume', result.uuid, '--max-turns', '4', '--json');
    expect(JSON.parse(more.stdout)).toMatchObject({
      error: 'stopped after 4 turns (max turns reached)',
      task: { llm_call_count: 4 },
    });
    const kept = await cwb(env, 'resume', result.uuid, '--json');
    expect(JSON.parse(kept.stdout)).toMatchObject({
      error: 'stopped after 4 turns (max turns reached)',
      task: { llm_call_count: 4 },
    });
  }, 120_000);

  it('refuses to start with a model nobody knows the window of, before any process starts', async () => {
    const env = await setup([]);
    const r = await cwb(env, 'run', '--prompt', 'x', '--model', 'my-private-model');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /model "my-private-model" is not in the model registry.*llm\.openai\.context_length/,
    );
    expect(
      fs.existsSync(path.join(env.root, 'running'))
        ? fs.readdirSync(path.join(env.root, 'running'))
        : [],
    ).toEqual([]);
  });

  it('--detach returns at once; cwb pause, resume and stop reach the task process', async () => {
    let calls = 0;
    const env = await setup(() => {
      calls++;
      if (calls === 1)
        return {
          tool_calls: [{ name: 'update_plan', arguments: { plan: 'one step' } }],
          delayMs: 5000,
        };
      if (calls === 2) return { content: 'finished after resume' };
      if (calls === 3) return { content: 'summary' };
      return { content: 'slow', delayMs: 60_000 };
    });
    const started = await cwb(
      env,
      'run',
      '--prompt',
      'Plan one step',
      '--workdir',
      env.workdir,
      '--detach',
    );
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const uuid = started.stdout.trim();
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => calls >= 1);

    const paused = await cwb(env, 'pause', uuid);
    expect(paused.stderr).toBe('');
    expect(paused.code).toBe(0);
    expect(paused.stdout.trim()).toBe(`task ${uuid} is paused`);

    const resumed = await cwb(env, 'resume', uuid, '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ uuid, status: 'completed' });

    const second = await cwb(
      env,
      'run',
      '--prompt',
      'Be slow',
      '--workdir',
      env.workdir,
      '--detach',
    );
    const slow = second.stdout.trim();
    await waitFor(() => calls >= 4);
    const before = Date.now();
    const stopped = await cwb(env, 'stop', slow);
    expect(stopped.stdout.trim()).toBe(`task ${slow} is failed (stopped by the user)`);
    expect(Date.now() - before).toBeLessThan(20_000);

    const again = await cwb(env, 'pause', slow);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is failed, not running/);
  });

  it('cwb doctor reports that the configured provider answers', async () => {
    const env = await setup([]);
    const r = await cwb(env, 'doctor');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok\s+provider OpenAI: http:\/\/127\.0\.0\.1:\d+\/v1 answers/m);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
