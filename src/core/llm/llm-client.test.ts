import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CurrentMessage } from '../../shared/task-types';
import { startScriptedLlm } from '../../../test/support/scripted-llm-server';
import type { ScriptedLlm, ScriptedLlmOptions } from '../../../test/support/scripted-llm-server';
import { useTempDir } from '../../../test/support/temp-dir';
import { defaultConfig } from '../config/app-config';
import type { LlmConfig, LlmProvider } from '../config/app-config';
import { CwbError } from '../errors';
import { createLlmClient } from './llm-client';
import type { LlmClient, LlmClientOptions } from './llm-client';
import { LlmError } from './llm-error';
import { toProviderMessage } from './provider-message';
import { sampleMessage, writeCurrent, writeLargeCurrent } from './test-support/current-file';
import type { ToolDefinition } from './tool-definition';

const tempDir = useTempDir('cwb-llm-client-');
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const KEY = 'sk-test-SECRET-0123456789abcdef';

async function scripted(options: ScriptedLlmOptions): Promise<ScriptedLlm> {
  const server = await startScriptedLlm(options);
  servers.push(server);
  return server;
}

function llmConfig(
  provider: LlmProvider,
  baseUrl: string,
  extra: { api_key?: string; context_length?: number; max_output_tokens?: number } = {},
): LlmConfig {
  const llm = defaultConfig().llm;
  llm.provider = provider;
  Object.assign(llm[provider], { model: 'test-model', base_url: baseUrl, ...extra });
  return llm;
}

/** Client options for tests: no real waiting, recorded delays, no environment. */
function testOptions(extra: LlmClientOptions = {}): LlmClientOptions & { delays: number[] } {
  const delays: number[] = [];
  return {
    env: {},
    random: () => 0,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
    delays,
    ...extra,
  };
}

const TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];

const CONVERSATION: CurrentMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'バグを直して 🐛' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
      },
    ],
  },
  { role: 'tool', content: 'const a = 1;', tool_name: 'read_file', tool_call_id: 'call_1' },
];

function task(): { dir: string; currentPath: string } {
  const dir = tempDir();
  return { dir, currentPath: writeCurrent(dir, CONVERSATION) };
}

function requestFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.startsWith('request'));
}

