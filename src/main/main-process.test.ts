import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, OPERATION_NAMES, ipcChannel } from '../shared/api/operation-names';
import { useTempDir } from '../../test/support/temp-dir';
import { REAL_FIXTURES } from '../../test/support/real-fixtures';
import { IPC_PICK_EXPORT_FOLDER, IPC_PICK_IMPORT_FILES } from '../shared/api/desktop-api';
import { seedTasks } from '../core/api/test-support/seed-tasks';
import { FakeBrowserWindow, electronLog, fake, resetFake } from './test-support/fake-electron';
import { startMainProcess, type MainProcess } from './main-process';
import { startPostgres } from '../../test/support/postgres';
import { PgTaskRepository } from '../core/db/pg-task-repository';

vi.mock('electron', async () => (await import('./test-support/fake-electron')).electron);
vi.mock('electron-log/main', async () => ({
  default: (await import('./test-support/fake-electron')).electronLog,
}));

const tempDir = useTempDir();
let running: MainProcess | undefined;

beforeEach(() => resetFake());
afterEach(async () => {
  await running?.shutdown();
  running = undefined;
});

const PATHS = {
  preload: '/app/out/preload/index.cjs',
  rendererFile: '/app/out/renderer/index.html',
  worker: '/app/out/main/worker.cjs',
};
const APP_URL = pathToFileURL(PATHS.rendererFile).href;

async function start(): Promise<{ base: string; root: string; win: FakeBrowserWindow }> {
  const base = tempDir();
  const root = path.join(base, 'contexts');
  fake.app.paths = { userData: path.join(base, 'user-data'), downloads: base };
  running = startMainProcess(PATHS, { CWB_CONTEXTS: root, HOME: base, XDG_CONFIG_HOME: base });
  expect(await running.ready).toBe(true);
  const win = FakeBrowserWindow.all[0]!;
  return { base, root, win };
}

function call(channel: string, sender: unknown, payload: unknown): Promise<unknown> {
  const handler = fake.handlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return handler(sender, payload);
}

const trusted = (win: FakeBrowserWindow) => ({
  sender: win.webContents,
  senderFrame: { parent: null, url: APP_URL },
});

