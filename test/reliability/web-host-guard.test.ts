/**
 * Web host (issue 9): no token, a wrong token, a wrong Host or Origin, a cross-site form
 * post — all refused. src/core/web/web-host.test.ts pins each case with its status; this
 * file adds (1) a property over random combinations of Host, Origin, Sec-Fetch-Site,
 * credentials and content type sent over real HTTP: a request reaches the API if and only
 * if every one of them is right, and a refused one never reaches a handler; (2) the same
 * refusals from a real `cwb serve` process, as a browser on another site would meet them.
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWorkbenchService,
  type WorkbenchService,
} from '../../src/core/api/workbench-service';
import { startWebHost, type WebHost } from '../../src/core/web/web-host';
import { ContextStore } from '../../src/core/store/context-store';
import { startServe } from '../support/serve-process';
import { useTempDir } from '../support/temp-dir';
import { rawRequest, type RawReply } from '../support/raw-http';
import fs from 'node:fs';
import os from 'node:os';

const tempDir = useTempDir('cwb-web-guard-');

/** A raw request with exactly the given headers (Host among them); no body: an empty one. */
const send = (
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<RawReply> => rawRequest(port, { ...options, body: options.body ?? '' });

interface Attempt {
  host: { value: string; ok: boolean };
  origin: { value: string | undefined; ok: boolean };
  site: { value: string | undefined; ok: boolean };
  credential: { headers: Record<string, string>; query: string; ok: boolean };
  type: { value: string | undefined; ok: boolean };
}

describe('the web host refuses every request that is not exactly right', () => {
  let base: string;
  let service: WorkbenchService;
  let host: WebHost;
  let invoked = 0;

  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-web-guard-'));
    const real = createWorkbenchService({
      contextsRoot: path.join(base, 'contexts'),
      configFile: null,
      fork: () => {
        throw new Error('no task process here');
      },
      host: { kind: 'serve', version: 'test', versions: {} },
      exportDir: base,
      env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg') },
    });
    // Counts what reaches the API: a refused request must never get here.
    service = {
      ...real,
      invoke: (name, raw) => {
        invoked++;
        return real.invoke(name, raw);
      },
      close: (grace) => real.close(grace),
    };
    host = await startWebHost({ service, rendererRoot: null, port: 0 });
  });

  afterAll(async () => {
    await host?.close();
    await service?.close(100);
    fs.rmSync(base, { recursive: true, force: true });
  });

  function attempts(): fc.Arbitrary<Attempt> {
    const p = host.port;
    const token = host.token;
    return fc.record({
      host: fc.oneof(
        fc
          .constantFrom(`127.0.0.1:${p}`, `localhost:${p}`, `LOCALHOST:${p}`, `[::1]:${p}`)
          .map((value) => ({ value, ok: true })),
        fc
          .constantFrom(
            `evil.example:${p}`,
            `127.0.0.1:${p + 1}`,
            `127.0.0.2:${p}`,
            '127.0.0.1',
            `localhost.evil.example:${p}`,
            `127.0.0.1:${p}.evil.example`,
            `0.0.0.0:${p}`,
          )
          .map((value) => ({ value, ok: false })),
      ),
      origin: fc.oneof(
        fc
          .constantFrom(undefined, `http://127.0.0.1:${p}`, `http://localhost:${p}`)
          .map((value) => ({ value, ok: true })),
        fc
          .constantFrom(
            'null',
            'https://evil.example',
            `http://127.0.0.1:${p + 1}`,
            `https://127.0.0.1:${p}`,
            `http://evil.example:${p}`,
            `http://127.0.0.1:${p}/x`,
            'file://',
            '',
          )
          .map((value) => ({ value, ok: false })),
      ),
      site: fc.oneof(
        fc.constantFrom(undefined, 'same-origin', 'none').map((value) => ({ value, ok: true })),
        fc
          .constantFrom('same-site', 'cross-site', 'CROSS-SITE', '')
          .map((value) => ({ value, ok: false })),
      ),
      credential: fc.oneof(
        fc.constant({ headers: { Authorization: `Bearer ${token}` }, query: '', ok: true }),
        fc.constant({ headers: { Cookie: `cwb_token_${p}=${token}` }, query: '', ok: true }),
        fc.constant({ headers: {}, query: '', ok: false }),
        fc.constant({ headers: {}, query: `?token=${token}`, ok: false }),
        fc.constant({ headers: { Authorization: `Basic ${token}` }, query: '', ok: false }),
        fc.constant({
          headers: { Authorization: `Bearer ${token.slice(0, -1)}` },
          query: '',
          ok: false,
        }),
        fc.constant({ headers: { Cookie: `cwb_token_${p + 1}=${token}` }, query: '', ok: false }),
        fc.string({ maxLength: 50 }).map((t) => ({
          headers: { Authorization: `Bearer ${t.replace(/[^\x21-\x7e]/g, 'x')}` },
          query: '',
          ok: false,
        })),
      ),
      type: fc.oneof(
        fc
          .constantFrom('application/json', 'application/json; charset=utf-8')
          .map((value) => ({ value, ok: true })),
        // What an HTML form on another site can send without a preflight, and nothing at all.
        fc
          .constantFrom(
            'application/x-www-form-urlencoded',
            'text/plain',
            'multipart/form-data; boundary=x',
            undefined,
          )
          .map((value) => ({ value, ok: false })),
      ),
    });
  }

  it('random Host, Origin, Sec-Fetch-Site, credentials and content types: 200 only when all are right; never a handler otherwise', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(attempts(), async (a) => {
        const headers: Record<string, string> = { Host: a.host.value, ...a.credential.headers };
        if (a.origin.value !== undefined) headers.Origin = a.origin.value;
        if (a.site.value !== undefined) headers['Sec-Fetch-Site'] = a.site.value;
        if (a.type.value !== undefined) headers['Content-Type'] = a.type.value;
        const before = invoked;
        const res = await send(host.port, {
          method: 'POST',
          path: `/api/queryTasks${a.credential.query}`,
          headers,
          body: '{}',
        });
        const allRight = a.host.ok && a.origin.ok && a.site.ok && a.credential.ok && a.type.ok;
        expect(res.status === 200, `${JSON.stringify(a)} → ${res.status} ${res.body}`).toBe(
          allRight,
        );
        if (allRight) accepted++;
        else {
          expect([401, 403, 415]).toContain(res.status);
          expect(invoked).toBe(before);
          expect(res.body).not.toContain('"rows"');
        }
      }),
      { numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(0);
  }, 60_000);

  it('a cross-site form post to every operation is refused before it reaches the API', async () => {
    const before = invoked;
    for (const name of [
      'startTask',
      'updateSettings',
      'exportTasks',
      'importFiles',
      'stopTask',
      'runCompaction',
    ]) {
      for (const type of [
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await send(host.port, {
          method: 'POST',
          path: `/api/${name}`,
          headers: {
            Host: `127.0.0.1:${host.port}`,
            Cookie: `cwb_token_${host.port}=${host.token}`,
            Origin: 'https://evil.example',
            'Sec-Fetch-Site': 'cross-site',
            'Content-Type': type,
          },
          body: 'prompt=rm+-rf&workdir=%2F',
        });
        expect(res.status, `${name} ${type}`).toBe(403);
      }
    }
    expect(invoked).toBe(before);
  });
});

