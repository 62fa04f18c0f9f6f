import { describe, expect, it } from 'vitest';
import { useToolFixture } from './test-support/tool-context';

describe('update_plan', () => {
  const fixture = useToolFixture();

  it('writes an initial entry, then updates, to planning.jsonl', async () => {
    const { call, ctx } = fixture();
    expect(await call('update_plan', { plan: '1. read\n2. fix' })).toEqual({
      status: 'success',
      content: 'plan saved (entry 1, initial)',
    });
    expect((await call('update_plan', { plan: '1. read (done)\n2. fix' })).content).toBe(
      'plan saved (entry 2, update)',
    );
    const { records } = ctx.planning.list();
    expect(records.map((r) => [r.id, r.plan_type, r.plan_content])).toEqual([
      [1, 'initial', '1. read\n2. fix'],
      [2, 'update', '1. read (done)\n2. fix'],
    ]);
  });

  it('refuses an empty plan', async () => {
    const { call } = fixture();
    expect((await call('update_plan', { plan: '   ' })).error).toBe(
      'invalid arguments for update_plan: "plan" must not be empty',
    );
  });
});
