import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

/**
 * A stand-in for the `electron` module (the binary cannot be installed on the project's
 * machines): just enough of app, BrowserWindow, ipcMain, session, Menu, utilityProcess,
 * screen, dialog and shell for the main process glue, recording what it is asked to do.
 * Tests mock `electron` with `electron` below and inspect `fake`.
 */

type Handler = (event: unknown, payload: unknown) => Promise<unknown>;

export class FakeWebContents extends EventEmitter {
  sent: [string, unknown][] = [];
  openHandler: (() => { action: string }) | undefined;
  constructor(readonly id: number) {
    super();
  }
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  setWindowOpenHandler(handler: () => { action: string }): void {
    this.openHandler = handler;
  }
}

let nextContentsId = 1;

export class FakeBrowserWindow extends EventEmitter {
  static all: FakeBrowserWindow[] = [];
  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.all.filter((w) => !w.destroyed);
  }
  static fromWebContents(contents: unknown): FakeBrowserWindow | null {
    return FakeBrowserWindow.all.find((w) => w.webContents === contents) ?? null;
  }
  readonly webContents = new FakeWebContents(nextContentsId++);
  loaded: string | undefined;
  destroyed = false;
  shown = false;
  constructor(readonly options: { width: number; height: number; x?: number; y?: number }) {
    super();
    FakeBrowserWindow.all.push(this);
    fake.app.emit('web-contents-created', {}, this.webContents);
  }
  loadFile(file: string): Promise<void> {
    this.loaded = file;
    return Promise.resolve();
  }
  loadURL(url: string): Promise<void> {
    this.loaded = url;
    return Promise.resolve();
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMinimized(): boolean {
    return false;
  }
  isMaximized(): boolean {
    return false;
  }
  getNormalBounds() {
    return {
      x: this.options.x ?? 10,
      y: this.options.y ?? 10,
      width: this.options.width,
      height: this.options.height,
    };
  }
  restore(): void {}
  focus(): void {}
  maximize(): void {}
  show(): void {
    this.shown = true;
  }
}

class FakeApp extends EventEmitter {
  lock = true;
  quitCalls = 0;
  isPackaged = true;
  paths: Record<string, string> = {};
  requestSingleInstanceLock(): boolean {
    return this.lock;
  }
  quit(): void {
    this.quitCalls++;
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
  getPath(name: string): string {
    return this.paths[name] ?? `/tmp/fake-${name}`;
  }
  getVersion(): string {
    return '0.1.0';
  }
  showAboutPanel(): void {}
}

function createFake() {
  return {
    app: new FakeApp(),
    handlers: new Map<string, Handler>(),
    permissionRequest: undefined as
      | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void)
      | undefined,
    permissionCheck: undefined as (() => boolean) | undefined,
    headersHook: undefined as
      | ((
          details: { responseHeaders?: Record<string, string[]> },
          cb: (r: unknown) => void,
        ) => void)
      | undefined,
    menuTemplate: undefined as { label?: string; role?: string }[] | undefined,
    fork: vi.fn(),
    errorBox: vi.fn(),
    /** What the next open dialog answers; the calls are recorded in openDialog.mock.calls. */
    openDialogResult: { canceled: true, filePaths: [] as string[] },
    openDialog: vi.fn(),
  };
}

export const fake = createFake();

export function resetFake(): void {
  Object.assign(fake, createFake());
  FakeBrowserWindow.all = [];
}

export const electron = {
  get app() {
    return fake.app;
  },
  BrowserWindow: FakeBrowserWindow,
  ipcMain: {
    handle: (channel: string, handler: Handler) => fake.handlers.set(channel, handler),
    removeHandler: (channel: string) => fake.handlers.delete(channel),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (h: typeof fake.permissionRequest) =>
        (fake.permissionRequest = h),
      setPermissionCheckHandler: (h: typeof fake.permissionCheck) => (fake.permissionCheck = h),
      webRequest: { onHeadersReceived: (h: typeof fake.headersHook) => (fake.headersHook = h) },
    },
  },
  Menu: {
    buildFromTemplate: (template: { label?: string; role?: string }[]) => ({ template }),
    setApplicationMenu: (menu: { template: { label?: string; role?: string }[] }) =>
      (fake.menuTemplate = menu.template),
  },
  utilityProcess: { fork: (...args: unknown[]) => fake.fork(...args) },
  screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
  dialog: {
    showErrorBox: (...args: unknown[]) => fake.errorBox(...args),
    showOpenDialog: async (...args: unknown[]) => {
      fake.openDialog(...args);
      return fake.openDialogResult;
    },
  },
  shell: { openPath: vi.fn(async () => '') },
};

export const electronLog = {
  transports: {
    file: { level: 'info', getFile: () => ({ path: '/tmp/fake.log' }) },
    console: { level: 'warn' },
  },
  hooks: [] as unknown[],
  errorHandler: { startCatching: vi.fn() },
  info: vi.fn(),
  warn: vi.fn(),
  error: vi.fn(),
};
