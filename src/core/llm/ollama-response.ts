import type { Readable } from 'node:stream';
import type { ToolCall } from '../../shared/task-types';
import { asArray, asObject } from './json-shape';
import { ResponseError, embeddedError, parseBodyJson } from './llm-response';
import type { DeltaListener, LlmResponse } from './llm-response';
import { readStreamLines } from './stream-lines';
import { usageFromOllama } from './token-usage';
import { randomHex } from '../random-hex';

/**
 * Ollama's native /api/chat answers: NDJSON when streamed (one object per line with a
 * piece of `message.content`, tool calls whole in `message.tool_calls`, a last line with
 * `done: true` and the token counts), one object when not.
 */

/** Reads an NDJSON answer, calling onDelta with each piece of text as it arrives. */
export async function readOllamaStream(
  body: Readable,
  onDelta?: DeltaListener,
): Promise<LlmResponse> {
  const answer = new OllamaAnswer();
  for await (const line of readStreamLines(body)) {
    if (line.trim() === '') continue;
    answer.add(parseBodyJson(line, 'a line of the stream'), onDelta);
    if (answer.done) break;
  }
  if (!answer.done) {
    throw new ResponseError('the stream ended before the answer was complete', undefined, true);
  }
  return answer.result();
}

/** A non-streamed answer: one object with `message`, `done: true` and the counts. */
export function ollamaJsonResponse(value: unknown): LlmResponse {
  const answer = new OllamaAnswer();
  answer.add(value);
  return answer.result();
}

class OllamaAnswer {
  private readonly pieces: string[] = [];
  private readonly calls: ToolCall[] = [];
  // Ollama gives tool calls no ids (older versions) but current.jsonl pairs results with
  // calls by id: ids are made unique per answer and, through the suffix, across answers.
  private readonly idSuffix = randomHex(4);
  private final: Record<string, unknown> = {};
  private model: string | undefined;
  done = false;

  add(chunk: unknown, onDelta?: DeltaListener): void {
    const error = embeddedError(chunk);
    if (error) throw error;
    const root = asObject(chunk);
    if (typeof root.model === 'string' && root.model !== '') this.model = root.model;
    const message = asObject(root.message);
    if (typeof message.content === 'string' && message.content !== '') {
      this.pieces.push(message.content);
      onDelta?.(message.content);
    }
    for (const raw of asArray(message.tool_calls)) this.addCall(asObject(raw));
    if (root.done === true) {
      this.done = true;
      this.final = root;
    }
  }

  private addCall(raw: Record<string, unknown>): void {
    const fn = asObject(raw.function);
    const n = this.calls.length;
    const args: unknown = fn.arguments;
    this.calls.push({
      id: typeof raw.id === 'string' && raw.id !== '' ? raw.id : `call_${n}_${this.idSuffix}`,
      type: 'function',
      function: {
        name: typeof fn.name === 'string' ? fn.name : '',
        // Ollama sends an object; current.jsonl and OpenAI keep arguments as JSON text.
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      },
    });
  }

  result(): LlmResponse {
    if (!this.done) throw new ResponseError('the answer is not marked done', undefined, true);
    const response: LlmResponse = { content: this.pieces.length > 0 ? this.pieces.join('') : null };
    if (this.calls.length > 0) response.tool_calls = this.calls;
    const usage = usageFromOllama(this.final);
    if (usage) response.usage = usage;
    // Ollama says 'stop' even when it called tools; callers expect OpenAI's 'tool_calls'.
    const reason = typeof this.final.done_reason === 'string' ? this.final.done_reason : undefined;
    if (this.calls.length > 0 && (reason === undefined || reason === 'stop')) {
      response.finish_reason = 'tool_calls';
    } else if (reason !== undefined) {
      response.finish_reason = reason;
    }
    if (this.model !== undefined) response.model = this.model;
    return response;
  }
}
