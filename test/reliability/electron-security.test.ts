/**
 * The Electron security checklist (issue 9). src/main/main-process.test.ts (electron mocked)
 * and src/main/window-options.test.ts pin the wiring: sandbox, contextIsolation, no Node,
 * new windows denied, navigation and webviews blocked, permissions denied, the CSP header,
 * untrusted IPC senders refused. This file adds what they leave out:
 * - properties over random URLs and senders: navigation, redirects and IPC are allowed for
 *   the app's own page and nothing else (src/main/security.ts, window-options.ts,
 *   ipc/sender-check.ts, ipc/register-api-handlers.ts — driven with plain fakes);
 * - the CSP itself: the header and the page's meta tag agree and are strict, also in the
 *   built page; the dev server alone gets no header;
 * - the built sandboxed preload requires nothing but `electron` and exposes only window.api.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { App, Session, WebContents } from 'electron';
import { installSecurity } from '../../src/main/security';
import { isAllowedNavigation } from '../../src/main/window-options';
import { createSenderCheck } from '../../src/main/ipc/sender-check';
import { registerApiHandlers } from '../../src/main/ipc/register-api-handlers';
import { CONTENT_SECURITY_POLICY } from '../../src/core/web/security-headers';
import { OPERATION_NAMES, ipcChannel } from '../../src/shared/api/operation-names';
import { REPO_ROOT } from '../support/run-ts';

const APP_FILE = 'file:///opt/Context%20Workbench/resources/app.asar/out/renderer/index.html';
const DEV_URL = 'http://localhost:5173/';

/** URLs a page could try to reach: other origins, other files, schemes that run code. */
const foreignUrls = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'file:///opt/Context%20Workbench/resources/app.asar/out/renderer/other.html',
    'file:///opt/Context%20Workbench/resources/app.asar/out/renderer/index.html/../../../../etc/passwd',
    'http://localhost:5174/',
    'https://localhost:5173/',
    'http://localhost.evil.example:5173/',
    'http://127.0.0.1:5173/',
    'chrome://settings',
    'devtools://devtools/bundled/inspector.html',
    'about:blank',
    '',
    'not a url',
  ),
  fc.string({ maxLength: 60 }),
);

/** Same page, other fragments and queries: fine to navigate to. */
const ownUrls = (app: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('', '#/tasks', '#/tasks/550e8400-e29b-41d4-a716-446655440000', '?x=1'),
      fc.constant(app),
    )
    .map(([suffix, base]) => `${base}${suffix}`);

function sameDocument(target: string, app: string): boolean {
  try {
    const t = new URL(target);
    const a = new URL(app);
    return a.protocol === 'file:'
      ? t.protocol === 'file:' && t.host === a.host && t.pathname === a.pathname
      : t.origin === a.origin;
  } catch {
    return false;
  }
}

class FakeContents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.openHandler = handler;
  }
}