/** A chat keeps its body for the next call (whatever the answer); release() removes it. */
async function expectKeptUntilRelease(client: LlmClient, dir: string): Promise<void> {
  expect(requestFiles(dir)).toEqual(['request.json']);
  await client.release();
  expect(requestFiles(dir)).toEqual([]);
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe.each([
  ['openai', 'openai'],
  ['lmstudio', 'openai'],
  ['ollama', 'ollama'],
] as const)('%s chat', (provider, flavor) => {
  it.each([true, false])(
    'stream %s: text, tool calls split across deltas, usage',
    async (stream) => {
      const llm = await scripted({
        flavor,
        script: [
          {
            content: 'ファイルを読みます 📖 then grep',
            tool_calls: [
              { name: 'read_file', arguments: { path: 'src/日本.ts' } },
              { name: 'grep', arguments: { pattern: 'TODO', glob: '**/*.ts' } },
            ],
            usage: { prompt_tokens: 1200, completion_tokens: 34, cached_tokens: 1000 },
            chunkChars: 3,
          },
        ],
      });
      const { dir, currentPath } = task();
      const client = createLlmClient(llmConfig(provider, llm.url), testOptions({ stream }));
      const deltas: string[] = [];
      const extra: CurrentMessage[] = [{ role: 'user', content: 'continue' }];
      const response = await client.chat({
        currentPath,
        workDir: dir,
        tools: TOOLS,
        extraMessages: extra,
        onDelta: (t) => deltas.push(t),
      });

      expect(response.content).toBe('ファイルを読みます 📖 then grep');
      expect(deltas.join('')).toBe(response.content);
      if (stream) expect(deltas.length).toBeGreaterThan(1);
      expect(
        response.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
      ).toEqual([
        ['read_file', { path: 'src/日本.ts' }],
        ['grep', { pattern: 'TODO', glob: '**/*.ts' }],
      ]);
      const ids = response.tool_calls?.map((c) => c.id) ?? [];
      expect(new Set(ids).size).toBe(2);
      expect(response.finish_reason).toBe('tool_calls');
      expect(response.model).toBe('test-model');
      // OpenAI reports cached tokens inside prompt_tokens; Ollama has no cache split.
      expect(response.usage).toEqual(
        flavor === 'openai'
          ? {
              input_tokens: 200,
              output_tokens: 34,
              cache_creation_tokens: 0,
              cache_read_tokens: 1000,
              total_tokens: 1234,
            }
          : {
              input_tokens: 1200,
              output_tokens: 34,
              cache_creation_tokens: 0,
              cache_read_tokens: 0,
              total_tokens: 1234,
            },
      );

      const [request] = llm.chatRequests();
      expect(request.invalidJson).toBeUndefined();
      expect(request.headers['content-length']).toBe(String(request.bytes));
      expect(request.body).toMatchObject({
        model: 'test-model',
        stream,
        tools: TOOLS,
        messages: [...CONVERSATION, ...extra].map((m) => toProviderMessage(provider, m)),
      });
      await expectKeptUntilRelease(client, dir);
    },
  );
});

describe('chat requests', () => {
  it('sends the key as a bearer token (config first, then the environment)', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: () => ({ content: 'ok' }),
      requireKey: KEY,
    });
    const { dir, currentPath } = task();
    const fromEnv = createLlmClient(
      llmConfig('openai', llm.url),
      testOptions({ env: { OPENAI_API_KEY: KEY } }),
    );
    await fromEnv.chat({ currentPath, workDir: dir });
    const fromConfig = createLlmClient(
      llmConfig('openai', llm.url, { api_key: KEY }),
      testOptions({ env: { OPENAI_API_KEY: 'other' } }),
    );
    await fromConfig.chat({ currentPath, workDir: dir });
    expect(llm.chatRequests().map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ]);
  });

  it('lets its process look after its memory while a body is sent and once it is all sent', async () => {
    const llm = await scripted({ flavor: 'openai', script: () => ({ content: 'ok' }) });
    const dir = tempDir();
    const currentPath = path.join(dir, 'current.jsonl');
    writeLargeCurrent(currentPath, 3 * 1024 * 1024, 2000);
    const calls: string[] = [];
    const client = createLlmClient(
      llmConfig('openai', llm.url),
      testOptions({
        memory: {
          whileSending: () => calls.push('piece'),
          // Called before the answer is read: the server has the whole body by then.
          answerStarts: () => calls.push(`answer after ${llm.chatRequests().length} request`),
        },
      }),
    );
    expect((await client.chat({ currentPath, workDir: dir })).content).toBe('ok');
    // A 3 MiB body goes out in 256 KiB pieces.
    expect(calls.filter((c) => c === 'piece').length).toBeGreaterThanOrEqual(12);
    expect(calls.slice(-1)).toEqual(['answer after 1 request']);
    expect(calls.filter((c) => c !== 'piece')).toHaveLength(1);
  });

  it('passes max output tokens, Ollama num_ctx and a model override', async () => {
    const openai = await scripted({ flavor: 'openai', script: () => ({ content: 'ok' }) });
    const ollama = await scripted({ flavor: 'ollama', script: () => ({ content: 'ok' }) });
    const { dir, currentPath } = task();
    await createLlmClient(
      llmConfig('openai', openai.url, { max_output_tokens: 900 }),
      testOptions(),
    ).chat({
      currentPath,
      workDir: dir,
    });
    await createLlmClient(llmConfig('lmstudio', openai.url), testOptions()).chat({
      currentPath,
      workDir: dir,
      maxOutputTokens: 300,
      model: 'summary-model',
    });
    await createLlmClient(
      llmConfig('ollama', ollama.url, { context_length: 32768 }),
      testOptions(),
    ).chat({
      currentPath,
      workDir: dir,
      maxOutputTokens: 200,
    });
    const [first, second] = openai.chatRequests().map((r) => r.body);
    expect(first).toMatchObject({
      max_completion_tokens: 900,
      stream_options: { include_usage: true },
    });
    expect(second).toMatchObject({ max_tokens: 300, model: 'summary-model' });
    expect(ollama.chatRequests()[0].body).toMatchObject({
      options: { num_predict: 200, num_ctx: 32768 },
    });
  });

  it.each(['openai', 'ollama'] as const)(
    '%s: a 20 MB context arrives as a valid body equal to the projection',
    async (provider) => {
      const llm = await scripted({ flavor: provider, script: [{ content: 'read it all' }] });
      const dir = tempDir();
      const currentPath = path.join(dir, 'current.jsonl');
      const lines = writeLargeCurrent(currentPath, 20 * 1024 * 1024, 2000);
      const client = createLlmClient(llmConfig(provider, llm.url), testOptions());
      expect((await client.chat({ currentPath, workDir: dir })).content).toBe('read it all');
      const [request] = llm.chatRequests();
      expect(request.invalidJson).toBeUndefined();
      const messages = (request.body as { messages: unknown[] }).messages;
      expect(messages).toHaveLength(lines);
      for (let i = 0; i < lines; i++) {
        const expected = toProviderMessage(provider, sampleMessage(i, 2000));
        if (JSON.stringify(messages[i]) !== JSON.stringify(expected)) {
          expect({ line: i + 1, message: messages[i] }).toEqual({ line: i + 1, message: expected });
        }
      }
      await expectKeptUntilRelease(client, dir);
    },
  );

  it('refuses a malformed context before sending anything, and leaves no request file', async () => {
    const llm = await scripted({ flavor: 'openai', script: [{ content: 'never' }] });
    const dir = tempDir();
    const currentPath = writeCurrent(dir, [CONVERSATION[0], '{"role":"user",']);
    const client = createLlmClient(llmConfig('openai', llm.url), testOptions());
    const error = await client.chat({ currentPath, workDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CwbError);
    expect((error as Error).message).toContain(`${currentPath} line 2: malformed JSON`);
    expect(llm.chatRequests()).toEqual([]);
    expect(requestFiles(dir)).toEqual([]);
  });

  it('needs a model', async () => {
    const llm = await scripted({ flavor: 'openai', script: [] });
    const config = llmConfig('openai', llm.url);
    config.openai.model = null;
    const { dir, currentPath } = task();
    await expect(
      createLlmClient(config, testOptions()).chat({ currentPath, workDir: dir }),
    ).rejects.toThrow('no model is configured for openai: set llm.openai.model in config.yaml');
  });
});

