import { describe, expect, it } from 'vitest';
import { MAX_INLINE_BYTES } from './output-limits';
import { useToolFixture } from './test-support/tool-context';

describe('tool_output_cache and tool_output_cache_grep', () => {
  const fixture = useToolFixture();

  function saved(lines: number): string {
    const text = Array.from({ length: lines }, (_, i) => `entry ${i + 1}`).join('\n') + '\n';
    return fixture().ctx.toolOutputs.save(text, 'test').ref;
  }

  it('reads a window of lines, numbered from 1', async () => {
    const { call } = fixture();
    const ref = saved(5);
    expect((await call('tool_output_cache', { ref_id: ref })).content).toBe(
      '     1\tentry 1\n     2\tentry 2\n     3\tentry 3\n     4\tentry 4\n     5\tentry 5',
    );
    expect((await call('tool_output_cache', { ref_id: ref, offset: 2, limit: 2 })).content).toBe(
      `     2\tentry 2\n     3\tentry 3\n[lines 2-3 of output ${ref} shown; more follow; continue with offset=4]`,
    );
    expect((await call('tool_output_cache', { ref_id: ref, offset: 9 })).error).toBe(
      `offset 9 is past the end of output ${ref}`,
    );
  });

  it('keeps its own result under the inline limit and never caches it again', async () => {
    const { call, ctx } = fixture();
    const ref = ctx.toolOutputs.save(`${'w'.repeat(1500)}\n`.repeat(200), 'wide').ref;
    const result = await call('tool_output_cache', { ref_id: ref, limit: 2000 });
    expect(result.outputRef).toBeUndefined();
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    expect(result.content).toMatch(
      /\[lines 1-(\d+) of output .* shown; more follow; continue with offset=\d+\]$/,
    );
  });

  it('greps with line numbers', async () => {
    const { call } = fixture();
    const ref = saved(30);
    expect(
      (await call('tool_output_cache_grep', { ref_id: ref, pattern: 'entry 2\\d' })).content,
    ).toBe(
      [...Array.from({ length: 10 }, (_, i) => `${20 + i}: entry ${20 + i}`), '[10 matches]'].join(
        '\n',
      ),
    );
    expect(
      (await call('tool_output_cache_grep', { ref_id: ref, pattern: 'nothing' })).content,
    ).toBe(`no matches for "nothing" in output ${ref}`);
  });

  it('caps grep at 200 matches', async () => {
    const { call } = fixture();
    const ref = saved(500);
    const lines = (
      await call('tool_output_cache_grep', { ref_id: ref, pattern: 'entry' })
    ).content.split('\n');
    expect(lines).toHaveLength(201);
    expect(lines[200]).toBe('[stopped after 200 matches; there are more: narrow the pattern]');
  });

  it('gives clear errors for unknown and malformed refs and bad patterns', async () => {
    const { call } = fixture();
    const ref = saved(1);
    expect((await call('tool_output_cache', { ref_id: 'run_command_000000000000' })).error).toMatch(
      /^unknown ref_id "run_command_000000000000": no saved tool output has this id/,
    );
    expect((await call('tool_output_cache_grep', { ref_id: 'nope', pattern: 'x' })).error).toMatch(
      /^unknown ref_id "nope"/,
    );
    expect((await call('tool_output_cache', { ref_id: '../../etc/passwd' })).error).toMatch(
      /^"\.\.\/\.\.\/etc\/passwd" is not a tool output ref/,
    );
    expect((await call('tool_output_cache_grep', { ref_id: ref, pattern: '[' })).error).toMatch(
      /^invalid regular expression "\[":/,
    );
    expect((await call('tool_output_cache', {})).error).toBe(
      'invalid arguments for tool_output_cache: "ref_id" is required (a string)',
    );
  });
});
