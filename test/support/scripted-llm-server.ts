/**
 * A scripted LLM server for tests: a real HTTP server on 127.0.0.1 that speaks the OpenAI
 * chat-completions or the Ollama /api/chat wire format and answers from a script, so tests
 * (unit tests and end-to-end tests with real task processes) never leave the machine.
 *
 *   const llm = await startScriptedLlm({
 *     flavor: 'openai',                       // or 'ollama'
 *     script: [
 *       { tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
 *       { content: 'Done.', usage: { prompt_tokens: 120, completion_tokens: 8 } },
 *     ],
 *   });
 *   // config: llm.openai.base_url = llm.url  (http://127.0.0.1:PORT/v1; Ollama: no /v1)
 *   ...
 *   expect(llm.chatRequests()[0].body).toMatchObject({ model: 'm' });
 *   await llm.close();
 *
 * Endpoints
 * - openai: POST /v1/chat/completions, GET /v1/models
 * - ollama: POST /api/chat, GET /api/tags
 * - anything else: 404 (what a wrong base_url gets).
 *
 * Each chat request takes the next script step (or calls `script(request, index)`); a
 * request beyond the end of a list gets 500 "script exhausted". Every request is recorded
 * in `requests` with its parsed JSON body; a body that is not valid JSON is answered 400,
 * recorded with `invalidJson` set and takes no step, so tests can assert that every body
 * the client sent was valid.
 *
 * A step answers as a stream (OpenAI SSE / Ollama NDJSON) when `stream` says so, or else
 * when the request asked for one. Streams cut text and tool-call arguments into pieces of
 * `chunkChars` characters, so clients are tested on deltas split mid-word and mid-JSON.
 * OpenAI usage is streamed only when the request set stream_options.include_usage, as the
 * real API does.
 *
 * With `requireKey`, a request without `Authorization: Bearer <requireKey>` gets 401 whose
 * message echoes the key it received: the worst case for a client that must never repeat
 * a key in its own messages.
 */
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedFlavor = 'openai' | 'ollama';

export interface ScriptedToolCall {
  name: string;
  /** An object, or JSON text (OpenAI sends text; Ollama gets it parsed). */
  arguments: Record<string, unknown> | string;
  /** OpenAI only; default `call_<request index>_<call index>`. */
  id?: string;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** OpenAI: prompt_tokens_details.cached_tokens (part of prompt_tokens). */
  cached_tokens?: number;
  /** OpenAI: merged into the usage object (e.g. cache_creation_input_tokens). */
  extra?: Record<string, unknown>;
}

export interface ScriptStep {
  content?: string;
  tool_calls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /** Default: 'tool_calls' when there are tool calls, else 'stop' (Ollama: done_reason). */
  finish_reason?: string;
  /** Force a streamed (true) or a plain JSON (false) answer; default: what the request asked. */
  stream?: boolean;
  /** Answer with this status; with `error` (or any status >= 400) the body is an error. */
  status?: number;
  error?: { message: string; code?: string };
  /** Extra response headers, e.g. { 'Retry-After': '2' }. */
  headers?: Record<string, string>;
  /** Wait before answering. */
  delayMs?: number;
  /** Characters per streamed piece of text or arguments (default 8). */
  chunkChars?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Destroy the connection instead of answering (after delayMs). */
  hangUp?: boolean;
  /** Streamed answers: destroy the connection after this many chunks. */
  hangUpAfterChunks?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; null for GETs and for bodies that are not JSON. */
  body: unknown;
  /** Size of the body as received. */
  bytes: number;
  /** Why the body was not valid JSON (the request was answered 400). */
  invalidJson?: string;
}

export type Script = ScriptStep[] | ((request: RecordedRequest, index: number) => ScriptStep);

export interface ScriptedLlmOptions {
  flavor: ScriptedFlavor;
  script: Script;
  requireKey?: string;
  /** Names listed by /v1/models or /api/tags (default ['scripted-model']). */
  models?: string[];
}

export interface ScriptedLlm {
  /** Base URL for config: http://127.0.0.1:PORT/v1 (openai) or http://127.0.0.1:PORT (ollama). */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Only the chat requests (POST to the chat endpoint). */
  chatRequests(): RecordedRequest[];
  close(): Promise<void>;
}

