import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_BROWSER_HELP, browserCandidates, findBrowser } from './chromium';
import { useTempDir } from './temp-dir';

const tempDir = useTempDir();

describe('the browser for UI tests', () => {
  it('looks where each OS installs Chromium, Chrome and Edge', () => {
    const linux = browserCandidates('linux', {});
    expect(linux[0]).toBe('/usr/bin/chromium');
    expect(linux).toContain('/usr/bin/google-chrome');
    expect(linux).toContain('/usr/bin/microsoft-edge');
    const mac = browserCandidates('darwin', { HOME: '/Users/u' });
    expect(mac).toContain('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(mac).toContain('/Users/u/Applications/Chromium.app/Contents/MacOS/Chromium');
    const win = browserCandidates('win32', { PROGRAMFILES: 'C:\\Program Files' });
    expect(win).toContain('C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe');
  });

  it('takes $CHROMIUM_PATH first, and says what to do when it is wrong', () => {
    const fake = path.join(tempDir(), 'my-chrome');
    fs.writeFileSync(fake, '');
    expect(findBrowser({ CHROMIUM_PATH: fake })).toBe(fake);
    expect(() => findBrowser({ CHROMIUM_PATH: path.join(tempDir(), 'nope') })).toThrow(
      /CHROMIUM_PATH=.*nope does not exist\. No Chromium/,
    );
    expect(NO_BROWSER_HELP).toMatch(/apt-get install chromium.*CHROMIUM_PATH/);
  });
});
