import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

/**
 * Security settings of every app window, kept pure (type-only electron import) so a plain
 * unit test can pin them down.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** The main window; `bounds` is the remembered size and place (see window-state.ts). */
export function mainWindowOptions(
  preloadPath: string,
  bounds: { x?: number; y?: number; width: number; height: number } = { width: 1280, height: 820 },
): BrowserWindowConstructorOptions {
  return {
    ...bounds,
    minWidth: 720,
    minHeight: 480,
    title: 'Context Workbench',
    show: false,
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(preloadPath),
  };
}

/**
 * Whether a top-level navigation away from the loaded page is allowed: only within the
 * app's own origin (dev server), or to the app's own file when loaded from disk
 * (file: URLs all share the opaque origin "null", so compare the path instead, and the
 * host: `file://server/<same path>` is a remote share on Windows, not the app).
 */
export function isAllowedNavigation(targetUrl: string, appUrl: string): boolean {
  let target: URL;
  let app: URL;
  try {
    target = new URL(targetUrl);
    app = new URL(appUrl);
  } catch {
    return false;
  }
  if (app.protocol === 'file:') {
    return (
      target.protocol === 'file:' && target.host === app.host && target.pathname === app.pathname
    );
  }
  return target.origin === app.origin;
}
