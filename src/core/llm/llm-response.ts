import type { TokenUsage, ToolCall } from '../../shared/task-types';

/** What one chat call returns, whatever the provider and whether it was streamed. */
export interface LlmResponse {
  /** The answer's text; null when the model answered with tool calls only (or nothing). */
  content: string | null;
  /** OpenAI shape: arguments are JSON text, ids are unique within the answer. */
  tool_calls?: ToolCall[];
  usage?: TokenUsage;
  /** The provider's reason ('stop', 'length', 'tool_calls', ...). */
  finish_reason?: string;
  /** The model that answered, as the provider names it. */
  model?: string;
}

/** Receives the answer's text as it arrives (streamed answers) or once (non-streamed). */
export type DeltaListener = (text: string) => void;

/**
 * A response body that is not a usable answer: an error object inside a 200 stream, JSON
 * that does not parse, or a stream that ends early. The client turns it into an LlmError.
 */
export class ResponseError extends Error {
  constructor(
    message: string,
    /** The provider's error code, when it gave one (e.g. "context_length_exceeded"). */
    readonly code?: string,
    /** The body itself is broken (cut short, not JSON): worth one more try. */
    readonly incomplete = false,
  ) {
    super(message);
    this.name = 'ResponseError';
  }
}

/** The error a provider put inside a body, if any: `{error: {message, code}}` or `{error: "..."}`. */
export function embeddedError(value: unknown): ResponseError | undefined {
  if (typeof value !== 'object' || value === null || !('error' in value)) return undefined;
  const { error } = value;
  if (error === null || error === undefined) return undefined;
  if (typeof error === 'string') return new ResponseError(error);
  if (typeof error === 'object') {
    const { message, code } = error as { message?: unknown; code?: unknown };
    return new ResponseError(
      typeof message === 'string' ? message : JSON.stringify(error),
      typeof code === 'string' ? code : undefined,
    );
  }
  return new ResponseError(String(error));
}

/** JSON.parse that reports a broken body as a ResponseError. */
export function parseBodyJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const start = text.slice(0, 80).replace(/\s+/g, ' ');
    throw new ResponseError(
      `${what} is not JSON (starts with ${JSON.stringify(start)})`,
      undefined,
      true,
    );
  }
}