describe('retries', () => {
  it('retries 500, 502, 503, 504 and a dropped connection, then succeeds', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [
        { status: 500, error: { message: 'boom' } },
        { status: 502 },
        { hangUp: true },
        { status: 503 },
        { content: 'finally' },
      ],
    });
    const { dir, currentPath } = task();
    const options = testOptions();
    const client = createLlmClient(llmConfig('openai', llm.url), options);
    expect((await client.chat({ currentPath, workDir: dir })).content).toBe('finally');
    expect(llm.chatRequests()).toHaveLength(5);
    // Exponential backoff with the jitter factor at its low end (random() = 0).
    expect(options.delays).toEqual([500, 1000, 2000, 4000]);
    await expectKeptUntilRelease(client, dir);
  });

  it('waits as long as Retry-After asks on 429', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [
        { status: 429, error: { message: 'Rate limit reached' }, headers: { 'Retry-After': '2' } },
        { content: 'ok' },
      ],
    });
    const { dir, currentPath } = task();
    const options = testOptions();
    await createLlmClient(llmConfig('openai', llm.url), options).chat({
      currentPath,
      workDir: dir,
    });
    expect(options.delays).toEqual([2000]);
    expect(llm.chatRequests()).toHaveLength(2);
  });

  it('gives up after the configured retries with the last error', async () => {
    const llm = await scripted({
      flavor: 'ollama',
      script: () => ({ status: 503, error: { message: 'loading model' } }),
    });
    const { dir, currentPath } = task();
    const options = testOptions({ retries: 2 });
    const client = createLlmClient(llmConfig('ollama', llm.url), options);
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('server');
    expect(error.status).toBe(503);
    expect(error.message).toBe(
      `Ollama at ${llm.url} answered 503 Service Unavailable: loading model`,
    );
    expect(llm.chatRequests()).toHaveLength(3);
    await expectKeptUntilRelease(client, dir);
  });

  it('does not retry 401 and says which key to check, without the key', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [{ content: 'never' }],
      requireKey: 'the-right-key',
    });
    const { dir, currentPath } = task();
    const client = createLlmClient(
      llmConfig('openai', llm.url),
      testOptions({ env: { OPENAI_API_KEY: KEY } }),
    );
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toContain(
      `OpenAI at ${llm.url} answered 401 Unauthorized: check OPENAI_API_KEY (or llm.openai.api_key in config.yaml)`,
    );
    // The server echoed the wrong key back; the message must not repeat it.
    expect(error.message).toContain('Incorrect API key provided: ***');
    expect(error.message).not.toContain(KEY);
    expect(error.stack ?? '').not.toContain(KEY);
    expect(llm.chatRequests()).toHaveLength(1);
    await expectKeptUntilRelease(client, dir);
  });

  it('says when no key was sent', async () => {
    const llm = await scripted({ flavor: 'openai', script: [], requireKey: 'k' });
    const { dir, currentPath } = task();
    const error = await failure(
      createLlmClient(llmConfig('lmstudio', llm.url), testOptions()).chat({
        currentPath,
        workDir: dir,
      }),
    );
    expect(error.message).toBe(
      `LM Studio at ${llm.url} answered 401 Unauthorized: no API key was sent: set LMSTUDIO_API_KEY or llm.lmstudio.api_key in config.yaml (Missing API key)`,
    );
  });

  it('does not retry 404 and names the missing model or the wrong base URL', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [
        {
          status: 404,
          error: { message: 'The model `test-model` does not exist', code: 'model_not_found' },
        },
      ],
    });
    const { dir, currentPath } = task();
    const error = await failure(
      createLlmClient(llmConfig('openai', llm.url), testOptions()).chat({
        currentPath,
        workDir: dir,
      }),
    );
    expect(error.kind).toBe('not_found');
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(/answered 404 Not Found: model "test-model" not found/);

    const wrongBase = llm.url.replace(/\/v1$/, '');
    const misrouted = await failure(
      createLlmClient(llmConfig('openai', wrongBase), testOptions()).chat({
        currentPath,
        workDir: dir,
      }),
    );
    expect(misrouted.message).toContain('no such endpoint: check llm.openai.base_url');

    const ollama = await scripted({
      flavor: 'ollama',
      script: [
        { status: 404, error: { message: 'model "test-model" not found, try pulling it first' } },
      ],
    });
    const pull = await failure(
      createLlmClient(llmConfig('ollama', ollama.url), testOptions()).chat({
        currentPath,
        workDir: dir,
      }),
    );
    expect(pull.message).toContain('model "test-model" not found: run "ollama pull test-model"');
    expect(llm.requests).toHaveLength(2);
  });

  it('gives up on an unreachable server with a network error', async () => {
    const llm = await scripted({ flavor: 'openai', script: [] });
    const url = llm.url;
    await llm.close();
    servers.splice(0);
    const { dir, currentPath } = task();
    const options = testOptions({ retries: 1 });
    const client = createLlmClient(llmConfig('openai', url), options);
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      `OpenAI at ${url} refused the connection (ECONNREFUSED): is the server running?`,
    );
    expect(options.delays).toHaveLength(1);
    await expectKeptUntilRelease(client, dir);
  });

  it('keeps URL passwords and configured secrets out of messages', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: () => ({ status: 400, error: { message: 'bad value hunter2-token' } }),
    });
    const { dir, currentPath } = task();
    const url = llm.url.replace('http://', 'http://user:p4ssw0rd@');
    const client = createLlmClient(
      llmConfig('openai', url),
      testOptions({ secrets: ['hunter2-token'] }),
    );
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('bad_request');
    expect(error.message).toBe(`OpenAI at ${llm.url} answered 400 Bad Request: bad value ***`);
  });
});

