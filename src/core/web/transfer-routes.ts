import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ApiResult } from '../../shared/api/api-result';
import type { ExportResultInfo } from '../../shared/api/transfer-api';
import type { WorkbenchService } from '../api/workbench-service';
import { readJsonBody } from './json-body';

/** Upload limit: transcripts and archives are big, but not unbounded. */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
const DOWNLOAD_TTL_MS = 10 * 60_000;

export interface DownloadInfo {
  id: string;
  name: string;
  bytes: number;
}

type Send = (res: ServerResponse, status: number, body: ApiResult<unknown>) => void;

/**
 * The browser cannot hand the host a path: an import is uploaded into the contexts root's
 * `.staging/` and imported from there; an export is written there and fetched once by id.
 * Both run after the same guard as the API (the caller checked it).
 */
export function createTransferRoutes(options: {
  service: WorkbenchService;
  maxUploadBytes?: number;
  send: Send;
}) {
  const staging = path.join(options.service.root, '.staging');
  const maxBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const downloads = new Map<string, { file: string; dir: string; name: string; expires: number }>();
  const fail = (
    res: ServerResponse,
    status: number,
    code: 'bad_input' | 'usage' | 'not_found',
    message: string,
  ): void => options.send(res, status, { ok: false, error: { code, message } });
  const tempDir = async (kind: string): Promise<string> => {
    await fs.promises.mkdir(staging, { recursive: true });
    return fs.promises.mkdtemp(path.join(staging, `${kind}-`));
  };

  async function upload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return fail(res, 405, 'usage', 'method not allowed (use POST)');
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    // Not a type an HTML form can send: a cross-site form cannot reach this either.
    if (type !== 'application/octet-stream') {
      req.resume();
      return fail(res, 415, 'bad_input', 'the upload must be application/octet-stream');
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      req.resume();
      return fail(res, 413, 'bad_input', `the upload is larger than ${maxBytes} bytes`);
    }
    const name = safeName(url.searchParams.get('name') ?? 'upload');
    const dir = await tempDir('upload');
    let status: number;
    let answer: ApiResult<unknown>;
    try {
      const file = path.join(dir, name);
      let size = 0;
      let tooBig = false;
      const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
      await pipeline(
        req,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            size += chunk.length;
            if (size > maxBytes) {
              tooBig = true;
              continue; // drained, not kept: the client gets the answer instead of a reset
            }
            yield chunk;
          }
        },
        out,
      );
      const format = url.searchParams.get('format');
      answer = tooBig
        ? {
            ok: false,
            error: { code: 'bad_input', message: `the upload is larger than ${maxBytes} bytes` },
          }
        : await options.service.invoke('importFiles', {
            paths: [file],
            ...(format && { format }),
          });
      status = tooBig ? 413 : answer.ok ? 200 : 400;
    } finally {
      // Staged files are gone before the answer: the import has copied what it keeps.
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
    options.send(res, status, answer);
  }

  async function prepareDownload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return fail(res, 405, 'usage', 'method not allowed (use POST)');
    const body = await readJsonBody(req);
    if (!body.ok) return fail(res, body.status, 'bad_input', body.message);
    if (!body.value || typeof body.value !== 'object' || 'output' in body.value) {
      return fail(res, 400, 'bad_input', 'expected the exportTasks input without output');
    }
    // `name`: the file name the user chose for a one-task export (the browser keeps the
    // server's name over the link's download attribute, so the server has to use it).
    const { name: wanted, ...input } = body.value as { name?: unknown; uuids?: unknown };
    const dir = await tempDir('export');
    const one = Array.isArray(input.uuids) && input.uuids.length === 1;
    const output =
      one && typeof wanted === 'string' && wanted.trim() !== ''
        ? path.join(dir, safeName(wanted.trim()))
        : dir;
    const result = await options.service.invoke('exportTasks', { ...input, output });
    if (!result.ok) {
      await fs.promises.rm(dir, { recursive: true, force: true });
      options.send(res, 400, result);
      return;
    }
    sweep();
    const exported = result.value as ExportResultInfo;
    const files: DownloadInfo[] = exported.files.map((f) => {
      const id = crypto.randomBytes(24).toString('base64url');
      const name = path.basename(f.path);
      downloads.set(id, { file: f.path, dir, name, expires: Date.now() + DOWNLOAD_TTL_MS });
      return { id, name, bytes: f.bytes };
    });
    options.send(res, 200, { ok: true, value: { files, redactions: exported.redactions } });
  }

  async function download(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    if (req.method !== 'GET') return fail(res, 405, 'usage', 'method not allowed (use GET)');
    const entry = downloads.get(id);
    // One-time: the id is spent on first use, whatever happens next.
    downloads.delete(id);
    if (!entry || entry.expires < Date.now())
      return fail(res, 404, 'not_found', 'no such download (ids work once)');
    const stat = await fs.promises.stat(entry.file);
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': stat.size,
      'Content-Disposition': `attachment; filename="${entry.name.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(entry.name)}`,
      'Cache-Control': 'no-store',
    });
    try {
      await pipeline(fs.createReadStream(entry.file), res);
    } finally {
      await fs.promises.rm(entry.file, { force: true });
      if (![...downloads.values()].some((d) => d.dir === entry.dir)) {
        await fs.promises.rm(entry.dir, { recursive: true, force: true });
      }
    }
  }

  function sweep(): void {
    const now = Date.now();
    for (const [id, d] of downloads) {
      if (d.expires >= now) continue;
      downloads.delete(id);
      fs.rmSync(d.dir, { recursive: true, force: true });
    }
  }

  return {
    /** True when the path is one of these routes (and it was answered). */
    async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      if (url.pathname === '/api/upload') await upload(req, res, url);
      else if (url.pathname === '/api/download') await prepareDownload(req, res);
      else if (url.pathname.startsWith('/api/download/'))
        await download(req, res, url.pathname.slice('/api/download/'.length));
      else return false;
      return true;
    },
    close(): void {
      for (const d of downloads.values()) fs.rmSync(d.dir, { recursive: true, force: true });
      downloads.clear();
    },
  };
}

/** A file name for the staging folder: the last path part, no control or separator characters. */
function safeName(name: string): string {
  const base = path.basename(name.replace(/\\/g, '/')).replace(/[/]/g, '_');
  // Control characters (NUL included) would be trouble in a file name and in logs.
  const clean = [...base].map((c) => (c.charCodeAt(0) < 32 ? '_' : c)).join('');
  return clean === '' || clean === '.' || clean === '..' ? 'upload' : clean.slice(0, 200);
}
