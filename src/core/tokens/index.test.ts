import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countMessageTokens } from './index';

describe('countMessageTokens', () => {
  it('counts the content', () => {
    expect(countMessageTokens({ content: 'Hello, world!' })).toEqual({
      tokens: 3,
      tokens_o200k: countTokens('Hello, world!'),
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
    expect(countMessageTokens({ content: null, tool_calls: toolCalls })).toEqual({
      tokens: Math.floor(json.length / 4),
      tokens_o200k: countTokens(json),
    });
    const withText = countMessageTokens({
      content: 'Reading the file now.',
      tool_calls: toolCalls,
    });
    expect(withText.tokens).toBe(Math.floor(21 / 4) + Math.floor(json.length / 4));
  });

  it('is zero for an empty message', () => {
    expect(countMessageTokens({ content: null })).toEqual({ tokens: 0, tokens_o200k: 0 });
    expect(countMessageTokens({ content: '', tool_calls: [] })).toEqual({
      tokens: 0,
      tokens_o200k: 0,
    });
  });
});
