// The preload is sandboxed (it may import only electron and src/shared), so its test lives here.
import { describe, expect, it, vi } from 'vitest';
import { WORKBENCH_CONTRACT } from '../src/shared/api/contract';
import { IPC_EVENT_CHANNEL, OPERATION_NAMES } from '../src/shared/api/operation-names';
import { createWindowApi, type PreloadIpc } from '../src/preload/window-api';
import { createDesktopApi } from '../src/preload/desktop-api';
import { IPC_PICK_EXPORT_FOLDER, IPC_PICK_IMPORT_FILES } from '../src/shared/api/desktop-api';

function fakeIpc(): PreloadIpc & {
  listeners: Map<string, Set<(event: unknown, payload: unknown) => void>>;
  invoke: ReturnType<typeof vi.fn>;
} {
  const listeners = new Map<string, Set<(event: unknown, payload: unknown) => void>>();
  return {
    listeners,
    invoke: vi.fn(async (channel: string, payload: unknown) => ({
      ok: true,
      value: { channel, payload },
    })),
    on: (channel, listener) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    },
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
}

describe('window.api (preload factory)', () => {
  it('has exactly the operations of the contract plus onEvent, all functions', () => {
    const api = createWindowApi(fakeIpc());
    expect(Object.keys(api).sort()).toEqual([...Object.keys(WORKBENCH_CONTRACT), 'onEvent'].sort());
    expect(Object.keys(WORKBENCH_CONTRACT).sort()).toEqual([...OPERATION_NAMES].sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('invokes one channel per operation and exposes nothing of ipcRenderer', async () => {
    const ipc = fakeIpc();
    const api = createWindowApi(ipc);
    for (const name of OPERATION_NAMES) {
      const method = api[name] as (input?: unknown) => Promise<unknown>;
      await expect(method({ probe: name })).resolves.toEqual({
        ok: true,
        value: { channel: `cwb:api:${name}`, payload: { probe: name } },
      });
    }
    expect(ipc.invoke).toHaveBeenCalledTimes(OPERATION_NAMES.length);
    const exposed = Object.values(api) as unknown[];
    for (const raw of [ipc, ipc.invoke, ipc.on, ipc.removeListener])
      expect(exposed).not.toContain(raw);
  });

  it('delivers live events until the listener unsubscribes', () => {
    const ipc = fakeIpc();
    const api = createWindowApi(ipc);
    const seen: unknown[] = [];
    const stop = api.onEvent((e) => seen.push(e));
    const emit = (payload: unknown) => {
      for (const l of ipc.listeners.get(IPC_EVENT_CHANNEL) ?? []) l({ sender: 'main' }, payload);
    };
    emit({ type: 'tasks-changed', reason: 'import', uuids: [] });
    stop();
    emit({ type: 'tasks-changed', reason: 'start', uuids: [] });
    expect(seen).toEqual([{ type: 'tasks-changed', reason: 'import', uuids: [] }]);
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)?.size).toBe(0);
  });
});

describe('window.desktop (preload factory)', () => {
  it('has only the two pickers, each invoking its own channel and answering the envelope', async () => {
    const ipc = fakeIpc();
    const desktop = createDesktopApi(ipc);
    expect(Object.keys(desktop).sort()).toEqual(['pickExportFolder', 'pickImportFiles']);
    await expect(desktop.pickImportFiles()).resolves.toEqual({
      ok: true,
      value: { channel: IPC_PICK_IMPORT_FILES, payload: null },
    });
    await expect(desktop.pickExportFolder()).resolves.toEqual({
      ok: true,
      value: { channel: IPC_PICK_EXPORT_FOLDER, payload: null },
    });
    expect(Object.values(desktop)).not.toContain(ipc.invoke);
  });
});
