import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfigPath } from './config-path';

describe('defaultConfigPath', () => {
  const home = '/home/ana';

  it('prefers $CWB_CONFIG, resolved against the working folder', () => {
    expect(defaultConfigPath({ CWB_CONFIG: '/etc/cwb.yaml' }, { platform: 'linux', home })).toBe(
      path.resolve('/etc/cwb.yaml'),
    );
    expect(
      defaultConfigPath({ CWB_CONFIG: 'my.yaml' }, { platform: 'linux', home, cwd: '/work' }),
    ).toBe(path.resolve('/work', 'my.yaml'));
  });

  it('uses XDG_CONFIG_HOME, then ~/.config, on Linux', () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: '/xdg' }, { platform: 'linux', home })).toBe(
      '/xdg/context-workbench/config.yaml',
    );
    expect(defaultConfigPath({}, { platform: 'linux', home })).toBe(
      '/home/ana/.config/context-workbench/config.yaml',
    );
    expect(defaultConfigPath({ XDG_CONFIG_HOME: 'relative' }, { platform: 'linux', home })).toBe(
      '/home/ana/.config/context-workbench/config.yaml',
    );
  });

  it('uses Application Support on macOS', () => {
    expect(
      defaultConfigPath({ XDG_CONFIG_HOME: '/xdg' }, { platform: 'darwin', home: '/Users/ana' }),
    ).toBe('/Users/ana/Library/Application Support/Context Workbench/config.yaml');
  });

  it('uses %APPDATA% on Windows', () => {
    expect(
      defaultConfigPath(
        { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' },
        { platform: 'win32', home: 'C:\\Users\\ana' },
      ),
    ).toBe('C:\\Users\\ana\\AppData\\Roaming\\Context Workbench\\config.yaml');
    expect(defaultConfigPath({}, { platform: 'win32', home: 'C:\\Users\\ana' })).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\Context Workbench\\config.yaml',
    );
  });
});
