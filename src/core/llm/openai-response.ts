import type { Readable } from 'node:stream';
import type { ToolCall } from '../../shared/task-types';
import { asArray, asObject } from './json-shape';
import { ResponseError, embeddedError, parseBodyJson } from './llm-response';
import type { DeltaListener, LlmResponse } from './llm-response';
import { readSseEvents } from './sse-events';
import { usageFromOpenAi } from './token-usage';

/**
 * OpenAI-compatible chat completion answers (OpenAI, LM Studio, any /v1 server): the
 * streamed form (server-sent events of `chat.completion.chunk`s, ending with `[DONE]`)
 * and the plain JSON form.
 */

interface PartialCall {
  id: string;
  name: string;
  args: string[];
}

/** Reads an SSE answer, calling onDelta with each piece of text as it arrives. */
export async function readOpenAiStream(
  body: Readable,
  onDelta?: DeltaListener,
): Promise<LlmResponse> {
  const answer = new StreamedAnswer();
  let done = false;
  for await (const event of readSseEvents(body)) {
    if (event.data === '[DONE]') {
      done = true;
      break;
    }
    for (const chunk of chunksOf(event.data)) {
      const error = embeddedError(chunk);
      if (error) throw error;
      answer.add(chunk, onDelta);
    }
  }
  // Without [DONE] or a finish_reason the server stopped mid-answer.
  if (!done && answer.finishReason === undefined) {
    throw new ResponseError('the stream ended before the answer was complete', undefined, true);
  }
  return answer.result();
}

/** A non-streamed answer: `{choices: [{message, finish_reason}], usage, model}`. */
export function openAiJsonResponse(value: unknown): LlmResponse {
  const error = embeddedError(value);
  if (error) throw error;
  const root = asObject(value);
  const choice = asObject(asArray(root.choices)[0]);
  const message = asObject(choice.message);
  if (choice.message === undefined) {
    throw new ResponseError('the answer has no choices[0].message', undefined, true);
  }
  const response: LlmResponse = {
    content: typeof message.content === 'string' ? message.content : null,
  };
  const calls = asArray(message.tool_calls).map((raw, i): ToolCall => {
    const call = asObject(raw);
    const fn = asObject(call.function);
    return {
      id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${i}`,
      type: 'function',
      function: { name: text(fn.name), arguments: argumentsText(fn.arguments) },
    };
  });
  if (calls.length > 0) response.tool_calls = calls;
  const usage = usageFromOpenAi(root.usage);
  if (usage) response.usage = usage;
  if (typeof choice.finish_reason === 'string') response.finish_reason = choice.finish_reason;
  if (typeof root.model === 'string') response.model = root.model;
  return response;
}

/** Accumulates chunks: text pieces, tool calls by index, the last finish_reason and usage. */
class StreamedAnswer {
  private readonly pieces: string[] = [];
  private readonly calls = new Map<number, PartialCall>();
  private lastIndex = -1;
  private usage: LlmResponse['usage'];
  private model: string | undefined;
  finishReason: string | undefined;

  add(chunk: unknown, onDelta?: DeltaListener): void {
    const root = asObject(chunk);
    if (typeof root.model === 'string' && root.model !== '') this.model = root.model;
    // The last usage wins: servers that report it on every chunk count cumulatively.
    const usage = usageFromOpenAi(root.usage);
    if (usage) this.usage = usage;
    const choice = asObject(asArray(root.choices)[0]);
    const delta = asObject(choice.delta);
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.pieces.push(delta.content);
      onDelta?.(delta.content);
    }
    for (const raw of asArray(delta.tool_calls)) this.addCall(asObject(raw));
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
  }

  private addCall(raw: Record<string, unknown>): void {
    const id = typeof raw.id === 'string' ? raw.id : '';
    // `index` says which call a delta continues. Servers that omit it start a new call
    // with each new id and continue the last one otherwise.
    let index: number;
    if (typeof raw.index === 'number') index = raw.index;
    else if (id !== '' && !this.hasId(id)) index = this.lastIndex + 1;
    else index = Math.max(this.lastIndex, 0);
    this.lastIndex = Math.max(this.lastIndex, index);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', name: '', args: [] };
      this.calls.set(index, call);
    }
    if (call.id === '' && id !== '') call.id = id;
    const fn = asObject(raw.function);
    // Names arrive whole in the first delta on most servers; pieces are joined for the rest,
    // and a server that repeats the whole name in every delta is not doubled.
    if (typeof fn.name === 'string' && fn.name !== call.name) call.name += fn.name;
    if (fn.arguments !== undefined && fn.arguments !== null)
      call.args.push(argumentsText(fn.arguments));
  }

  private hasId(id: string): boolean {
    for (const call of this.calls.values()) if (call.id === id) return true;
    return false;
  }

  result(): LlmResponse {
    const response: LlmResponse = { content: this.pieces.length > 0 ? this.pieces.join('') : null };
    const calls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]): ToolCall => ({
        id: call.id !== '' ? call.id : `call_${index}`,
        type: 'function',
        function: { name: call.name, arguments: call.args.join('') },
      }));
    if (calls.length > 0) response.tool_calls = calls;
    if (this.usage) response.usage = this.usage;
    if (this.finishReason !== undefined) response.finish_reason = this.finishReason;
    if (this.model !== undefined) response.model = this.model;
    return response;
  }
}

/**
 * The JSON objects of one event's data. Normally exactly one; a server that forgets the
 * blank line between events runs several `data:` lines together, which are split again.
 */
function chunksOf(data: string): unknown[] {
  try {
    return [JSON.parse(data) as unknown];
  } catch {
    if (!data.includes('\n')) return [parseBodyJson(data, 'an event of the stream')];
    return data.split('\n').map((line) => parseBodyJson(line, 'an event of the stream'));
  }
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
