import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CurrentMessage } from '../../shared/task-types';
import { useTempDir } from '../../../test/support/temp-dir';
import { CwbError } from '../errors';
import { toProviderMessage, writeRequestFile } from './request-file';
import { sampleMessage, writeCurrent, writeLargeCurrent } from './test-support/current-file';
import type { ToolDefinition } from './tool-definition';

const tempDir = useTempDir('cwb-llm-');
const PROVIDERS = ['openai', 'lmstudio', 'ollama'] as const;

const TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the working directory',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

const CONVERSATION: CurrentMessage[] = [
  { role: 'system', content: 'You are a coding agent. 日本語で答えてください。' },
  { role: 'user', content: 'Fix the bug 🐛 in "src/a.ts"\n\tplease' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' },
      },
    ],
  },
  {
    role: 'tool',
    content: 'export const a = 1; // 🙂',
    tool_name: 'read_file',
    tool_call_id: 'call_1',
  },
  { role: 'assistant', content: '直しました 👍' },
];

function readRequest(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('writeRequestFile', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: messages are the projection of each line, then the extra messages`, async () => {
      const dir = tempDir();
      const currentPath = writeCurrent(dir, CONVERSATION);
      const requestPath = path.join(dir, 'request.json');
      const extra: CurrentMessage[] = [
        { role: 'user', content: 'Summarize: <summary>…</summary>' },
      ];
      const result = await writeRequestFile({
        currentPath,
        requestPath,
        provider,
        model: 'qwen3:30b',
        tools: TOOLS,
        stream: true,
        extraMessages: extra,
      });
      const body = readRequest(requestPath);
      expect(body.model).toBe('qwen3:30b');
      expect(body.messages).toEqual(
        [...CONVERSATION, ...extra].map((m) => toProviderMessage(provider, m)),
      );
      expect(body.tools).toEqual(TOOLS);
      expect(body.stream).toBe(true);
      expect(result).toMatchObject({ bytes: fs.statSync(requestPath).size, messages: 6 });
      if (provider !== 'ollama') expect(body.stream_options).toEqual({ include_usage: true });
      else expect(body).not.toHaveProperty('stream_options');
    });
  }

  it('names max output tokens per provider and passes Ollama a configured num_ctx', async () => {
    const dir = tempDir();
    const currentPath = writeCurrent(dir, CONVERSATION);
    const requestPath = path.join(dir, 'request.json');
    const build = async (provider: (typeof PROVIDERS)[number]) => {
      await writeRequestFile({
        currentPath,
        requestPath,
        provider,
        model: 'm',
        stream: false,
        maxOutputTokens: 512,
        contextLength: 32768,
      });
      return readRequest(requestPath);
    };
    const openai = await build('openai');
    expect(openai.max_completion_tokens).toBe(512);
    expect(openai).not.toHaveProperty('stream_options');
    expect(openai).not.toHaveProperty('options');
    expect(openai.stream).toBe(false);
    expect((await build('lmstudio')).max_tokens).toBe(512);
    const ollama = await build('ollama');
    expect(ollama.options).toEqual({ num_predict: 512, num_ctx: 32768 });
    expect(ollama.stream).toBe(false);
  });

  it('leaves tools out when there are none (OpenAI rejects an empty list)', async () => {
    const dir = tempDir();
    const requestPath = path.join(dir, 'request.json');
    await writeRequestFile({
      currentPath: writeCurrent(dir, CONVERSATION),
      requestPath,
      provider: 'openai',
      model: 'm',
      tools: [],
      stream: true,
    });
    expect(readRequest(requestPath)).not.toHaveProperty('tools');
  });

  it('writes the model and tool definitions in ASCII, and the messages as they are', async () => {
    const dir = tempDir();
    const requestPath = path.join(dir, 'request.json');
    const tools: ToolDefinition[] = [
      {
        type: 'function',
        function: {
          name: 'read_context',
          description: 'Shows tool calls as "→ name(args)", in 日本語 too 🙂',
          parameters: { type: 'object', properties: {} },
        },
      },
    ];
    await writeRequestFile({
      currentPath: writeCurrent(dir, [{ role: 'user', content: 'plain ASCII question' }]),
      requestPath,
      provider: 'openai',
      model: 'modèle',
      tools,
      stream: false,
    });
    const raw = fs.readFileSync(requestPath);
    // One character past Latin-1 would make a V8 or CPython server hold the whole body at
    // two bytes per character.
    expect(raw.toString('latin1')).toMatch(/^[\x20-\x7e]*$/);
    const body = readRequest(requestPath);
    expect(body.model).toBe('modèle');
    expect(body.tools).toEqual(tools);
    // A message's own characters are not escaped: they are the user's bytes.
    await writeRequestFile({
      currentPath: writeCurrent(dir, CONVERSATION),
      requestPath,
      provider: 'openai',
      model: 'm',
      tools,
      stream: false,
    });
    expect(fs.readFileSync(requestPath, 'utf8')).toContain('直しました 👍');
  });

  it('sends only the extra messages when there is no context file', async () => {
    const dir = tempDir();
    const requestPath = path.join(dir, 'request.json');
    const extra: CurrentMessage[] = [{ role: 'user', content: 'hello' }];
    await writeRequestFile({
      currentPath: null,
      requestPath,
      provider: 'ollama',
      model: 'm',
      stream: true,
      extraMessages: extra,
    });
    expect(readRequest(requestPath).messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('skips blank lines and accepts a last line without a newline', async () => {
    const dir = tempDir();
    const currentPath = path.join(dir, 'current.jsonl');
    const lines = CONVERSATION.map((m) => JSON.stringify(m));
    fs.writeFileSync(currentPath, `${lines[0]}\n\n${lines.slice(1).join('\n')}`);
    const requestPath = path.join(dir, 'request.json');
    const result = await writeRequestFile({
      currentPath,
      requestPath,
      provider: 'openai',
      model: 'm',
      stream: true,
    });
    expect(result.messages).toBe(CONVERSATION.length);
    expect(readRequest(requestPath).messages).toEqual(
      CONVERSATION.map((m) => toProviderMessage('openai', m)),
    );
  });

  it('refuses a malformed line, naming the file and line, and leaves no request file', async () => {
    const dir = tempDir();
    const currentPath = writeCurrent(dir, [
      CONVERSATION[0],
      CONVERSATION[1],
      '{"role":"user","content":"cut',
    ]);
    const requestPath = path.join(dir, 'request.json');
    const error = await writeRequestFile({
      currentPath,
      requestPath,
      provider: 'openai',
      model: 'm',
      stream: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CwbError);
    expect((error as CwbError).code).toBe('bad_input');
    expect((error as Error).message).toContain(`${currentPath} line 3: malformed JSON`);
    expect(fs.existsSync(requestPath)).toBe(false);
  });

  it('refuses a line that is JSON but not a message', async () => {
    const dir = tempDir();
    const requestPath = path.join(dir, 'request.json');
    for (const [line, reason] of [
      ['{"content":"no role"}', 'role must be'],
      ['{"role":"robot","content":"x"}', 'role must be'],
      ['{"role":"user","content":42}', 'content must be a string or null'],
      ['[1,2]', 'expected a message object'],
      ['{"role":"assistant","content":null,"tool_calls":[{"id":"x"}]}', 'tool_calls[0]'],
    ]) {
      const currentPath = writeCurrent(dir, [CONVERSATION[0], line]);
      await expect(
        writeRequestFile({
          currentPath,
          requestPath,
          provider: 'ollama',
          model: 'm',
          stream: true,
        }),
      ).rejects.toThrow(`${currentPath} line 2: ${reason}`);
      expect(fs.existsSync(requestPath)).toBe(false);
    }
  });

  it('refuses an empty context', async () => {
    const dir = tempDir();
    const currentPath = writeCurrent(dir, []);
    await expect(
      writeRequestFile({
        currentPath,
        requestPath: path.join(dir, 'r.json'),
        provider: 'openai',
        model: 'm',
        stream: true,
      }),
    ).rejects.toThrow('no messages to send');
  });

  for (const provider of ['openai', 'ollama'] as const) {
    it(`${provider}: a 20 MB current.jsonl becomes a valid body with every line projected`, async () => {
      const dir = tempDir();
      const currentPath = path.join(dir, 'current.jsonl');
      const lines = writeLargeCurrent(currentPath, 20 * 1024 * 1024, 3000);
      const requestPath = path.join(dir, 'request.json');
      const result = await writeRequestFile({
        currentPath,
        requestPath,
        provider,
        model: 'gpt-4o',
        tools: TOOLS,
        stream: true,
      });
      expect(result.messages).toBe(lines);
      const body = readRequest(requestPath);
      const messages = body.messages as unknown[];
      expect(messages).toHaveLength(lines);
      for (let i = 0; i < lines; i++) {
        // Stop at the first difference rather than printing 20 MB.
        const expected = toProviderMessage(provider, sampleMessage(i, 3000));
        if (JSON.stringify(messages[i]) !== JSON.stringify(expected)) {
          expect({ line: i + 1, message: messages[i] }).toEqual({ line: i + 1, message: expected });
        }
      }
      expect(body.tools).toEqual(TOOLS);
    });
  }
});

describe('writeRequestFile: lines copied as bytes', () => {
  it('openai: a tool result loses tool_name and keeps every other byte as it was', async () => {
    const dir = tempDir();
    // Escapes JSON.stringify would never write (\u00e9, \/): a re-serialized line would lose
    // them, a copied one keeps them. The content also mentions "tool_name" and ends in a
    // backslash, which must not confuse where its members start and end.
    const tool =
      '{"role":"tool","content":"caf\\u00e9 \\/ \\"tool_name\\":\\"x\\" 日本 \\\\","tool_name":"read_file","tool_call_id":"c1"}';
    const first = '{"tool_name":"grep","role":"tool","content":"a","tool_call_id":"c2"}';
    const currentPath = writeCurrent(dir, [CONVERSATION[0], tool, first]);
    const requestPath = path.join(dir, 'request.json');
    await writeRequestFile({
      currentPath,
      requestPath,
      provider: 'openai',
      model: 'm',
      stream: true,
    });
    const text = fs.readFileSync(requestPath, 'utf8');
    expect(text).toContain(
      '{"role":"tool","content":"caf\\u00e9 \\/ \\"tool_name\\":\\"x\\" 日本 \\\\","tool_call_id":"c1"}',
    );
    const body = readRequest(requestPath);
    expect(body.messages).toEqual([
      toProviderMessage('openai', CONVERSATION[0]),
      { role: 'tool', content: 'café / "tool_name":"x" 日本 \\', tool_call_id: 'c1' },
      { role: 'tool', content: 'a', tool_call_id: 'c2' },
    ]);
  });

  it('openai: lines that need more than dropping members are still projected', async () => {
    const dir = tempDir();
    const currentPath = writeCurrent(dir, [
      '{"role":"user","content":null,"tool_name":"x"}',
      '{"role":"assistant","content":null,"tool_calls":[]}',
      '{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"f","arguments":{"p":1}}}]}',
      '{"role":"tool","content":"r","tool_call_id":"a","tool_name":null,"extra":{"k":[1]}}',
    ]);
    const requestPath = path.join(dir, 'request.json');
    await writeRequestFile({
      currentPath,
      requestPath,
      provider: 'openai',
      model: 'm',
      stream: true,
    });
    expect(readRequest(requestPath).messages).toEqual([
      { role: 'user', content: '' },
      { role: 'assistant', content: '' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"p":1}' } }],
      },
      { role: 'tool', content: 'r', tool_call_id: 'a' },
    ]);
  });

  it('openai: a malformed line among copied ones is refused, naming the file and line', async () => {
    const dir = tempDir();
    const good = JSON.stringify(CONVERSATION[3]);
    const currentPath = writeCurrent(dir, [good, good, `${good.slice(0, -1)},"tool_name"}`]);
    const requestPath = path.join(dir, 'request.json');
    await expect(
      writeRequestFile({ currentPath, requestPath, provider: 'openai', model: 'm', stream: true }),
    ).rejects.toThrow(`${currentPath} line 3: malformed JSON`);
    expect(fs.existsSync(requestPath)).toBe(false);
  });
});

describe('writeRequestFile: content strings checked without being parsed', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: every escape JSON knows passes as it was; anything else is refused with its line`, async () => {
      const dir = tempDir();
      const requestPath = path.join(dir, 'request.json');
      const fine = String.raw`{"role":"user","content":"\" \\ \/ \b \f \n \r \t \u00e9\uD83D\uDE00 é 日本"}`;
      await writeRequestFile({
        currentPath: writeCurrent(dir, [fine]),
        requestPath,
        provider,
        model: 'm',
        stream: true,
      });
      expect(fs.readFileSync(requestPath, 'utf8')).toContain(fine);
      expect(readRequest(requestPath).messages).toEqual([
        { role: 'user', content: '" \\ / \b \f \n \r \t é😀 é 日本' },
      ]);
      for (const bad of [
        '{"role":"user","content":"raw \t tab"}',
        '{"role":"user","content":"raw \u0001 control"}',
        String.raw`{"role":"user","content":"unknown \x escape"}`,
        String.raw`{"role":"user","content":"short \u12 escape"}`,
        String.raw`{"role":"user","content":"ends in a backslash\"}`,
        '{"role":"user","content":"fine",}',
        '{"role":"user" "content":"fine"}',
        '{"role":"user","content":"fine"} trailing',
        '{"role":"user","content":"fine","n":01}',
      ]) {
        const currentPath = writeCurrent(dir, [fine, bad]);
        await expect(
          writeRequestFile({ currentPath, requestPath, provider, model: 'm', stream: true }),
        ).rejects.toThrow(`${currentPath} line 2: malformed JSON`);
        expect(fs.existsSync(requestPath)).toBe(false);
      }
    });
  }
});

describe('writeRequestFile: a re-serialized line keeps its content bytes', () => {
  it('ollama: tool-call arguments become an object, the content goes out as it was written', async () => {
    const dir = tempDir();
    const line = String.raw`{"role":"assistant","content":"caf\u00e9 日本 \"q\"","tool_calls":[{"id":"c1","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"日本\"}"}}]}`;
    const requestPath = path.join(dir, 'request.json');
    await writeRequestFile({
      currentPath: writeCurrent(dir, [line]),
      requestPath,
      provider: 'ollama',
      model: 'm',
      stream: true,
    });
    expect(fs.readFileSync(requestPath, 'utf8')).toContain(String.raw`"caf\u00e9 日本 \"q\""`);
    expect(readRequest(requestPath).messages).toEqual([
      {
        role: 'assistant',
        content: 'café 日本 "q"',
        tool_calls: [{ function: { name: 'grep', arguments: { pattern: '日本' } } }],
      },
    ]);
  });
});
