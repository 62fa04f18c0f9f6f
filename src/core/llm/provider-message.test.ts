import { describe, expect, it } from 'vitest';
import type { CurrentMessage } from '../../shared/task-types';
import { RAW_ARGUMENTS_KEY, ollamaArguments, toProviderMessage } from './provider-message';

const call = (args: string) => ({
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'read_file', arguments: args },
});

describe('toProviderMessage (OpenAI, LM Studio)', () => {
  it('keeps role, content, tool_calls, tool_call_id and name, drops tool_name', () => {
    const msg: CurrentMessage = {
      role: 'tool',
      content: '{"ok":true}',
      tool_name: 'read_file',
      tool_call_id: 'call_1',
      name: 'read_file',
    };
    for (const provider of ['openai', 'lmstudio'] as const) {
      expect(toProviderMessage(provider, msg)).toEqual({
        role: 'tool',
        content: '{"ok":true}',
        tool_call_id: 'call_1',
        name: 'read_file',
      });
    }
  });

  it('sends plain tool calls as they are and copies the others into the shape OpenAI takes', () => {
    const plain: CurrentMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call('{"path":"a"}'), { ...call('{}'), id: 'call_2' }],
    };
    // Not copied: a stored answer of thousands of calls is projected at every model call.
    expect(toProviderMessage('openai', plain).tool_calls).toBe(plain.tool_calls);
    const imported = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { ...call('{"path":"a"}'), index: 0 },
        { id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}', extra: 1 } },
      ],
    } as unknown as CurrentMessage;
    expect(toProviderMessage('openai', imported).tool_calls).toEqual([
      call('{"path":"a"}'),
      { id: 'call_2', type: 'function', function: { name: 'ls', arguments: '{}' } },
    ]);
  });

  it('keeps null content only on an assistant message with tool calls', () => {
    const withCalls: CurrentMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call('{"path":"a"}')],
    };
    expect(toProviderMessage('openai', withCalls)).toEqual(withCalls);
    expect(toProviderMessage('openai', { role: 'assistant', content: null })).toEqual({
      role: 'assistant',
      content: '',
    });
    expect(toProviderMessage('openai', { role: 'user', content: null })).toEqual({
      role: 'user',
      content: '',
    });
  });

  it('drops an empty tool_calls list, which OpenAI rejects', () => {
    expect(
      toProviderMessage('openai', { role: 'assistant', content: 'x', tool_calls: [] }),
    ).toEqual({ role: 'assistant', content: 'x' });
  });
});

describe('toProviderMessage (Ollama)', () => {
  it('turns null content into "" and tool call arguments into objects', () => {
    const msg: CurrentMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call('{"path":"日本語.txt","n":2}')],
    };
    expect(toProviderMessage('ollama', msg)).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'read_file', arguments: { path: '日本語.txt', n: 2 } } }],
    });
  });

  it('gives tool results their tool_name (falling back to the legacy name field)', () => {
    expect(
      toProviderMessage('ollama', {
        role: 'tool',
        content: 'data',
        tool_name: 'grep',
        tool_call_id: 'c',
      }),
    ).toEqual({ role: 'tool', content: 'data', tool_name: 'grep', tool_call_id: 'c' });
    expect(toProviderMessage('ollama', { role: 'tool', content: 'data', name: 'grep' })).toEqual({
      role: 'tool',
      content: 'data',
      tool_name: 'grep',
    });
  });
});

describe('ollamaArguments', () => {
  it('parses JSON object text and treats empty text as no arguments', () => {
    expect(ollamaArguments('{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
    expect(ollamaArguments('')).toEqual({});
    expect(ollamaArguments('  ')).toEqual({});
  });

  it('keeps text that is not a JSON object whole under RAW_ARGUMENTS_KEY', () => {
    expect(ollamaArguments('{"path": "a.txt"')).toEqual({
      [RAW_ARGUMENTS_KEY]: '{"path": "a.txt"',
    });
    expect(ollamaArguments('[1,2]')).toEqual({ [RAW_ARGUMENTS_KEY]: '[1,2]' });
    expect(ollamaArguments('42')).toEqual({ [RAW_ARGUMENTS_KEY]: '42' });
  });

  it('passes objects through', () => {
    expect(ollamaArguments({ x: 1 })).toEqual({ x: 1 });
  });
});
