import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TokenUsage, CurrentMessage } from '../../shared/task-types';
import type { LlmConfig, LlmProvider } from '../config/app-config';
import { badInput } from '../errors';
import { REQUEST_FILE } from '../store/contexts-layout';
import { httpGet, postFile } from './http-post-file';
import { asArray, asObject } from './json-shape';
import { httpError, toLlmError } from './llm-error';
import type { ErrorContext, LlmError } from './llm-error';
import { llmSecrets } from './llm-secrets';
import { parseBodyJson } from './llm-response';
import type { DeltaListener, LlmResponse } from './llm-response';
import { chatUrl, modelsUrl, providerSettings, resolveApiKey } from './provider-info';
import type { ProviderSettings } from './provider-info';
import { writeRequestFile, type KeptRequest } from './request-file';
import { readAnswer } from './read-answer';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, withRetries } from './retry';
import type { RetryPolicy } from './retry';
import { readBodyText, readErrorBody } from './stream-lines';
import type { ToolDefinition } from './tool-definition';
import { randomHex } from '../random-hex';

export interface LlmClientOptions {
  /** Where OPENAI_API_KEY / LMSTUDIO_API_KEY are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** From sending a request until its response headers arrive (default 10 minutes). */
  fetchTimeoutMs?: number;
  /** Longest silence inside a response body (default 5 minutes). */
  idleTimeoutMs?: number;
  /** Timeout of ping() (default 10 s). */
  pingTimeoutMs?: number;
  /** Further attempts after a retryable failure (default 4). */
  retries?: number;
  /** First backoff delay (default 1 s); doubles per retry up to maxRetryDelayMs (default 60 s). */
  retryBaseDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Injectable for tests: the wait between attempts, and the jitter source. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Stream answers (SSE / NDJSON) so onDelta sees text as it comes (default true). */
  stream?: boolean;
  /** More values to keep out of messages, e.g. secretValues(appConfig) for `${VAR}`s. */
  secrets?: readonly string[];
  /**
   * Where a long call lets its process look after its memory: `whileSending` after each
   * piece of a request body handed to the socket (a gigabyte body is thousands of them),
   * `answerStarts` once the body is all sent and the answer begins. The task process
   * collects garbage there (src/worker/heap-trim.ts).
   */
  memory?: { whileSending(): void; answerStarts(): void };
}

export interface ChatRequest {
  /** The context to send: the task's current.jsonl. */
  currentPath: string;
  /**
   * Where request.json is written (the task folder). It is kept after the call, so the next
   * call only adds what current.jsonl gained since; release() deletes it.
   */
  workDir: string;
  tools?: ToolDefinition[];
  /** Sent after the file's lines without being written to it (e.g. a summary instruction). */
  extraMessages?: CurrentMessage[];
  signal?: AbortSignal;
  onDelta?: DeltaListener;
  /** Another model than the configured one (seed 002 §2.6.2 compaction.model). */
  model?: string;
  maxOutputTokens?: number;
}

export interface CompleteOptions {
  /** Receives the provider's token usage of the call (compaction records keep it). */
  onUsage?: (usage: TokenUsage) => void;
  /** Where the request file is written (default: the system temp folder). */
  workDir?: string;
  /** A system message sent before the prompt. */
  system?: string;
  signal?: AbortSignal;
  onDelta?: DeltaListener;
  model?: string;
  maxOutputTokens?: number;
}

export type PingResult = { ok: true; models?: string[] } | { ok: false; error: string };

export interface LlmClient {
  readonly provider: LlmProvider;
  /** The configured model; null when config.yaml names none (chat then needs req.model). */
  readonly model: string | null;
  readonly baseUrl: string;
  chat(req: ChatRequest): Promise<LlmResponse>;
  /** A one-shot prompt (summaries); still written to a request file and streamed. */
  complete(prompt: string, options?: CompleteOptions): Promise<string>;
  /** Lists the server's models (`cwb doctor`); never throws. */
  ping(): Promise<PingResult>;
  /**
   * Deletes the request bodies chat() kept for its next call. A task process calls it when
   * its run ends, before the task folder moves (a crash leaves one behind: the next run
   * writes it again from the start, and exports leave it out).
   */
  release(): Promise<void>;
}

/** The file name of a chat request inside the task folder (seed 000 §3.7). */
export const REQUEST_FILE_NAME = REQUEST_FILE;

const DEFAULT_PING_TIMEOUT_MS = 10_000;

/**
 * A client for the configured provider. Every call builds its body as a file from
 * current.jsonl (nothing of the conversation is held in memory), streams the file to the
 * server and parses the answer as it arrives. A chat's body is kept for the next chat,
 * which extends it with the lines appended since (issue #17: re-reading the whole context
 * at every call was the task process's largest cost); a one-shot prompt's is deleted, and
 * so is any body whose writing failed.
 */
