import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureRendererBuilt } from './renderer-build';

/** Debian's Chromium (playwright-core downloads no browser). */
export const CHROMIUM = '/usr/bin/chromium';

export function hasChromium(): boolean {
  return fs.existsSync(CHROMIUM);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
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

/**
 * One Chromium for a test file, started after the renderer is built and closed after the
 * file's tests; call at the top of the file and ask the getter inside a test.
 */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureRendererBuilt();
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('Chromium has not started (useChromium before the tests)');
    return browser;
  };
}
