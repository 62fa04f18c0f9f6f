import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ResponseError } from './llm-response';
import { openAiJsonResponse, readOpenAiStream } from './openai-response';

/** A body that arrives in the given pieces (cut anywhere, as TCP may). */
const body = (...pieces: string[]): Readable => Readable.from(pieces.map((p) => Buffer.from(p)));
const event = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
const delta = (d: unknown, finish: string | null = null) =>
  event({ model: 'gpt-4o', choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe('readOpenAiStream', () => {
  it('joins content deltas, calls onDelta per piece and keeps the usage chunk', async () => {
    const seen: string[] = [];
    const stream = [
      ': keep-alive comment\n\n',
      delta({ role: 'assistant', content: '' }),
      delta({ content: 'こんに' }),
      delta({ content: 'ちは 😀' }),
      delta({}, 'stop'),
      event({
        choices: [],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 40 },
        },
      }),
      'data: [DONE]\n\n',
    ].join('');
    // Cut the bytes everywhere, also inside multi-byte characters.
    const bytes = Buffer.from(stream);
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 3) pieces.push(bytes.subarray(i, i + 3));
    const response = await readOpenAiStream(Readable.from(pieces), (t) => seen.push(t));
    expect(response).toEqual({
      content: 'こんにちは 😀',
      finish_reason: 'stop',
      model: 'gpt-4o',
      usage: {
        input_tokens: 60,
        output_tokens: 5,
        cache_creation_tokens: 0,
        cache_read_tokens: 40,
        total_tokens: 105,
      },
    });
    expect(seen).toEqual(['こんに', 'ちは 😀']);
  });

  it('assembles tool calls from deltas by index', async () => {
    const response = await readOpenAiStream(
      body(
        delta({ role: 'assistant', content: null }),
        delta({
          tool_calls: [
            {
              index: 0,
              id: 'call_a',
              type: 'function',
              function: { name: 'read_file', arguments: '' },
            },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        delta({
          tool_calls: [
            {
              index: 1,
              id: 'call_b',
              type: 'function',
              function: { name: 'grep', arguments: '{"q":' },
            },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'th":"a.ts"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '"x"}' } }] }),
        delta({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ),
    );
    expect(response.content).toBeNull();
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.tool_calls).toEqual([
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
      },
      { id: 'call_b', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
    ]);
  });

  it('copes with servers that omit the index or repeat the name', async () => {
    const response = await readOpenAiStream(
      body(
        delta({ tool_calls: [{ id: 'c1', function: { name: 'read_file', arguments: '{"a"' } }] }),
        delta({ tool_calls: [{ function: { name: 'read_file', arguments: ':1}' } }] }),
        delta({ tool_calls: [{ id: 'c2', function: { name: 'list_dir', arguments: '{}' } }] }),
        delta({}, 'tool_calls'),
      ),
    );
    expect(response.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"a":1}' } },
      { id: 'c2', type: 'function', function: { name: 'list_dir', arguments: '{}' } },
    ]);
  });

  it('accepts CRLF line ends and events without the blank line between them', async () => {
    const response = await readOpenAiStream(
      body(
        `data: ${JSON.stringify({ choices: [{ delta: { content: 'a' } }] })}\r\n`,
        `data: ${JSON.stringify({ choices: [{ delta: { content: 'b' }, finish_reason: 'stop' }] })}\r\n\r\n`,
      ),
    );
    expect(response.content).toBe('ab');
  });

  it('raises an error event as a ResponseError with its code', async () => {
    const error = await readOpenAiStream(
      body(
        delta({ content: 'x' }),
        event({ error: { message: 'overloaded', code: 'server_error' } }),
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).toMatchObject({ message: 'overloaded', code: 'server_error' });
  });

  it('calls a stream that ends without [DONE] or a finish_reason incomplete', async () => {
    const error = await readOpenAiStream(body(delta({ content: 'x' }))).catch((e: unknown) => e);
    expect(error).toMatchObject({ incomplete: true });
    const broken = await readOpenAiStream(body('data: {"choices": [\n\n')).catch((e: unknown) => e);
    expect(broken).toMatchObject({ incomplete: true });
  });
});

describe('openAiJsonResponse', () => {
  it('reads content, tool calls, usage, finish_reason and model', () => {
    expect(
      openAiJsonResponse({
        model: 'gpt-4o-2024-08-06',
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
      }),
    ).toEqual({
      content: null,
      tool_calls: [
        { id: 'c', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
      ],
      usage: {
        input_tokens: 10,
        output_tokens: 3,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 13,
      },
      finish_reason: 'tool_calls',
      model: 'gpt-4o-2024-08-06',
    });
  });

  it('raises an error body and a body without a message', () => {
    expect(() => openAiJsonResponse({ error: { message: 'bad', code: 'x' } })).toThrow('bad');
    expect(() => openAiJsonResponse({ choices: [] })).toThrow(ResponseError);
  });
});
