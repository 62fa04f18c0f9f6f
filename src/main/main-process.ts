import { pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  session,
  shell,
  utilityProcess,
} from 'electron';
import electronLog from 'electron-log/main';
import { IPC_EVENT_CHANNEL } from '../shared/api/operation-names';
import { createWorkbenchService, type WorkbenchService } from '../core/api';
import { readIndexSetting } from '../core/config/index-setting';
import { loadConfig } from '../core/config/load-config';
import { INDEX_URL_ENV, resolveIndexUrl } from '../core/db/open-task-index';
import { processSecrets } from '../core/llm/process-secrets';
import { resolveContextsRoot } from '../core/store/contexts-layout';
import { appMenuTemplate } from './app-menu';
import { createSenderCheck } from './ipc/sender-check';
import { registerApiHandlers } from './ipc/register-api-handlers';
import { registerPickerHandlers } from './ipc/register-picker-handlers';
import { setupLogging } from './logging';
import { createMainWindow } from './main-window';
import { mainPaths } from './main-paths';
import { installSecurity } from './security';
import { utilityProcessForkWorker } from './utility-fork';

export interface MainProcess {
  /** Resolves when the window exists and the API is registered (false: another instance runs). */
  ready: Promise<boolean>;
  shutdown(): Promise<void>;
}

/**
 * The desktop app's main process: a thin host around the same WorkbenchService `cwb serve`
 * uses. Everything Electron-specific is here and in the small files it wires together.
 */
export function startMainProcess(
  paths = mainPaths(),
  env: NodeJS.ProcessEnv = process.env,
): MainProcess {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { ready: Promise.resolve(false), shutdown: async () => undefined };
  }
  // The environment's keys are known before the config is (and if it never loads).
  let secrets: readonly string[] = processSecrets(null, env);
  const log = setupLogging(electronLog, () => secrets);
  const devServerUrl = app.isPackaged ? undefined : env['ELECTRON_RENDERER_URL'];
  const appUrl = devServerUrl ?? pathToFileURL(paths.rendererFile).href;
  let service: WorkbenchService | undefined;
  let mainWindow: BrowserWindow | null = null;

  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Task processes are paused (not killed) before the app goes: their work resumes later.
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !service) return;
    event.preventDefault();
    quitting = true;
    void service.close(5_000).finally(() => app.quit());
  });

  const openWindow = (): void => {
    mainWindow = createMainWindow({
      preload: paths.preload,
      userData: app.getPath('userData'),
      load: (win) => (devServerUrl ? win.loadURL(devServerUrl) : win.loadFile(paths.rendererFile)),
      onLoadError: (err) => log.error('failed to load the renderer:', err),
    });
    mainWindow.on('closed', () => (mainWindow = null));
  };

  const ready = app.whenReady().then(() => {
    installSecurity({ app, session: session.defaultSession, appUrl, devServer: !!devServerUrl });
    let configDir: string | null = null;
    let fsync = false;
    try {
      const { config, file } = loadConfig({ env });
      secrets = processSecrets(config, env);
      configDir = config.contexts_dir;
      fsync = config.storage.durability === 'fsync';
      // The task index as the CLI picks it ($CWB_INDEX_URL, then config.yaml's `index:`),
      // put in the environment so the store and every task process it starts share it.
      const index = resolveIndexUrl(undefined, env, readIndexSetting(file, env));
      if (index) env[INDEX_URL_ENV] = index;
    } catch (err) {
      // The app still opens: every screen that needs the config will show this error.
      log.error('config.yaml:', err);
      dialog.showErrorBox('Context Workbench: config.yaml', (err as Error).message);
    }
    const contextsRoot = resolveContextsRoot(undefined, env, configDir);
    const active = createWorkbenchService({
      contextsRoot,
      configFile: null,
      fork: utilityProcessForkWorker((...args) => utilityProcess.fork(...args), paths.worker),
      host: {
        kind: 'electron',
        version: app.getVersion(),
        versions: {
          electron: process.versions.electron ?? '',
          chrome: process.versions.chrome ?? '',
        },
      },
      exportDir: app.getPath('downloads'),
      env,
      fsync,
      watchSources: true,
      onUnexpectedError: (name, err) => log.error(`${name} failed:`, err),
    });
    active.sourcesReady.catch((err: unknown) => log.error('sources not watched:', err));
    service = active;
    const isTrustedSender = createSenderCheck(appUrl, () =>
      BrowserWindow.getAllWindows().map((w) => w.webContents.id),
    );
    registerApiHandlers({
      ipcMain,
      invoke: (name, payload) => active.invoke(name, payload),
      isTrustedSender,
      warn: (message) => log.warn(message),
    });
    registerPickerHandlers({
      ipcMain,
      dialog,
      isTrustedSender,
      windowOf: (event) => BrowserWindow.fromWebContents(event.sender),
      exportDir: app.getPath('downloads'),
      warn: (message) => log.warn(message),
    });
    active.subscribe((event) => {
      for (const win of BrowserWindow.getAllWindows()) {
        if (!win.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, event);
      }
    });
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        appMenuTemplate({
          platform: process.platform,
          appName: 'Context Workbench',
          devTools: !app.isPackaged,
          actions: {
            openContextsFolder: () => void shell.openPath(contextsRoot),
            openLogFile: () => void shell.openPath(log.transports.file.getFile().path),
            showAbout: () => app.showAboutPanel(),
          },
        }),
      ),
    );
    openWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) openWindow();
    });
    log.info(`Context Workbench ${app.getVersion()} started on ${contextsRoot}`);
    return true;
  });

  return {
    ready,
    shutdown: async () => {
      await service?.close(1_000);
    },
  };
}