const PATHS = {
  openai: { chat: '/v1/chat/completions', models: '/v1/models', base: '/v1' },
  ollama: { chat: '/api/chat', models: '/api/tags', base: '' },
} as const;

export async function startScriptedLlm(options: ScriptedLlmOptions): Promise<ScriptedLlm> {
  const { flavor } = options;
  const paths = PATHS[flavor];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let chatIndex = 0;

  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, flavor, 500, `scripted LLM crashed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0],
      headers: req.headers,
      body: null,
      bytes: raw.length,
    };
    if (req.method === 'POST') {
      try {
        recorded.body = JSON.parse(raw.toString('utf8')) as unknown;
      } catch (error) {
        recorded.invalidJson = error instanceof Error ? error.message : String(error);
      }
    }
    requests.push(recorded);

    if (options.requireKey !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${options.requireKey}`) {
        const sent = auth.replace(/^Bearer /, '');
        const message = sent ? `Incorrect API key provided: ${sent}` : 'Missing API key';
        sendError(res, flavor, 401, message, 'invalid_api_key');
        return;
      }
    }
    if (req.method === 'GET' && recorded.path === paths.models) {
      sendJson(res, 200, modelList(flavor, options.models ?? ['scripted-model']));
      return;
    }
    if (req.method !== 'POST' || recorded.path !== paths.chat) {
      sendError(res, flavor, 404, `no route for ${req.method} ${recorded.path}`);
      return;
    }
    if (recorded.invalidJson !== undefined) {
      sendError(res, flavor, 400, `request body is not valid JSON: ${recorded.invalidJson}`);
      return;
    }

    const index = chatIndex++;
    const step = nextStep(options.script, recorded, index);
    if (step.delayMs) await wait(step.delayMs);
    if (step.hangUp) {
      req.socket.destroy();
      return;
    }
    const status = step.status ?? (step.error ? 400 : 200);
    if (status >= 400 || step.error) {
      const message = step.error?.message ?? `scripted status ${status}`;
      sendError(res, flavor, status, message, step.error?.code, step.headers);
      return;
    }
    const body = asRecord(recorded.body);
    const answer = buildAnswer(step, index, typeof body.model === 'string' ? body.model : 'model');
    const stream = step.stream ?? body.stream === true;
    if (!stream) {
      const json = flavor === 'openai' ? openAiJson(answer) : ollamaJson(answer);
      sendJson(res, status, json, step.headers);
      return;
    }
    const includeUsage = asRecord(body.stream_options).include_usage === true;
    const chunks = flavor === 'openai' ? openAiChunks(answer, includeUsage) : ollamaChunks(answer);
    res.writeHead(status, {
      'Content-Type': flavor === 'openai' ? 'text/event-stream' : 'application/x-ndjson',
      'Cache-Control': 'no-cache',
      ...step.headers,
    });
    let sent = 0;
    for (const chunk of chunks) {
      if (step.hangUpAfterChunks !== undefined && sent >= step.hangUpAfterChunks) {
        res.socket?.destroy();
        return;
      }
      if (res.destroyed) return;
      // Wait until the chunk is handed to the socket, so a hang-up comes after it.
      await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
      sent++;
      if (step.chunkDelayMs) await wait(step.chunkDelayMs);
    }
    res.end();
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

  return {
    url: `http://127.0.0.1:${port}${paths.base}`,
    requests,
    chatRequests: () => requests.filter((r) => r.method === 'POST' && r.path === paths.chat),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function nextStep(script: Script, request: RecordedRequest, index: number): ScriptStep {
  if (typeof script === 'function') return script(request, index);
  return (
    script[index] ?? {
      status: 500,
      error: {
        message: `scripted LLM: script exhausted (${script.length} steps, request ${index + 1})`,
      },
    }
  );
}

/** A step resolved into what both wire formats are built from. */
interface Answer {
  model: string;
  index: number;
  content: string | null;
  calls: { id: string; name: string; args: Record<string, unknown> | string }[];
  usage?: ScriptedUsage;
  finishReason: string;
  chunkChars: number;
}

function buildAnswer(step: ScriptStep, index: number, model: string): Answer {
  const calls = (step.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    name: call.name,
    args: call.arguments,
  }));
  return {
    model,
    index,
    content: step.content ?? (calls.length > 0 ? null : ''),
    calls,
    usage: step.usage,
    finishReason: step.finish_reason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
    chunkChars: Math.max(1, step.chunkChars ?? 8),
  };
}

