import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ollamaJsonResponse, readOllamaStream } from './ollama-response';

const ndjson = (...objects: unknown[]): Readable =>
  Readable.from([Buffer.from(objects.map((o) => `${JSON.stringify(o)}\n`).join(''))]);
const piece = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'qwen3:30b',
  message: { role: 'assistant', content, ...extra },
  done: false,
});
const done = {
  model: 'qwen3:30b',
  message: { role: 'assistant', content: '' },
  done: true,
  done_reason: 'stop',
  prompt_eval_count: 321,
  eval_count: 12,
};

describe('readOllamaStream', () => {
  it('joins content pieces and maps the final counts to usage', async () => {
    const seen: string[] = [];
    const response = await readOllamaStream(ndjson(piece('日本'), piece('語 🙂'), done), (t) =>
      seen.push(t),
    );
    expect(response).toEqual({
      content: '日本語 🙂',
      finish_reason: 'stop',
      model: 'qwen3:30b',
      usage: {
        input_tokens: 321,
        output_tokens: 12,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 333,
      },
    });
    expect(seen).toEqual(['日本', '語 🙂']);
  });

  it('gives tool calls unique ids and JSON text arguments', async () => {
    const response = await readOllamaStream(
      ndjson(
        piece('', {
          tool_calls: [{ function: { name: 'read_file', arguments: { path: 'a.ts' } } }],
        }),
        piece('', { tool_calls: [{ function: { name: 'grep', arguments: { q: '日本' } } }] }),
        done,
      ),
    );
    expect(response.content).toBeNull();
    expect(response.finish_reason).toBe('tool_calls');
    const calls = response.tool_calls ?? [];
    expect(calls.map((c) => c.function)).toEqual([
      { name: 'read_file', arguments: '{"path":"a.ts"}' },
      { name: 'grep', arguments: '{"q":"日本"}' },
    ]);
    expect(calls[0].id).toMatch(/^call_0_[0-9a-f]{8}$/);
    expect(calls[1].id).toMatch(/^call_1_[0-9a-f]{8}$/);
    const again = await readOllamaStream(
      ndjson(piece('', { tool_calls: [{ function: { name: 'x', arguments: {} } }] }), done),
    );
    expect(again.tool_calls?.[0].id).not.toBe(calls[0].id);
  });

  it('raises an error line, and a stream that ends before done', async () => {
    await expect(readOllamaStream(ndjson(piece('a'), { error: 'model crashed' }))).rejects.toThrow(
      'model crashed',
    );
    await expect(readOllamaStream(ndjson(piece('a')))).rejects.toMatchObject({ incomplete: true });
  });
});

describe('ollamaJsonResponse', () => {
  it('reads a non-streamed answer', () => {
    expect(
      ollamaJsonResponse({
        ...done,
        message: { role: 'assistant', content: 'hi' },
        done_reason: 'length',
      }),
    ).toMatchObject({
      content: 'hi',
      finish_reason: 'length',
      usage: { input_tokens: 321, output_tokens: 12, total_tokens: 333 },
    });
  });
});
