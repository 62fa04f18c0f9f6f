import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium';
import { ensureRendererBuilt } from './renderer-build';

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
