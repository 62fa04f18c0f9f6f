import { describe, expect, it } from 'vitest';
import { buildApiObject } from '../../../shared/api/build-api';
import type { WindowApi } from '../../../shared/api/workbench-api';
import { createIpcClient } from './ipc-client';

describe('the IPC transport', () => {
  const windowApi = buildApiObject<WindowApi>(
    async (name, input) =>
      name === 'getTask'
        ? { ok: false, error: { code: 'not_found', message: 'no task' } }
        : name === 'appInfo'
          ? 'garbage'
          : { ok: true, value: { name, input } },
    () => () => undefined,
  );

  it('unwraps envelopes from window.api', async () => {
    const api = createIpcClient(windowApi);
    await expect(api.queryTasks({ limit: 1 })).resolves.toEqual({
      name: 'queryTasks',
      input: { limit: 1 },
    });
    await expect(api.getTask({ uuid: 'x' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'no task',
    });
    await expect(api.appInfo()).rejects.toMatchObject({ code: 'transport' });
  });
});