function installOnFakes(appUrl: string, devServer: boolean) {
  const app = new EventEmitter();
  let permissionRequest:
    ((c: unknown, p: string, cb: (granted: boolean) => void) => void) | undefined;
  let permissionCheck: (() => boolean) | undefined;
  let headersHook:
    | ((
        d: { responseHeaders?: Record<string, string[]> },
        cb: (r: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void)
    | undefined;
  const session = {
    setPermissionRequestHandler: (h: typeof permissionRequest) => (permissionRequest = h),
    setPermissionCheckHandler: (h: typeof permissionCheck) => (permissionCheck = h),
    webRequest: { onHeadersReceived: (h: typeof headersHook) => (headersHook = h) },
  };
  installSecurity({
    app: app as unknown as Pick<App, 'on'>,
    session: session as unknown as Pick<
      Session,
      'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'
    >,
    appUrl,
    devServer,
  });
  const contents = new FakeContents();
  app.emit('web-contents-created', {}, contents as unknown as WebContents);
  const blocked = (event: string, url: string): boolean => {
    const e = { url, preventDefault: vi.fn() };
    contents.emit(event, e);
    return e.preventDefault.mock.calls.length > 0;
  };
  return {
    contents,
    blocked,
    permissionRequest: () => permissionRequest,
    permissionCheck: () => permissionCheck,
    headersHook: () => headersHook,
  };
}

describe('navigation, redirects and new windows (src/main/security.ts)', () => {
  for (const [label, appUrl, dev] of [
    ['the packaged app (file:)', APP_FILE, false],
    ['the dev server (http:)', DEV_URL, true],
  ] as const) {
    it(`${label}: any foreign URL is blocked on will-navigate and will-redirect, the app's own page is not; window.open is always denied`, () => {
      const { contents, blocked } = installOnFakes(appUrl, dev);
      fc.assert(
        fc.property(fc.oneof(foreignUrls, ownUrls(appUrl)), (url) => {
          const own = sameDocument(url, appUrl);
          expect(isAllowedNavigation(url, appUrl), url).toBe(own);
          expect(blocked('will-navigate', url), url).toBe(!own);
          expect(blocked('will-redirect', url), url).toBe(!own);
          expect(contents.openHandler?.({ url })).toEqual({ action: 'deny' });
        }),
        { numRuns: 400 },
      );
      const webview = { preventDefault: vi.fn() };
      contents.emit('will-attach-webview', webview);
      expect(webview.preventDefault).toHaveBeenCalled();
    });
  }

  // `file://attacker/<same path>` — on Windows a page loaded over SMB from another
  // machine — must not count as the app's own page: neither navigation to it nor its IPC
  // calls (with the whole API behind window.api) are allowed.
  it('a file: URL with a host (a remote share) is not the app, even with the same path', () => {
    const remote = APP_FILE.replace('file:///', 'file://attacker.example/');
    expect(isAllowedNavigation(remote, APP_FILE)).toBe(false);
    const check = createSenderCheck(APP_FILE, () => [1]);
    expect(
      check({
        sender: { id: 1 },
        senderFrame: { parent: null, url: remote },
      } as unknown as Parameters<typeof check>[0]),
    ).toBe(false);
  });

  it('every permission is denied, whatever is asked', () => {
    const fakes = installOnFakes(APP_FILE, false);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'fullscreen',
      'hid',
      'serial',
      'usb',
    ]) {
      const granted = vi.fn();
      fakes.permissionRequest()?.({}, permission, granted);
      expect(granted).toHaveBeenCalledWith(false);
    }
    expect(fakes.permissionCheck()?.()).toBe(false);
  });
});

