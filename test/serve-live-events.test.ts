import { afterEach, describe, expect, it } from 'vitest';
import { readEvents, rawRequest } from '../src/core/web/test-support/raw-http';
import { startScriptedLlm, type ScriptedLlm } from './support/scripted-llm-server';
import { startServe, type ServeProcess } from './support/serve-process';
import { makeTaskEnv } from './support/task-env';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const API_KEY = 'sk-serve-test-5a1f';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Event {
  type: string;
  uuid?: string;
  status?: string;
}

describe('cwb serve (a real process)', () => {
  it('runs a task against a scripted LLM and pushes its live events over SSE', async () => {
    const llm: ScriptedLlm = await startScriptedLlm({
      flavor: 'openai',
      requireKey: API_KEY,
      script: [
        {
          tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
          usage: { prompt_tokens: 90, completion_tokens: 9 },
        },
        { content: 'gamma is on line 3.', usage: { prompt_tokens: 120, completion_tokens: 6 } },
        { content: 'Read notes.txt and found gamma.' },
      ],
    });
    cleanups.push(() => llm.close());
    const env = makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
    const serve: ServeProcess = await startServe(
      ['--contexts', env.root, '--config', env.configFile],
      { OPENAI_API_KEY: API_KEY },
    );
    cleanups.push(() => serve.stop());
    const auth = { Authorization: `Bearer ${serve.token}` };

    const stream = readEvents(serve.port, auth, (events) =>
      (events as Event[]).some((e) => e.type === 'task-exit'),
    );
    await new Promise((r) => setTimeout(r, 300));
    const started = await rawRequest(serve.port, {
      method: 'POST',
      path: '/api/startTask',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'Find gamma in notes.txt', workdir: env.workdir }),
    });
    expect(started.status, started.body).toBe(200);
    const { uuid } = (JSON.parse(started.body) as { value: { uuid: string } }).value;

    const { events } = await stream;
    const mine = (events as Event[]).filter((e) => e.uuid === uuid);
    const types = mine.map((e) => e.type);
    expect(types).toContain('message-appended');
    expect(types).toContain('stats');
    expect(mine.filter((e) => e.type === 'status').map((e) => e.status)).toEqual([
      'running',
      'completed',
    ]);
    expect(mine.at(-1)).toMatchObject({ type: 'task-exit', status: 'completed' });
    expect((events as Event[]).some((e) => e.type === 'tasks-changed')).toBe(true);

    const list = await rawRequest(serve.port, {
      method: 'POST',
      path: '/api/queryTasks',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const page = JSON.parse(list.body) as { value: { rows: { uuid: string; status: string }[] } };
    expect(page.value.rows).toEqual([expect.objectContaining({ uuid, status: 'completed' })]);
    expect(serve.output()).not.toContain(API_KEY);
    expect(await serve.stop()).toBe(0);
  });
});
