import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser that UI tests and the bench drive. playwright-core downloads no browser, and
 * neither do we: `$CHROMIUM_PATH` if set, else the first Chromium, Google Chrome or
 * Microsoft Edge found where its OS installs it.
 */
export function browserCandidates(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (platform === 'darwin') {
    const apps = [
      'Chromium.app/Contents/MacOS/Chromium',
      'Google Chrome.app/Contents/MacOS/Google Chrome',
      'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    ];
    const roots = ['/Applications', path.join(env.HOME ?? '~', 'Applications')];
    return roots.flatMap((root) => apps.map((app) => path.join(root, app)));
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)']].filter(
      (r): r is string => Boolean(r),
    );
    const apps = [
      'Chromium\\Application\\chrome.exe',
      'Google\\Chrome\\Application\\chrome.exe',
      'Microsoft\\Edge\\Application\\msedge.exe',
    ];
    return roots.flatMap((root) => apps.map((app) => path.win32.join(root, app)));
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/snap/bin/chromium',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/opt/google/chrome/chrome',
    '/usr/bin/microsoft-edge',
    '/usr/bin/microsoft-edge-stable',
  ];
}

/** What to do when no browser is found: one line, what to install and how to point at it. */
export const NO_BROWSER_HELP =
  'No Chromium, Google Chrome or Microsoft Edge found for the UI tests. Install one ' +
  '(Debian/Ubuntu: `apt-get install chromium`; macOS: install Google Chrome or ' +
  '`brew install --cask chromium`) or set CHROMIUM_PATH to its executable.';

/** The browser executable, or an error with NO_BROWSER_HELP (never a silent skip). */
export function findBrowser(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CHROMIUM_PATH;
  if (explicit) {
    if (!fs.existsSync(explicit)) {
      throw new Error(`CHROMIUM_PATH=${explicit} does not exist. ${NO_BROWSER_HELP}`);
    }
    return explicit;
  }
  const found = browserCandidates(process.platform, env).find((p) => fs.existsSync(p));
  if (!found) throw new Error(NO_BROWSER_HELP);
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findBrowser(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
