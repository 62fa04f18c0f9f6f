import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countMessageTokens, exactMessageTokens, exactTokens } from './index';

describe('countMessageTokens', () => {
  it('counts the content with the estimate and says so', () => {
    expect(countMessageTokens({ content: 'Hello, world!' })).toEqual({
      tokens: 3,
      token_counter: 'estimate',
    });
  });

  it('adds the JSON of tool calls', () => {
    const toolCalls = [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"a.ts"}' },
      },
    ];
    const json = JSON.stringify(toolCalls);
    expect(countMessageTokens({ content: null, tool_calls: toolCalls }).tokens).toBe(
      Math.floor(json.length / 4),
    );
    const withText = countMessageTokens({
      content: 'Reading the file now.',
      tool_calls: toolCalls,
    });
    expect(withText.tokens).toBe(Math.floor(21 / 4) + Math.floor(json.length / 4));
  });

  it('is zero for an empty message', () => {
    expect(countMessageTokens({ content: null }).tokens).toBe(0);
    expect(countMessageTokens({ content: '', tool_calls: [] }).tokens).toBe(0);
  });
});

describe('exact counts, made where shown', () => {
  it('counts content and tool-call JSON with o200k', async () => {
    const toolCalls = [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }];
    expect(await exactTokens('Hello, world!')).toBe(countTokens('Hello, world!'));
    expect(await exactMessageTokens({ content: 'Hello, world!', tool_calls: toolCalls })).toBe(
      countTokens('Hello, world!') + countTokens(JSON.stringify(toolCalls)),
    );
    expect(await exactMessageTokens({ content: null })).toBe(0);
  });

  it('gives the same figure the second time (from the cache)', async () => {
    const text = 'naïve café — 日本語のテキスト '.repeat(50);
    const first = await exactTokens(text);
    expect(await exactTokens(text)).toBe(first);
    expect(first).toBe(countTokens(text));
  });
});
