import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_INLINE_BYTES } from './output-limits';
import { useToolFixture } from './test-support/tool-context';
import { BUILTIN_TOOLS, builtinToolDefinitions, executeTool } from './tool-registry';

const ALL = [
  'read_file',
  'list_dir',
  'grep',
  'write_file',
  'run_command',
  'update_plan',
  'tool_output_cache',
  'tool_output_cache_grep',
  'history_recall',
];

interface ObjectSchema {
  type: string;
  properties: Record<string, { type: string; description?: string }>;
  required: string[];
  additionalProperties: boolean;
}

describe('builtinToolDefinitions', () => {
  it('offers every tool, and leaves run_command out when it is disabled', () => {
    expect(builtinToolDefinitions({ allowRunCommand: true }).map((d) => d.function.name)).toEqual(
      ALL,
    );
    expect(builtinToolDefinitions({ allowRunCommand: false }).map((d) => d.function.name)).toEqual(
      ALL.filter((name) => name !== 'run_command'),
    );
  });

  it('describes each tool with a JSON Schema that matches its argument parser', () => {
    for (const tool of BUILTIN_TOOLS) {
      const { type, function: fn } = tool.definition;
      expect(type).toBe('function');
      expect(fn.description.length, fn.name).toBeGreaterThan(40);
      const schema = fn.parameters as ObjectSchema;
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      for (const property of Object.values(schema.properties)) {
        expect(property.description, fn.name).toBeTruthy();
      }
      // The zod schema and the JSON Schema name the same fields and the same required ones.
      const generated = z.toJSONSchema(tool.args, { io: 'input' }) as Partial<ObjectSchema>;
      expect(Object.keys(schema.properties).sort(), fn.name).toEqual(
        Object.keys(generated.properties ?? {}).sort(),
      );
      expect([...schema.required].sort(), fn.name).toEqual([...(generated.required ?? [])].sort());
      for (const [name, property] of Object.entries(schema.properties)) {
        // Optional fields also accept null (OpenAI strict mode), so zod's type may be a list.
        const zodType = JSON.stringify(generated.properties?.[name]);
        expect(zodType, `${fn.name}.${name}`).toContain(`"${property.type}"`);
      }
    }
  });
});

describe('executeTool', () => {
  const fixture = useToolFixture();

  it('answers an unknown tool with the list of available tools', async () => {
    const { ctx } = fixture();
    const result = await executeTool('delete_everything', '{}', { ...ctx, allowRunCommand: false });
    expect(result).toMatchObject({ status: 'error' });
    expect(result.error).toBe(
      `unknown tool "delete_everything"; available tools: ${ALL.filter((n) => n !== 'run_command').join(', ')}`,
    );
  });

  it('answers invalid JSON and non-object arguments with an error naming the problem', async () => {
    const { ctx } = fixture();
    const bad = await executeTool('read_file', '{"path": "a.txt"', ctx);
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(
      /^the arguments of read_file are not valid JSON \(.+\); send one JSON object$/,
    );
    expect(bad.content).toBe(`Error: ${bad.error}`);
    expect((await executeTool('read_file', '["a.txt"]', ctx)).error).toBe(
      'the arguments of read_file must be a JSON object, got an array',
    );
    expect((await executeTool('read_file', 'null', ctx)).error).toBe(
      'the arguments of read_file must be a JSON object, got null',
    );
    expect((await executeTool('read_file', '{"path": 7}', ctx)).error).toBe(
      'invalid arguments for read_file: "path" must be a string, got an integer',
    );
  });

  it('treats empty arguments as {}', async () => {
    const { ctx, write } = fixture();
    write('a.txt', 'x');
    expect((await executeTool('list_dir', '', ctx)).content).toBe('".": 1 entry\na.txt  1 bytes');
  });

  it('turns thrown errors into error results', async () => {
    const { ctx, base } = fixture();
    const gone = { ...ctx, workdir: path.join(base, 'missing') };
    const result = await executeTool('read_file', '{"path":"a.txt"}', gone);
    expect(result.status).toBe('error');
    expect(result.error).toMatch(
      /^read_file failed: the working directory .*missing does not exist$/,
    );
  });

  it('does not start a tool once the task is cancelled', async () => {
    const { ctx, workdir, write } = fixture();
    write('a.txt', 'x');
    const controller = new AbortController();
    controller.abort();
    const result = await executeTool('read_file', '{"path":"a.txt"}', {
      ...ctx,
      signal: controller.signal,
    });
    expect(result.error).toBe('read_file was cancelled before it started');
    expect(workdir).toBeTruthy();
  });

  it('saves outputs over 50 KiB whole and returns a head/tail view with the ref', async () => {
    const { ctx, write } = fixture();
    for (let i = 0; i < 41; i++)
      write(`f${String(i).padStart(2, '0')}.txt`, `${'m'.repeat(3000)}\n`.repeat(5));
    const result = await executeTool('grep', '{"pattern":"m+"}', ctx);
    expect(result.status).toBe('success');
    expect(result.outputRef).toMatch(/^grep_[0-9a-f]{12}$/);
    const ref = result.outputRef as string;
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    expect(result.content.startsWith('f00.txt:1: mmm')).toBe(true);
    expect(
      result.content.endsWith(`[full output: ref=${ref}; read it with tool_output_cache]`),
    ).toBe(true);
    expect(result.content).toContain('[stopped after 200 matches');

    const back = await executeTool(
      'tool_output_cache',
      JSON.stringify({ ref_id: ref, offset: 100, limit: 1 }),
      ctx,
    );
    expect(back.content.split('\n')[0]).toBe(`   100\tf19.txt:5: ${'m'.repeat(500)}`);
    const grep = await executeTool(
      'tool_output_cache_grep',
      JSON.stringify({ ref_id: ref, pattern: '^f39' }),
      ctx,
    );
    expect(grep.content.split('\n').at(-1)).toBe('[5 matches]');
  });
});
