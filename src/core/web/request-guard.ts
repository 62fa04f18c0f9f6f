import type { IncomingMessage } from 'node:http';
import { parseCookies, tokenCookieName, tokensEqual } from './access-token';

export type GuardResult =
  | { ok: true; via: 'header' | 'cookie' | 'query' }
  | { ok: false; status: 401 | 403; message: string };

export interface GuardOptions {
  token: string;
  port: number;
  allowedHosts: ReadonlySet<string>;
  /** The URL's `?token=` counts only on page loads (then the cookie takes over). */
  queryToken: string | null;
}

/**
 * Every request passes here before anything else:
 * 1. Host must be one this server answers to (DNS rebinding);
 * 2. Origin, when sent, must be this server's origin, and a browser's Sec-Fetch-Site must
 *    not say the request comes from another site (cross-site requests, CSRF);
 * 3. the token, from `Authorization: Bearer`, the cookie, or (page loads) the query,
 *    compared in constant time.
 */
export function guardRequest(req: IncomingMessage, options: GuardOptions): GuardResult {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!options.allowedHosts.has(host)) {
    return { ok: false, status: 403, message: `Host ${JSON.stringify(host)} is not served here` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !options.allowedHosts.has(originHost(origin))) {
    return { ok: false, status: 403, message: 'cross-origin requests are refused' };
  }
  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return { ok: false, status: 403, message: 'cross-site requests are refused' };
  }
  const presented = presentedToken(req, options);
  if (!presented) return { ok: false, status: 401, message: 'an access token is required' };
  if (!tokensEqual(presented.token, options.token)) {
    return { ok: false, status: 403, message: 'the access token is not valid' };
  }
  return { ok: true, via: presented.via };
}

/** `http://127.0.0.1:4780` → `127.0.0.1:4780`; anything else (including "null") matches nothing. */
function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.pathname === '/' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

function presentedToken(
  req: IncomingMessage,
  options: GuardOptions,
): { token: string; via: 'header' | 'cookie' | 'query' } | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return { token: auth.slice(7).trim(), via: 'header' };
  const cookie = parseCookies(req.headers.cookie).get(tokenCookieName(options.port));
  if (cookie) return { token: cookie, via: 'cookie' };
  if (options.queryToken) return { token: options.queryToken, via: 'query' };
  return undefined;
}
