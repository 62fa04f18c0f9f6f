import fs from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export type StaticLookup =
  | { kind: 'file'; file: string; contentType: string; size: number }
  | { kind: 'bad-path' }
  | { kind: 'missing' };

/**
 * Maps a URL path to a file under `root`, or refuses it. The path is decoded once, then any
 * NUL, backslash, `.` or `..` segment is refused outright (so `%2e%2e%2f` cannot climb);
 * the real path (symlinks resolved) must still be inside the real root.
 */
export function lookupStatic(root: string, urlPath: string): StaticLookup {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { kind: 'bad-path' };
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) {
    return { kind: 'bad-path' };
  }
  const segments = decoded.split('/').slice(1);
  if (segments.some((s) => s === '..' || s === '.')) return { kind: 'bad-path' };
  const relative = decoded === '/' ? 'index.html' : segments.join('/');
  let realRoot: string;
  let real: string;
  try {
    realRoot = fs.realpathSync(root);
    real = fs.realpathSync(path.join(realRoot, relative));
  } catch {
    return { kind: 'missing' };
  }
  if (!real.startsWith(realRoot + path.sep)) return { kind: 'missing' };
  const stat = fs.statSync(real, { throwIfNoEntry: false });
  if (!stat?.isFile()) return { kind: 'missing' };
  const contentType = CONTENT_TYPES[path.extname(real).toLowerCase()] ?? 'application/octet-stream';
  return { kind: 'file', file: real, contentType, size: stat.size };
}
