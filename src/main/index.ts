import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, session } from 'electron';
import { isAllowedNavigation, mainWindowOptions } from './window-options';

// Electron main process: a thin shell. The window, its security, and nothing else yet.

const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
const rendererFile = fileURLToPath(new URL('../renderer/index.html', import.meta.url));
const devServerUrl = app.isPackaged ? undefined : process.env['ELECTRON_RENDERER_URL'];
const appUrl = devServerUrl ?? pathToFileURL(rendererFile).href;

let mainWindow: BrowserWindow | null = null;

function createWindow(): void {
  const win = new BrowserWindow(mainWindowOptions(preloadPath));
  mainWindow = win;
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });
  const loaded = devServerUrl ? win.loadURL(devServerUrl) : win.loadFile(rendererFile);
  loaded.catch((err: unknown) => console.error('failed to load the renderer:', err));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  // Every web contents (windows, and anything they might create): no new windows, no
  // navigation away from the app, no <webview>.
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => {
      if (!isAllowedNavigation(event.url, appUrl)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  void app.whenReady().then(() => {
    // Deny every permission (camera, notifications, clipboard-read, ...): the UI needs none.
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) =>
      callback(false),
    );
    session.defaultSession.setPermissionCheckHandler(() => false);
    createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });
}