describe('context length', () => {
  it('recognizes OpenAI context_length_exceeded and does not retry it', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: () => ({
        status: 400,
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
          code: 'context_length_exceeded',
        },
      }),
    });
    const { dir, currentPath } = task();
    const error = await failure(
      createLlmClient(llmConfig('openai', llm.url), testOptions()).chat({
        currentPath,
        workDir: dir,
      }),
    );
    expect(error.kind).toBe('context_length');
    expect(error.message).toContain('the context is longer than model "test-model" accepts');
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('recognizes Ollama and LM Studio wording, also on a 500', async () => {
    const ollama = await scripted({
      flavor: 'ollama',
      script: () => ({
        status: 500,
        error: { message: 'input length exceeds the context length' },
      }),
    });
    const lmstudio = await scripted({
      flavor: 'openai',
      script: () => ({
        status: 400,
        error: {
          message:
            'The number of tokens to keep from the initial prompt is greater than the context length',
        },
      }),
    });
    const { dir, currentPath } = task();
    for (const [provider, url] of [
      ['ollama', ollama.url],
      ['lmstudio', lmstudio.url],
    ] as const) {
      const error = await failure(
        createLlmClient(llmConfig(provider, url), testOptions()).chat({
          currentPath,
          workDir: dir,
        }),
      );
      expect(error.kind).toBe('context_length');
    }
    expect(ollama.chatRequests()).toHaveLength(1);
  });
});

