import type { LlmProvider } from '../config/app-config';
import { scrubSecrets } from '../config/secrets';
import { CwbError } from '../errors';
import type { CwbErrorCode } from '../errors';
import { TransportError } from './http-post-file';
import { isObject } from './json-shape';
import { ResponseError, embeddedError } from './llm-response';
import { API_KEY_ENV, PROVIDER_LABELS, displayUrl } from './provider-info';

export type LlmErrorKind =
  | 'auth'
  | 'not_found'
  | 'rate_limit'
  | 'server'
  | 'network'
  | 'timeout'
  | 'context_length'
  | 'bad_request'
  | 'cancelled';

/** How each kind maps onto the CLI exit code / HTTP status families of CwbError. */
const CODES: Record<LlmErrorKind, CwbErrorCode> = {
  auth: 'bad_input',
  not_found: 'not_found',
  rate_limit: 'io',
  server: 'io',
  network: 'io',
  timeout: 'io',
  context_length: 'bad_input',
  bad_request: 'bad_input',
  cancelled: 'io',
};

/**
 * A failed LLM call, with one clear message that never contains a secret. `kind` is what
 * callers branch on: 'context_length' → compact and try once more; 'cancelled' → the user
 * stopped the task; `retryable` says whether the client would (or did) try again.
 */
export class LlmError extends CwbError {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    /** The HTTP status, or null when no answer arrived. */
    readonly status: number | null = null,
    readonly retryable = false,
    /** The wait the server asked for (Retry-After), in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(CODES[kind], message);
    this.name = 'LlmError';
  }
}

/** Who was called, for messages; `secrets` are scrubbed from every message built here. */
export interface ErrorContext {
  provider: LlmProvider;
  baseUrl: string;
  model: string | null;
  apiKeySent: boolean;
  secrets: readonly string[];
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);
const CONTEXT_PATTERN =
  /context[ _-]?(length|window|size|limit)|maximum context|prompt is too long|prompt too long|too many tokens/i;
// Long provider messages (an HTML error page) are cut to keep the message one clear line.
const MAX_DETAIL_CHARS = 300;

/** A context-length-exceeded answer (OpenAI code, or the wording of OpenAI, LM Studio, llama.cpp, Ollama). */
export function isContextLengthError(message: string, code?: string): boolean {
  return code === 'context_length_exceeded' || CONTEXT_PATTERN.test(message);
}

/** The error for a non-2xx answer whose body (possibly cut) is `body`. */
export function httpError(
  ctx: ErrorContext,
  status: number,
  statusText: string,
  body: string,
  retryAfterMs?: number,
): LlmError {
  const { message: detail, code } = providerMessage(body);
  const head = `${where(ctx)} answered ${status}${statusText ? ` ${statusText}` : ''}`;
  const said = detail ? ` (${detail})` : '';
  const model = ctx.model ?? '(none)';
  const build = (kind: LlmErrorKind, text: string, retryable = false): LlmError =>
    new LlmError(kind, scrub(ctx, `${head}: ${text}`), status, retryable, retryAfterMs);

  if (status === 401 || status === 403) return build('auth', authHint(ctx) + said);
  if (status === 404) {
    if (code === 'model_not_found' || /model/i.test(detail)) {
      return build('not_found', `model "${model}" not found${pullHint(ctx)}${said}`);
    }
    return build('not_found', `no such endpoint: check llm.${ctx.provider}.base_url${said}`);
  }
  if (status === 429) {
    // An exhausted quota is not cured by waiting.
    if (code === 'insufficient_quota') return build('rate_limit', `quota exceeded${said}`);
    return build('rate_limit', `rate limited${said}`, true);
  }
  if (status >= 400 && isContextLengthError(detail, code)) {
    return build('context_length', `the context is longer than model "${model}" accepts${said}`);
  }
  if (status >= 500 || status === 408) {
    const kind = status === 408 ? 'timeout' : 'server';
    return build(kind, detail || 'no details', RETRYABLE_STATUS.has(status));
  }
  return build('bad_request', detail || 'no details');
}

/** Any failure of a call (transport, network, broken answer) as an LlmError. */
export function toLlmError(ctx: ErrorContext, error: unknown): LlmError {
  if (error instanceof LlmError) return error;
  const at = where(ctx);
  if (error instanceof TransportError) {
    if (error.reason === 'cancelled') {
      return new LlmError('cancelled', scrub(ctx, `${at}: request cancelled`));
    }
    return new LlmError('timeout', scrub(ctx, `${at} did not answer in time: ${error.message}`));
  }
  if (error instanceof ResponseError) {
    if (isContextLengthError(error.message, error.code)) {
      const model = ctx.model ?? '(none)';
      const text = `${at}: the context is longer than model "${model}" accepts (${clip(error.message)})`;
      return new LlmError('context_length', scrub(ctx, text), 200);
    }
    const what = error.incomplete ? 'sent a broken answer' : 'answered with an error';
    return new LlmError(
      'server',
      scrub(ctx, `${at} ${what}: ${clip(error.message)}`),
      200,
      error.incomplete,
    );
  }
  const code = errorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  const hangUp = /socket hang up|aborted/i.test(reason);
  const retryable = (code !== undefined && RETRYABLE_CODES.has(code)) || hangUp;
  return new LlmError('network', scrub(ctx, `${at} ${networkText(code, reason)}`), null, retryable);
}

function networkText(code: string | undefined, reason: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused the connection (ECONNREFUSED): is the server running?';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot be resolved (${code}): check the host name in the base URL`;
    case 'ETIMEDOUT':
      return 'did not accept the connection in time (ETIMEDOUT)';
    case 'ECONNRESET':
      return `closed the connection (${clip(reason)})`;
    default:
      return `cannot be reached: ${clip(reason)}${code && !reason.includes(code) ? ` (${code})` : ''}`;
  }
}

function where(ctx: ErrorContext): string {
  return `${PROVIDER_LABELS[ctx.provider]} at ${displayUrl(ctx.baseUrl)}`;
}

function authHint(ctx: ErrorContext): string {
  const env = API_KEY_ENV[ctx.provider];
  if (!env)
    return 'the server asks for credentials, which Ollama itself never does: check what runs in front of it';
  const setting = `llm.${ctx.provider}.api_key`;
  return ctx.apiKeySent
    ? `check ${env} (or ${setting} in config.yaml)`
    : `no API key was sent: set ${env} or ${setting} in config.yaml`;
}

function pullHint(ctx: ErrorContext): string {
  if (ctx.provider === 'ollama' && ctx.model) return `: run "ollama pull ${ctx.model}"`;
  if (ctx.provider === 'lmstudio') return ': load it in LM Studio';
  return '';
}

/** The provider's own words from an error body: JSON error objects, or plain text. */
function providerMessage(body: string): { message: string; code?: string } {
  const text = body.trim();
  if (text === '') return { message: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return { message: clip(text.replace(/<[^>]*>/g, ' ')) };
  }
  const error = embeddedError(parsed);
  if (error) return { message: clip(error.message), code: error.code };
  if (isObject(parsed)) {
    for (const key of ['message', 'detail']) {
      const value = parsed[key];
      if (typeof value === 'string') return { message: clip(value) };
    }
  }
  return { message: clip(text) };
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL_CHARS ? `${line.slice(0, MAX_DETAIL_CHARS)}…` : line;
}

function scrub(ctx: ErrorContext, text: string): string {
  return scrubSecrets(text, ctx.secrets);
}

function errorCode(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  const { code } = error;
  return typeof code === 'string' ? code : undefined;
}