describe('the content security policy', () => {
  const directives = (policy: string): Map<string, string> =>
    new Map(
      policy
        .split(';')
        .map((d) => d.trim())
        .filter(Boolean)
        .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')]),
    );

  it('is strict: scripts only from the app, no eval, no plugins, no base or form targets, no framing', () => {
    const csp = directives(CONTENT_SECURITY_POLICY);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect(csp.get('form-action')).toBe("'none'");
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|https?:|ws:/);
  });

  it("the page's meta tag (source and built) says the same as the header, but frame-ancestors (a header-only directive)", () => {
    const header = directives(CONTENT_SECURITY_POLICY);
    header.delete('frame-ancestors');
    for (const file of [
      path.join(REPO_ROOT, 'src', 'renderer', 'index.html'),
      path.join(REPO_ROOT, 'out', 'renderer', 'index.html'),
    ]) {
      if (!fs.existsSync(file)) continue;
      const html = fs.readFileSync(file, 'utf8');
      const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
      expect(meta, file).not.toBeNull();
      expect(directives(meta![1]!), file).toEqual(header);
      // No inline script in the page (the policy would block it anyway).
      expect(html.replace(/<script[^>]*src="[^"]*"[^>]*><\/script>/g, ''), file).not.toMatch(
        /<script/i,
      );
    }
  });

  it('is set as a response header for the packaged app and left alone on the dev server (its hot reload needs inline scripts)', () => {
    const packaged = installOnFakes(APP_FILE, false).headersHook();
    let headers: Record<string, string[]> | undefined;
    packaged?.(
      { responseHeaders: { 'Content-Security-Policy': ['default-src *'], 'X-Other': ['1'] } },
      (r) => (headers = r.responseHeaders),
    );
    expect(headers?.['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    expect(headers?.['X-Other']).toEqual(['1']);
    expect(installOnFakes(DEV_URL, true).headersHook()).toBeUndefined();
  });
});

describe('IPC senders (src/main/ipc)', () => {
  const OWN = [7, 8];
  const frames = fc.record({
    id: fc.oneof(fc.constantFrom(...OWN), fc.integer({ min: 0, max: 20 })),
    frame: fc.option(
      fc.record({
        parent: fc.constantFrom(null, {}),
        url: fc.oneof(ownUrls(APP_FILE), foreignUrls),
      }),
      { nil: null },
    ),
  });

  it('only the main frame of an own window showing the app page is trusted', () => {
    const check = createSenderCheck(APP_FILE, () => OWN);
    fc.assert(
      fc.property(frames, ({ id, frame }) => {
        const trusted =
          frame !== null &&
          frame.parent === null &&
          OWN.includes(id) &&
          sameDocument(frame.url, APP_FILE);
        const event = { sender: { id }, senderFrame: frame } as unknown as Parameters<
          typeof check
        >[0];
        expect(check(event)).toBe(trusted);
      }),
      { numRuns: 500 },
    );
  });

  it('a refused sender gets the forbidden envelope on every channel and the API is never called', async () => {
    const handlers = new Map<string, (event: unknown, payload: unknown) => Promise<unknown>>();
    const invoke = vi.fn(async () => ({ ok: true as const, value: 'ran' }));
    const warn = vi.fn();
    const check = createSenderCheck(APP_FILE, () => OWN);
    const remove = registerApiHandlers({
      ipcMain: {
        handle: (channel: string, h: (event: unknown, payload: unknown) => Promise<unknown>) =>
          void handlers.set(channel, h),
        removeHandler: (channel: string) => void handlers.delete(channel),
      } as unknown as Parameters<typeof registerApiHandlers>[0]['ipcMain'],
      invoke,
      isTrustedSender: check,
      warn,
    });
    expect([...handlers.keys()].sort()).toEqual(OPERATION_NAMES.map(ipcChannel).sort());
    await fc.assert(
      fc.asyncProperty(
        frames,
        fc.constantFrom(...OPERATION_NAMES),
        fc.anything(),
        async ({ id, frame }, name, payload) => {
          const trusted =
            frame !== null &&
            frame.parent === null &&
            OWN.includes(id) &&
            sameDocument(frame.url, APP_FILE);
          invoke.mockClear();
          const answer = await handlers.get(ipcChannel(name))!(
            { sender: { id }, senderFrame: frame },
            payload,
          );
          if (trusted) {
            expect(invoke).toHaveBeenCalledWith(name, payload);
          } else {
            expect(invoke).not.toHaveBeenCalled();
            expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden' } });
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(warn).toHaveBeenCalled();
    remove();
    expect(handlers.size).toBe(0);
  });
});

describe('the built sandboxed preload', () => {
  const bundle = path.join(REPO_ROOT, 'out', 'preload', 'index.cjs');

  it.skipIf(!fs.existsSync(bundle))(
    'requires nothing but electron and exposes two objects: window.api and window.desktop (the two pickers)',
    () => {
      const code = fs.readFileSync(bundle, 'utf8');
      const required = [...code.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
      expect(new Set(required)).toEqual(new Set(['electron']));
      const exposed = [...code.matchAll(/exposeInMainWorld\(\s*["']([^"']+)["']/g)].map(
        (m) => m[1],
      );
      expect(exposed).toEqual(['api', 'desktop']);
      // ipcRenderer itself never crosses the bridge, only closures around it.
      expect(code).not.toMatch(
        /exposeInMainWorld\(\s*["'][^"']+["']\s*,\s*(electron\.)?ipcRenderer\s*\)/,
      );
    },
  );
});