export function createLlmClient(config: LlmConfig, options: LlmClientOptions = {}): LlmClient {
  const provider = config.provider;
  const settings: ProviderSettings = providerSettings(config);
  const env = options.env ?? process.env;
  const apiKey = resolveApiKey(provider, settings, env);
  const secrets = llmSecrets(config, env, options.secrets);
  const stream = options.stream ?? true;
  const policy: RetryPolicy = {
    retries: options.retries ?? DEFAULT_RETRY_POLICY.retries,
    baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    sleep: options.sleep ?? DEFAULT_RETRY_POLICY.sleep,
    random: options.random ?? DEFAULT_RETRY_POLICY.random,
  };
  const headers: Record<string, string> = { Accept: 'application/json, text/event-stream' };
  if (apiKey && provider !== 'ollama') headers.Authorization = `Bearer ${apiKey}`;

  const context = (model: string | null): ErrorContext => ({
    provider,
    baseUrl: settings.base_url,
    model,
    apiKeySent: headers.Authorization !== undefined,
    secrets,
  });

  const modelFor = (override: string | undefined): string => {
    const model = override ?? settings.model;
    if (!model) {
      throw badInput(
        `no model is configured for ${provider}: set llm.${provider}.model in config.yaml`,
      );
    }
    return model;
  };

  // request path → the body left there by the last chat (see KeptRequest).
  const kept = new Map<string, KeptRequest>();

  /** Writes the body, posts it (retrying what is worth retrying), removes or keeps the file. */
  const send = async (
    requestPath: string,
    body: {
      currentPath: string | null;
      extraMessages?: CurrentMessage[];
      tools?: ToolDefinition[];
      model: string;
      maxOutputTokens?: number;
    },
    signal: AbortSignal | undefined,
    onDelta: DeltaListener | undefined,
  ): Promise<LlmResponse> => {
    const ctx = context(body.model);
    const continueFrom = kept.get(requestPath);
    kept.delete(requestPath);
    let keep: KeptRequest | undefined;
    try {
      ({ kept: keep } = await writeRequestFile({
        ...body,
        continueFrom,
        requestPath,
        provider,
        stream,
        maxOutputTokens: body.maxOutputTokens ?? settings.max_output_tokens,
        contextLength: provider === 'ollama' ? settings.context_length : undefined,
      }));
      const toError = (error: unknown): LlmError => toLlmError(ctx, error);
      return await withRetries(policy, signal, toError, (state) =>
        attempt(requestPath, ctx, signal, (text) => {
          if (!onDelta) return;
          state.shown = true;
          onDelta(text);
        }),
      );
    } finally {
      if (keep) kept.set(requestPath, keep);
      else fs.rmSync(requestPath, { force: true });
    }
  };

  const attempt = async (
    requestPath: string,
    ctx: ErrorContext,
    signal: AbortSignal | undefined,
    onDelta: DeltaListener,
  ): Promise<LlmResponse> => {
    const res = await postFile(chatUrl(provider, settings.base_url), requestPath, {
      headers,
      signal,
      responseTimeoutMs: options.fetchTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      ...(options.memory && { onBodyPiece: options.memory.whileSending }),
    });
    options.memory?.answerStarts();
    if (res.status < 200 || res.status >= 300) {
      const text = await readErrorBody(res.body);
      throw httpError(ctx, res.status, res.statusText, text, parseRetryAfter(res.headers));
    }
    return readAnswer(provider, res, onDelta);
  };

  return {
    provider,
    model: settings.model,
    baseUrl: settings.base_url,

    async chat(req) {
      const model = modelFor(req.model);
      return await send(
        path.join(req.workDir, REQUEST_FILE_NAME),
        {
          currentPath: req.currentPath,
          extraMessages: req.extraMessages,
          tools: req.tools,
          model,
          maxOutputTokens: req.maxOutputTokens,
        },
        req.signal,
        req.onDelta,
      );
    },

    async complete(prompt, opts = {}) {
      const model = modelFor(opts.model);
      const messages: CurrentMessage[] = [];
      if (opts.system !== undefined) messages.push({ role: 'system', content: opts.system });
      messages.push({ role: 'user', content: prompt });
      // A name of its own: a summary may be asked for while a chat's request.json exists.
      const file = `request-complete-${process.pid}-${randomHex(4)}.json`;
      const response = await send(
        path.join(opts.workDir ?? os.tmpdir(), file),
        {
          currentPath: null,
          extraMessages: messages,
          model,
          maxOutputTokens: opts.maxOutputTokens,
        },
        opts.signal,
        opts.onDelta,
      );
      if (response.usage) opts.onUsage?.(response.usage);
      return response.content ?? '';
    },

    async ping() {
      const ctx = context(settings.model);
      try {
        const res = await httpGet(modelsUrl(provider, settings.base_url), {
          headers,
          responseTimeoutMs: options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS,
          idleTimeoutMs: options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS,
        });
        if (res.status < 200 || res.status >= 300) {
          const text = await readErrorBody(res.body);
          return { ok: false, error: httpError(ctx, res.status, res.statusText, text).message };
        }
        const list = parseBodyJson(await readBodyText(res.body), 'the model list');
        return { ok: true, models: modelNames(provider, list) };
      } catch (error) {
        return { ok: false, error: toLlmError(ctx, error).message };
      }
    },

    async release() {
      const paths = [...kept.keys()];
      kept.clear();
      // Never a reason to fail a task: a body left behind is rewritten by the next run and
      // left out of exports (a read-only disk refuses the delete, for one).
      for (const file of paths) {
        try {
          fs.rmSync(file, { force: true });
        } catch {
          // left for the next run
        }
      }
    },
  };
}

function modelNames(provider: LlmProvider, list: unknown): string[] {
  const root = asObject(list);
  const items = asArray(provider === 'ollama' ? root.models : root.data);
  const key = provider === 'ollama' ? 'name' : 'id';
  return items
    .map((item) => asObject(item)[key])
    .filter((name): name is string => typeof name === 'string');
}
