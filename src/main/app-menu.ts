import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  openContextsFolder(): void;
  openLogFile(): void;
  showAbout(): void;
}

/**
 * The application menu. Standard roles do the work (edit, zoom, window); developer tools
 * only in development builds. Nothing opens a web page: the app makes no network calls
 * of its own.
 */
export function appMenuTemplate(options: {
  platform: NodeJS.Platform;
  appName: string;
  devTools: boolean;
  actions: MenuActions;
}): MenuItemConstructorOptions[] {
  const { actions } = options;
  const isMac = options.platform === 'darwin';
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open Contexts Folder', click: () => actions.openContextsFolder() },
      { label: 'Open Log File', click: () => actions.openLogFile() },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'reload' },
      ...(options.devTools ? [{ role: 'toggleDevTools' } as const] : []),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [{ label: `About ${options.appName}`, click: () => actions.showAbout() }],
  };
  return [
    ...(isMac ? [{ label: options.appName, role: 'appMenu' } as MenuItemConstructorOptions] : []),
    file,
    { role: 'editMenu' },
    view,
    { role: 'windowMenu' },
    help,
  ];
}
