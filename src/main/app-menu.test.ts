import { describe, expect, it, vi } from 'vitest';
import { appMenuTemplate } from './app-menu';

const actions = { openContextsFolder: vi.fn(), openLogFile: vi.fn(), showAbout: vi.fn() };

describe('the application menu', () => {
  it('has File, Edit, View, Window and Help; the app menu only on macOS', () => {
    const linux = appMenuTemplate({ platform: 'linux', appName: 'CW', devTools: false, actions });
    expect(linux.map((m) => m.label ?? m.role)).toEqual([
      'File',
      'editMenu',
      'View',
      'windowMenu',
      'help',
    ]);
    const mac = appMenuTemplate({ platform: 'darwin', appName: 'CW', devTools: false, actions });
    expect(mac[0]).toMatchObject({ label: 'CW', role: 'appMenu' });
  });

  it('offers developer tools only in development builds', () => {
    const roles = (devTools: boolean) =>
      JSON.stringify(appMenuTemplate({ platform: 'linux', appName: 'CW', devTools, actions }));
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(true)).toContain('toggleDevTools');
  });

  it('wires its own items to the actions', () => {
    const [file] = appMenuTemplate({ platform: 'linux', appName: 'CW', devTools: false, actions });
    const items = file!.submenu as { label?: string; click?: () => void }[];
    items.find((i) => i.label === 'Open Contexts Folder')!.click!();
    expect(actions.openContextsFolder).toHaveBeenCalled();
  });
});
