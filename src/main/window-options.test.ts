import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, mainWindowOptions, secureWebPreferences } from './window-options';

describe('window security options', () => {
  it('isolates and sandboxes the renderer', () => {
    const prefs = secureWebPreferences('/app/out/preload/index.cjs');
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('uses the secure preferences for the main window', () => {
    const options = mainWindowOptions('/p.cjs');
    expect(options.webPreferences).toEqual(secureWebPreferences('/p.cjs'));
    expect(options.show).toBe(false);
  });
});

describe('isAllowedNavigation', () => {
  it('allows the same origin on the dev server', () => {
    expect(isAllowedNavigation('http://localhost:5173/x#y', 'http://localhost:5173/')).toBe(true);
  });

  it('denies other origins', () => {
    expect(isAllowedNavigation('https://example.com/', 'http://localhost:5173/')).toBe(false);
    expect(isAllowedNavigation('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
  });

  it('allows only the app file itself when loaded from disk', () => {
    const app = 'file:///opt/cwb/out/renderer/index.html';
    expect(isAllowedNavigation('file:///opt/cwb/out/renderer/index.html#/tasks', app)).toBe(true);
    expect(isAllowedNavigation('file:///etc/passwd', app)).toBe(false);
    expect(isAllowedNavigation('https://example.com/', app)).toBe(false);
  });

  it('denies unparsable URLs', () => {
    expect(isAllowedNavigation('not a url', 'http://localhost:5173/')).toBe(false);
  });
});
