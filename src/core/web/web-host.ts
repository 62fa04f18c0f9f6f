import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiErrorCode, ApiResult } from '../../shared/api/api-result';
import { HTTP_API_PREFIX, HTTP_EVENTS_PATH } from '../../shared/api/operation-names';
import type { WorkbenchService } from '../api/workbench-service';
import { generateToken, tokenCookieName } from './access-token';
import { allowedHostHeaders } from './allowed-hosts';
import { readJsonBody, MAX_BODY_BYTES } from './json-body';
import { guardRequest } from './request-guard';
import { setSecurityHeaders } from './security-headers';
import { SseChannel } from './sse-channel';
import { lookupStatic } from './static-files';
import { createTransferRoutes } from './transfer-routes';

export interface WebHostOptions {
  service: WorkbenchService;
  /** The built renderer (`out/renderer`); null serves a page saying the UI is not built. */
  rendererRoot: string | null;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** Default: 32 random bytes. */
  token?: string;
  maxBodyBytes?: number;
  /** Largest upload for an import (default 512 MiB). */
  maxUploadBytes?: number;
}

export interface WebHost {
  /** The URL to open, token included: http://127.0.0.1:PORT/?token=... */
  url: string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const STATUS: Record<ApiErrorCode, number> = {
  usage: 400,
  bad_input: 400,
  not_found: 404,
  conflict: 409,
  io: 500,
  unauthorized: 401,
  forbidden: 403,
  transport: 502,
  internal: 500,
};

/**
 * `cwb serve`'s HTTP server (node:http only): the built UI, the workbench API as
 * `POST /api/<operation>` (JSON in, the result envelope out), and live events as SSE on
 * `GET /api/events`. Every request passes the guard first (Host, Origin, token); see
 * docs/desktop-and-web.md for the design.
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const bind = options.host ?? '127.0.0.1';
  const token = options.token ?? generateToken();
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const sse = new SseChannel();
  const unsubscribe = options.service.subscribe((event) => sse.send(event));
  let allowedHosts = new Set<string>();
  let port = 0;
  const transfer = createTransferRoutes({
    service: options.service,
    ...(options.maxUploadBytes !== undefined && { maxUploadBytes: options.maxUploadBytes }),
    send: (res, status, body) => sendJson(res, status, body),
  });

  const server = http.createServer((req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, failure('internal', `internal error: ${String(err)}`));
      else res.destroy();
    });
  });
  // Slow-loris bounds; an SSE stream is a response, so these do not cut it.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const isApi = url.pathname.startsWith(HTTP_API_PREFIX) || url.pathname === '/api';
    const isPage =
      !isApi && (req.method === 'GET' || req.method === 'HEAD') && isPagePath(url.pathname);
    const guard = guardRequest(req, {
      token,
      port,
      allowedHosts,
      queryToken: isPage ? url.searchParams.get('token') : null,
    });
    if (!guard.ok) {
      const code = guard.status === 401 ? 'unauthorized' : 'forbidden';
      if (isPage) sendPage(res, guard.status, refusedPage(guard.message));
      else sendJson(res, guard.status, failure(code, guard.message));
      return;
    }
    if (url.pathname === HTTP_EVENTS_PATH) {
      if (req.method !== 'GET') return sendMethodNotAllowed(res, 'GET');
      if (!sse.open(res, () => undefined)) {
        sendJson(res, 503, failure('io', 'too many event streams are open'));
      }
      return;
    }
    // Uploads and downloads: the browser's stand-in for paths on the host.
    if (isApi && (await transfer.handle(req, res, url))) return;
    if (isApi) return handleApi(req, res, url.pathname.slice(HTTP_API_PREFIX.length));
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendMethodNotAllowed(res, 'GET, HEAD');
    if (guard.via === 'query') {
      // The page load that carried the token: from now on the cookie carries it (session
      // only, never sent cross-site, unreadable by scripts).
      res.setHeader(
        'Set-Cookie',
        `${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`,
      );
    }
    serveStatic(req, res, url.pathname);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (req.method !== 'POST') return sendMethodNotAllowed(res, 'POST');
    const body = await readJsonBody(req, maxBody);
    if (!body.ok) {
      sendJson(res, body.status, failure('bad_input', body.message));
      return;
    }
    const result = await options.service.invoke(name, body.value);
    sendJson(res, result.ok ? 200 : STATUS[result.error.code], result);
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    if (!options.rendererRoot) {
      sendPage(res, 503, notBuiltPage());
      return;
    }
    let found = lookupStatic(options.rendererRoot, pathname);
    // Paths without an extension are the UI's own routes: they get the app's page.
    if (found.kind === 'missing' && !/\.[A-Za-z0-9]+$/.test(pathname)) {
      found = lookupStatic(options.rendererRoot, '/');
    }
    if (found.kind === 'bad-path') {
      sendText(res, 400, 'bad path');
      return;
    }
    if (found.kind === 'missing') {
      sendText(res, 404, 'not found');
      return;
    }
    const isHtml = found.contentType.startsWith('text/html');
    res.writeHead(200, {
      'Content-Type': found.contentType,
      'Content-Length': found.size,
      'Cache-Control': isHtml ? 'no-store' : 'private, max-age=3600',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(found.file).pipe(res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  allowedHosts = allowedHostHeaders(bind, port);
  const shownHost =
    bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  const origin = `http://${shownHost}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    close: async () => {
      unsubscribe();
      sse.close();
      transfer.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Pages (not assets, not the API): where a `?token=` is accepted. */
function isPagePath(pathname: string): boolean {
  return pathname === '/' || pathname === '/index.html' || !/\.[A-Za-z0-9]+$/.test(pathname);
}

function failure(code: ApiErrorCode, message: string): ApiResult<never> {
  return { ok: false, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(html);
}

function sendMethodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  sendJson(res, 405, failure('usage', `method not allowed (use ${allow})`));
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5">${body}</body></html>`;
}

function refusedPage(message: string): string {
  return page(
    'Context Workbench: access refused',
    `<h1>Access refused</h1><p>${escapeHtml(message)}.</p><p>Open the URL that <code>cwb serve</code> printed (it ends with <code>?token=…</code>).</p>`,
  );
}

function notBuiltPage(): string {
  return page(
    'Context Workbench: UI not built',
    '<h1>The UI is not built</h1><p>Run <code>npm run build</code>, then start <code>cwb serve</code> again. The API is available meanwhile.</p>',
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