describe('cancellation and timeouts', () => {
  it('an abort mid-stream ends the call promptly with kind cancelled', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [{ content: 'a long answer '.repeat(50), chunkChars: 4, chunkDelayMs: 100 }],
    });
    const { dir, currentPath } = task();
    const controller = new AbortController();
    const client = createLlmClient(llmConfig('openai', llm.url), testOptions());
    let abortedAt = 0;
    const call = client.chat({
      currentPath,
      workDir: dir,
      signal: controller.signal,
      onDelta: () => {
        if (abortedAt === 0) {
          abortedAt = Date.now();
          controller.abort();
        }
      },
    });
    const error = await failure(call);
    expect(error.kind).toBe('cancelled');
    // The stream would run 17 s more; the bound leaves room for a loaded machine.
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(llm.chatRequests()).toHaveLength(1);
    await expectKeptUntilRelease(client, dir);
  });

  it('an abort during the wait before a retry ends the call', async () => {
    const llm = await scripted({ flavor: 'openai', script: () => ({ status: 503 }) });
    const { dir, currentPath } = task();
    const controller = new AbortController();
    // The real sleep: the abort must cut it short.
    const client = createLlmClient(llmConfig('openai', llm.url), {
      env: {},
      retryBaseDelayMs: 30_000,
    });
    const call = client.chat({ currentPath, workDir: dir, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await failure(call);
    expect(error.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(10_000); // the retry would wait 30 s
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('a stalled stream fails with kind timeout and is not retried', async () => {
    const llm = await scripted({
      flavor: 'ollama',
      script: () => ({ content: 'slow answer', chunkChars: 2, chunkDelayMs: 5_000 }),
    });
    const { dir, currentPath } = task();
    const client = createLlmClient(
      llmConfig('ollama', llm.url),
      testOptions({ idleTimeoutMs: 300 }),
    );
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(
      `Ollama at ${llm.url} did not answer in time: the response stalled for 300 ms`,
    );
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('a server that never answers fails with kind timeout', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: () => ({ content: 'late', delayMs: 5_000 }),
    });
    const { dir, currentPath } = task();
    const client = createLlmClient(
      llmConfig('openai', llm.url),
      testOptions({ fetchTimeoutMs: 300 }),
    );
    const error = await failure(client.chat({ currentPath, workDir: dir }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('no response within 300 ms');
  });

  it('a stream cut mid-answer is retried when nothing was shown yet, not after', async () => {
    const llm = await scripted({
      flavor: 'openai',
      script: [
        { content: 'abcdefgh', chunkChars: 2, hangUpAfterChunks: 3 },
        { content: 'abcdefgh' },
      ],
    });
    const { dir, currentPath } = task();
    const retried = await createLlmClient(llmConfig('openai', llm.url), testOptions()).chat({
      currentPath,
      workDir: dir,
    });
    expect(retried.content).toBe('abcdefgh');
    expect(llm.chatRequests()).toHaveLength(2);

    const shown = await scripted({
      flavor: 'openai',
      script: [{ content: 'abcdefgh', chunkChars: 2, hangUpAfterChunks: 3 }],
    });
    const deltas: string[] = [];
    const error = await failure(
      createLlmClient(llmConfig('openai', shown.url), testOptions()).chat({
        currentPath,
        workDir: dir,
        onDelta: (t) => deltas.push(t),
      }),
    );
    expect(error.kind).toBe('network');
    expect(deltas.join('')).toBe('abcd');
    expect(shown.chatRequests()).toHaveLength(1);
  });
});

describe('complete', () => {
  it('sends one prompt (and an optional system message) and returns the text', async () => {
    const llm = await scripted({
      flavor: 'ollama',
      script: [{ content: '<summary>short</summary>' }],
    });
    const dir = tempDir();
    const client = createLlmClient(llmConfig('ollama', llm.url), testOptions());
    const text = await client.complete('Summarize: 長い会話', {
      system: 'Be brief.',
      workDir: dir,
    });
    expect(text).toBe('<summary>short</summary>');
    expect(llm.chatRequests()[0].body).toMatchObject({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Summarize: 長い会話' },
      ],
    });
    expect(requestFiles(dir)).toEqual([]);
  });
});

describe('ping', () => {
  it('lists models of both flavors', async () => {
    const openai = await scripted({
      flavor: 'openai',
      script: [],
      models: ['gpt-4o', 'gpt-4o-mini'],
    });
    const ollama = await scripted({ flavor: 'ollama', script: [], models: ['qwen3:30b'] });
    expect(await createLlmClient(llmConfig('openai', openai.url), testOptions()).ping()).toEqual({
      ok: true,
      models: ['gpt-4o', 'gpt-4o-mini'],
    });
    expect(await createLlmClient(llmConfig('ollama', ollama.url), testOptions()).ping()).toEqual({
      ok: true,
      models: ['qwen3:30b'],
    });
    expect(openai.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    expect(ollama.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/tags']);
  });

  it('reports failures as text without the key', async () => {
    const llm = await scripted({ flavor: 'openai', script: [], requireKey: 'right' });
    const result = await createLlmClient(
      llmConfig('openai', llm.url, { api_key: KEY }),
      testOptions(),
    ).ping();
    expect(result.ok).toBe(false);
    const message = result.ok ? '' : result.error;
    expect(message).toContain('answered 401 Unauthorized: check OPENAI_API_KEY');
    expect(message).not.toContain(KEY);

    const url = llm.url;
    await llm.close();
    servers.splice(0);
    expect(await createLlmClient(llmConfig('openai', url), testOptions()).ping()).toEqual({
      ok: false,
      error: `OpenAI at ${url} refused the connection (ECONNREFUSED): is the server running?`,
    });
  });
});
