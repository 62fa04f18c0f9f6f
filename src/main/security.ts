import type { App, Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../core/web/security-headers';
import { isAllowedNavigation } from './window-options';

/**
 * The app's web security, in one place (Electron's security checklist):
 * - no new windows, no navigation away from the app's page, no <webview>;
 * - every permission request and check denied (the UI needs none);
 * - the strict CSP also as a response header (the page's meta tag covers file: loads);
 *   skipped for the dev server, whose hot reload needs inline scripts.
 */
export function installSecurity(options: {
  app: Pick<App, 'on'>;
  session: Pick<
    Session,
    'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'
  >;
  appUrl: string;
  devServer: boolean;
}): void {
  options.app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => {
      if (!isAllowedNavigation(event.url, options.appUrl)) event.preventDefault();
    });
    contents.on('will-redirect', (event) => {
      if (!isAllowedNavigation(event.url, options.appUrl)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  options.session.setPermissionRequestHandler((_contents, _permission, callback) =>
    callback(false),
  );
  options.session.setPermissionCheckHandler(() => false);
  if (!options.devServer) {
    options.session.webRequest.onHeadersReceived((details, callback) => {
      callback({
        responseHeaders: {
          ...details.responseHeaders,
          'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
        },
      });
    });
  }
}