function openAiUsage(usage: ScriptedUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens !== undefined && {
      prompt_tokens_details: { cached_tokens: usage.cached_tokens },
    }),
    ...usage.extra,
  };
}

function argsText(args: Record<string, unknown> | string): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function argsObject(args: Record<string, unknown> | string): unknown {
  return typeof args === 'string' ? (JSON.parse(args) as unknown) : args;
}

function openAiJson(answer: Answer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content };
  if (answer.calls.length > 0) {
    message.tool_calls = answer.calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: argsText(call.args) },
    }));
  }
  return {
    id: `chatcmpl-scripted-${answer.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [{ index: 0, message, finish_reason: answer.finishReason }],
    ...(answer.usage && { usage: openAiUsage(answer.usage) }),
  };
}

function openAiChunks(answer: Answer, includeUsage: boolean): string[] {
  const base = {
    id: `chatcmpl-scripted-${answer.index}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
  };
  const event = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
  const choice = (delta: unknown, finish: string | null = null): string =>
    event({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [choice({ role: 'assistant', content: '' })];
  for (const piece of pieces(answer.content ?? '', answer.chunkChars)) {
    out.push(choice({ content: piece }));
  }
  answer.calls.forEach((call, i) => {
    out.push(
      choice({
        tool_calls: [
          { index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of pieces(argsText(call.args), answer.chunkChars)) {
      out.push(choice({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
  });
  out.push(choice({}, answer.finishReason));
  if (includeUsage && answer.usage) {
    out.push(event({ ...base, choices: [], usage: openAiUsage(answer.usage) }));
  }
  out.push('data: [DONE]\n\n');
  return out;
}

function ollamaFinal(answer: Answer): Record<string, unknown> {
  return {
    model: answer.model,
    created_at: new Date().toISOString(),
    done: true,
    done_reason: answer.finishReason === 'tool_calls' ? 'stop' : answer.finishReason,
    total_duration: 1_000_000,
    ...(answer.usage && {
      prompt_eval_count: answer.usage.prompt_tokens,
      eval_count: answer.usage.completion_tokens,
    }),
  };
}

function ollamaCalls(answer: Answer): unknown[] {
  return answer.calls.map((call) => ({
    function: { name: call.name, arguments: argsObject(call.args) },
  }));
}

function ollamaJson(answer: Answer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content ?? '' };
  if (answer.calls.length > 0) message.tool_calls = ollamaCalls(answer);
  return { ...ollamaFinal(answer), message };
}

function ollamaChunks(answer: Answer): string[] {
  const line = (message: unknown): string =>
    `${JSON.stringify({ model: answer.model, created_at: new Date().toISOString(), message, done: false })}\n`;
  const out: string[] = [];
  for (const piece of pieces(answer.content ?? '', answer.chunkChars)) {
    out.push(line({ role: 'assistant', content: piece }));
  }
  if (answer.calls.length > 0) {
    out.push(line({ role: 'assistant', content: '', tool_calls: ollamaCalls(answer) }));
  }
  out.push(
    `${JSON.stringify({ ...ollamaFinal(answer), message: { role: 'assistant', content: '' } })}\n`,
  );
  return out;
}

/** `text` in pieces of `size` characters, never splitting a character (emoji stay whole). */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function modelList(flavor: ScriptedFlavor, models: string[]): unknown {
  if (flavor === 'openai') {
    return {
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', owned_by: 'scripted' })),
    };
  }
  return { models: models.map((name) => ({ name, model: name, size: 0 })) };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  flavor: ScriptedFlavor,
  status: number,
  message: string,
  code?: string,
  headers?: Record<string, string>,
): void {
  const body =
    flavor === 'openai'
      ? { error: { message, type: 'invalid_request_error', param: null, code: code ?? null } }
      : { error: message };
  sendJson(res, status, body, headers);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