describe('the Electron main process (electron mocked)', () => {
  it('quits when another instance holds the lock, opening nothing', async () => {
    fake.app.lock = false;
    running = startMainProcess(PATHS, {});
    expect(await running.ready).toBe(false);
    expect(fake.app.quitCalls).toBe(1);
    expect(FakeBrowserWindow.all).toEqual([]);
    expect(fake.handlers.size).toBe(0);
  });

  it('keeps keys that are only in the environment out of the log', async () => {
    const base = tempDir();
    fake.app.paths = { userData: path.join(base, 'user-data'), downloads: base };
    const key = 'sk-env-only-0123456789abcdef';
    const token = 'ghp_0123456789abcdefghij';
    running = startMainProcess(PATHS, {
      CWB_CONTEXTS: path.join(base, 'contexts'),
      HOME: base,
      XDG_CONFIG_HOME: base,
      OPENAI_API_KEY: key,
      GITHUB_TOKEN: token,
    });
    expect(await running.ready).toBe(true);
    const hook = electronLog.hooks.at(-1) as (m: { data: unknown[] }) => { data: unknown[] };
    const logged = hook({
      data: [`calling with ${key}`, new Error(`bad ${token}`), { auth: `Bearer ${key}` }],
    });
    const text = JSON.stringify(logged.data);
    expect(text).not.toContain(key);
    expect(text).not.toContain(token);
    expect(logged.data[0]).toBe('calling with ***');
  });

  it('lists the task index config.yaml names (index: postgres://…), as the CLI does', async () => {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase();
      const fleet = new PgTaskRepository(url, { host: 'elsewhere' });
      const key = { task_source: 's', owner: '', repo: 'r', task_type: '', task_id: '', user: '' };
      fleet.insert({ uuid: 'on-another-host', key, title: 'from the fleet', status: 'paused' });
      fleet.close();
      const base = tempDir();
      fs.writeFileSync(path.join(base, 'config.yaml'), 'index: ${FLEET_DB}\n');
      fake.app.paths = { userData: path.join(base, 'user-data'), downloads: base };
      const env: NodeJS.ProcessEnv = {
        CWB_CONTEXTS: path.join(base, 'contexts'),
        CWB_CONFIG: path.join(base, 'config.yaml'),
        CWB_HOST: 'desktop',
        HOME: base,
        XDG_CONFIG_HOME: base,
        FLEET_DB: url,
      };
      running = startMainProcess(PATHS, env);
      expect(await running.ready).toBe(true);
      const win = FakeBrowserWindow.all[0]!;
      const page = (await call(ipcChannel('queryTasks'), trusted(win), {})) as {
        ok: boolean;
        value: { rows: { uuid: string; title: string }[] };
      };
      expect(page).toMatchObject({
        ok: true,
        value: { rows: [{ uuid: 'on-another-host', title: 'from the fleet' }] },
      });
      expect(env.CWB_INDEX_URL).toBe(url);
      await running.shutdown();
      running = undefined;
    } finally {
      cluster.stop();
    }
  });

  it('opens one window with isolation, sandbox and no Node, loading the built page', async () => {
    const { win } = await start();
    expect(FakeBrowserWindow.all).toHaveLength(1);
    expect(win.options).toMatchObject({
      width: 1280,
      height: 820,
      show: false,
      webPreferences: {
        preload: PATHS.preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
      },
    });
    expect(win.loaded).toBe(PATHS.rendererFile);
    win.emit('ready-to-show');
    expect(win.shown).toBe(true);
  });

  it('blocks new windows, navigation away, webviews and every permission; sets the CSP header', async () => {
    const { win } = await start();
    expect(win.webContents.openHandler?.()).toEqual({ action: 'deny' });
    const navigate = (url: string) => {
      const event = { url, preventDefault: vi.fn() };
      win.webContents.emit('will-navigate', event);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(navigate('https://evil.example/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(navigate(`${APP_URL}#/tasks`)).toBe(false);
    const webview = { preventDefault: vi.fn() };
    win.webContents.emit('will-attach-webview', webview);
    expect(webview.preventDefault).toHaveBeenCalled();
    const granted = vi.fn();
    fake.permissionRequest?.({}, 'media', granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect(fake.permissionCheck?.()).toBe(false);
    let headers: unknown;
    fake.headersHook?.({ responseHeaders: {} }, (r) => (headers = r));
    expect(JSON.stringify(headers)).toContain("script-src 'self'");
  });

  it('registers a handler for every operation of the contract, and a menu', async () => {
    await start();
    expect([...fake.handlers.keys()].sort()).toEqual(
      [...OPERATION_NAMES.map(ipcChannel), IPC_PICK_IMPORT_FILES, IPC_PICK_EXPORT_FOLDER].sort(),
    );
    expect(fake.menuTemplate?.map((m) => m.label ?? m.role)).toEqual([
      'File',
      'editMenu',
      'View',
      'windowMenu',
      'help',
    ]);
  });

  it('answers its own window and refuses any other sender', async () => {
    const { win, root } = await start();
    await expect(call(ipcChannel('appInfo'), trusted(win), {})).resolves.toMatchObject({
      ok: true,
      value: { host: 'electron', contextsRoot: root },
    });
    const forbidden = { ok: false, error: { code: 'forbidden' } };
    const foreignContents = { sender: { id: 999 }, senderFrame: { parent: null, url: APP_URL } };
    await expect(call(ipcChannel('appInfo'), foreignContents, {})).resolves.toMatchObject(
      forbidden,
    );
    const subframe = { sender: win.webContents, senderFrame: { parent: {}, url: APP_URL } };
    await expect(call(ipcChannel('queryTasks'), subframe, {})).resolves.toMatchObject(forbidden);
    const navigatedAway = {
      sender: win.webContents,
      senderFrame: { parent: null, url: 'https://evil.example/' },
    };
    await expect(call(ipcChannel('queryTasks'), navigatedAway, {})).resolves.toMatchObject(
      forbidden,
    );
    const destroyed = { sender: win.webContents, senderFrame: null };
    await expect(call(ipcChannel('queryTasks'), destroyed, {})).resolves.toMatchObject(forbidden);
  });

  it('validates payloads with the contract before anything runs', async () => {
    const { win } = await start();
    await expect(
      call(ipcChannel('getTask'), trusted(win), { uuid: '../../etc' }),
    ).resolves.toMatchObject({
      ok: false,
      error: { code: 'bad_input', field: 'uuid' },
    });
    await expect(
      call(ipcChannel('queryTasks'), trusted(win), { limit: -1 }),
    ).resolves.toMatchObject({
      ok: false,
      error: { code: 'bad_input', field: 'limit' },
    });
    await expect(
      call(ipcChannel('queryTasks'), trusted(win), 'not an object'),
    ).resolves.toMatchObject({
      ok: false,
      error: { code: 'bad_input' },
    });
  });

  it('imports the files picked in the open dialog, and exports to the folder picked (the desktop path branch)', async () => {
    const { win, base } = await start();
    const transcript = path.join(REAL_FIXTURES, 'swe-agent', 'pydicom__pydicom-1458.traj');
    fake.openDialogResult = { canceled: false, filePaths: [transcript] };
    const picked = await call(IPC_PICK_IMPORT_FILES, trusted(win), null);
    expect(picked).toEqual({ ok: true, value: [transcript] });
    // modal to the window that asked, several files, the importers' formats offered first
    const [owner, options] = fake.openDialog.mock.calls[0] as [unknown, Record<string, unknown>];
    expect(owner).toBe(win);
    expect(options).toMatchObject({ properties: ['openFile', 'multiSelections'] });
    expect(JSON.stringify(options['filters'])).toContain('traj');

    const imported = (await call(ipcChannel('importFiles'), trusted(win), {
      paths: (picked as { value: string[] }).value,
    })) as { ok: boolean; value: { results: { tasks: { uuid: string }[] }[] } };
    expect(imported.ok).toBe(true);
    const uuid = imported.value.results[0]!.tasks[0]!.uuid;

    const folder = path.join(base, 'chosen-exports');
    fs.mkdirSync(folder);
    fake.openDialogResult = { canceled: false, filePaths: [folder] };
    const chosen = await call(IPC_PICK_EXPORT_FOLDER, trusted(win), null);
    expect(chosen).toEqual({ ok: true, value: folder });
    expect(fake.openDialog.mock.calls[1]![1]).toMatchObject({
      properties: ['openDirectory', 'createDirectory'],
      defaultPath: base, // the downloads folder
    });
    const exported = (await call(ipcChannel('exportTasks'), trusted(win), {
      uuids: [uuid],
      format: 'markdown',
      output: folder,
    })) as { ok: boolean; value: { files: { path: string }[] } };
    expect(exported.ok).toBe(true);
    const file = exported.value.files[0]!.path;
    expect(path.dirname(file)).toBe(folder);
    expect(fs.readFileSync(file, 'utf8')).toContain('pydicom');
  });

  it('answers a cancelled picker with nothing, and opens no dialog for a foreign sender', async () => {
    const { win } = await start();
    fake.openDialogResult = { canceled: true, filePaths: [] };
    await expect(call(IPC_PICK_IMPORT_FILES, trusted(win), null)).resolves.toEqual({
      ok: true,
      value: [],
    });
    await expect(call(IPC_PICK_EXPORT_FOLDER, trusted(win), null)).resolves.toEqual({
      ok: true,
      value: null,
    });
    const calls = fake.openDialog.mock.calls.length;
    const foreign = { sender: { id: 999 }, senderFrame: { parent: null, url: APP_URL } };
    await expect(call(IPC_PICK_IMPORT_FILES, foreign, null)).resolves.toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    await expect(call(IPC_PICK_EXPORT_FOLDER, foreign, null)).resolves.toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(fake.openDialog.mock.calls.length).toBe(calls);
  });

  it('pushes live events to the window', async () => {
    const { win, root } = await start();
    const [task] = await seedTasks(root, [{ title: 'compact me' }]);
    await expect(
      call(ipcChannel('runCompaction'), trusted(win), {
        uuid: task!.uuid,
        strategies: ['truncate'],
      }),
    ).resolves.toMatchObject({ ok: true, value: { mode: 'ran' } });
    const events = win.webContents.sent.filter(([c]) => c === IPC_EVENT_CHANNEL).map(([, e]) => e);
    expect(events).toContainEqual({
      type: 'compaction-started',
      uuid: task!.uuid,
      reason: 'manual',
    });
  });

  it('closes the service (pausing tasks) before it lets the app quit', async () => {
    await start();
    const event = { preventDefault: vi.fn() };
    fake.app.emit('before-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(fake.app.quitCalls).toBe(1));
    const again = { preventDefault: vi.fn() };
    fake.app.emit('before-quit', again);
    expect(again.preventDefault).not.toHaveBeenCalled();
  });
});
