import { describe, expect, it } from 'vitest';
import { buildApiObject } from '../../../shared/api/build-api';
import type { WorkbenchApi } from '../../../shared/api/workbench-api';
import { callKey, withEarlyCalls } from './early-calls';

/** A transport that records its calls and answers each with a fresh object. */
function recordingApi() {
  const calls: string[] = [];
  const api = buildApiObject<WorkbenchApi>(
    (name, input) => {
      calls.push(callKey(name, input));
      return name === 'getTask' && (input as { uuid: string }).uuid === 'gone'
        ? Promise.reject(new Error('no task gone'))
        : Promise.resolve({ name, n: calls.length });
    },
    () => () => undefined,
  );
  return { api, calls };
}

describe('withEarlyCalls', () => {
  it('hands an early answer to the first identical call only, whatever its key order', async () => {
    const { api, calls } = recordingApi();
    const early = withEarlyCalls(api);
    early.start('queryTasks', { sort: 'created_at', order: 'desc', limit: 200, offset: 0 });
    const first = await early.api.queryTasks({
      offset: 0,
      limit: 200,
      order: 'desc',
      sort: 'created_at',
    });
    const second = await early.api.queryTasks({
      sort: 'created_at',
      order: 'desc',
      limit: 200,
      offset: 0,
    });
    expect(first).toEqual({ name: 'queryTasks', n: 1 });
    expect(second).toEqual({ name: 'queryTasks', n: 2 });
    expect(calls).toHaveLength(2);
  });

  it('does not answer a call with other input, and drops answers left unclaimed too long', async () => {
    const { api, calls } = recordingApi();
    let clock = 0;
    const early = withEarlyCalls(api, () => clock);
    early.start('getTask', { uuid: 'a' });
    await early.api.getTask({ uuid: 'b' });
    clock = 5_001;
    await early.api.getTask({ uuid: 'a' });
    expect(calls).toEqual(['getTask:{"uuid":"a"}', 'getTask:{"uuid":"b"}', 'getTask:{"uuid":"a"}']);
  });

  it('passes an early failure to its claimer and never leaves it unhandled', async () => {
    const { api } = recordingApi();
    const early = withEarlyCalls(api);
    early.start('getTask', { uuid: 'gone' });
    await expect(early.api.getTask({ uuid: 'gone' })).rejects.toThrow('no task gone');
    early.start('getTask', { uuid: 'gone' }); // never claimed: vitest fails on unhandled rejections
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