describe('a real `cwb serve` process', () => {
  it('refuses no token, a wrong token, a wrong Host, a foreign Origin and a cross-site form post; serves the right request', async () => {
    const root = path.join(tempDir(), 'contexts');
    ContextStore.open(root).close();
    const serve = await startServe(['--contexts', root]);
    try {
      const p = serve.port;
      const ok = { Host: `127.0.0.1:${p}`, 'Content-Type': 'application/json' };
      const post = (headers: Record<string, string>, body = '{}') =>
        send(p, { method: 'POST', path: '/api/queryTasks', headers, body });
      expect((await post(ok)).status).toBe(401);
      expect((await post({ ...ok, Authorization: 'Bearer wrong' })).status).toBe(403);
      expect(
        (
          await post({
            ...ok,
            Authorization: `Bearer ${serve.token}`,
            Host: `attacker.example:${p}`,
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await post({
            ...ok,
            Authorization: `Bearer ${serve.token}`,
            Origin: 'https://attacker.example',
          })
        ).status,
      ).toBe(403);
      const form = await post(
        {
          Host: `127.0.0.1:${p}`,
          Cookie: `cwb_token_${p}=${serve.token}`,
          Origin: 'https://attacker.example',
          'Sec-Fetch-Site': 'cross-site',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        'limit=1',
      );
      expect(form.status).toBe(403);
      expect(
        (await send(p, { method: 'GET', path: '/', headers: { Host: `127.0.0.1:${p}` } })).status,
      ).toBe(401);
      const good = await post({ ...ok, Authorization: `Bearer ${serve.token}` });
      expect(good.status).toBe(200);
      expect(JSON.parse(good.body)).toMatchObject({ ok: true, value: { total: 0 } });
    } finally {
      await serve.stop();
    }
  }, 90_000);
});
