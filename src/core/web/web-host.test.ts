import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { seedTasks } from '../api/test-support/seed-tasks';
import { createWorkbenchService, type WorkbenchService } from '../api/workbench-service';
import type { ForkWorker } from '../supervisor/worker-handle';
import { readEvents, rawRequest } from './test-support/raw-http';
import { startWebHost, type WebHost } from './web-host';

const tempDir = useTempDir();
const open: { host: WebHost; service: WorkbenchService }[] = [];
afterEach(async () => {
  for (const { host, service } of open.splice(0)) {
    await host.close();
    await service.close(100);
  }
});

const noFork: ForkWorker = () => {
  throw new Error('no task process in this test');
};

async function serve(): Promise<{ host: WebHost; base: string; renderer: string; uuid: string }> {
  const base = tempDir();
  const root = path.join(base, 'contexts');
  const [task] = await seedTasks(root, [{ title: 'Served task' }]);
  const renderer = path.join(base, 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>ui</title>');
  fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'TOP SECRET');
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(renderer, 'assets', 'link.txt'));
  const service = createWorkbenchService({
    contextsRoot: root,
    configFile: null,
    fork: noFork,
    host: { kind: 'serve', version: 'test', versions: {} },
    exportDir: base,
    env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg') },
  });
  const host = await startWebHost({ service, rendererRoot: renderer, port: 0 });
  open.push({ host, service });
  return { host, base, renderer, uuid: task!.uuid };
}

const json = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({
  'Content-Type': 'application/json',
  Authorization: `Bearer ${token}`,
  ...extra,
});

describe('the web host (real HTTP on 127.0.0.1)', () => {
  it('prints a loopback URL with a long random token', async () => {
    const { host } = await serve();
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('requires the token on every request: none → 401, wrong → 403', async () => {
    const { host } = await serve();
    const call = { method: 'POST', path: '/api/appInfo', body: '{}' };
    const none = await rawRequest(host.port, {
      ...call,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    const wrong = await rawRequest(host.port, { ...call, headers: json('x'.repeat(43)) });
    expect(wrong.status).toBe(403);
    const shortWrong = await rawRequest(host.port, { ...call, headers: json('x') });
    expect(shortWrong.status).toBe(403);
    expect((await rawRequest(host.port, { path: '/' })).status).toBe(401);
    expect((await rawRequest(host.port, { path: '/?token=nope' })).status).toBe(403);
    expect((await rawRequest(host.port, { path: '/assets/app.js' })).status).toBe(401);
    expect((await rawRequest(host.port, { path: '/api/events' })).status).toBe(401);
    const good = await rawRequest(host.port, { ...call, headers: json(host.token) });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toMatchObject({ ok: true, value: { host: 'serve' } });
  });

  it('sets an HttpOnly SameSite=Strict cookie on the page load that carries the token', async () => {
    const { host } = await serve();
    const page = await rawRequest(host.port, { path: `/?token=${host.token}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>ui</title>');
    const cookie = page.headers['set-cookie']![0]!;
    expect(cookie).toMatch(
      new RegExp(`^cwb_token_${host.port}=${host.token}; Path=/; HttpOnly; SameSite=Strict$`),
    );
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const jar = { Cookie: cookie.split(';')[0]! };
    expect((await rawRequest(host.port, { path: '/assets/app.js', headers: jar })).status).toBe(
      200,
    );
    const api = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/queryTasks',
      headers: { ...jar, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(JSON.parse(api.body)).toMatchObject({ ok: true, value: { total: 1 } });
    // the token in the query only counts for pages, never for the API
    const viaQuery = await rawRequest(host.port, {
      method: 'POST',
      path: `/api/appInfo?token=${host.token}`,
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(viaQuery.status).toBe(401);
  });

  it('refuses a Host header it does not serve (DNS rebinding)', async () => {
    const { host } = await serve();
    for (const forged of [
      'evil.example:' + host.port,
      `127.0.0.1:${host.port + 1}`,
      'evil.example',
    ]) {
      const res = await rawRequest(host.port, {
        method: 'POST',
        path: '/api/appInfo',
        headers: { ...json(host.token), Host: forged },
        body: '{}',
      });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.message).toMatch(/Host/);
    }
    const page = await rawRequest(host.port, {
      path: `/?token=${host.token}`,
      headers: { Host: 'rebound.example:80' },
    });
    expect(page.status).toBe(403);
    const localhost = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/appInfo',
      headers: { ...json(host.token), Host: `localhost:${host.port}` },
      body: '{}',
    });
    expect(localhost.status).toBe(200);
  });

  it('refuses cross-site requests: a foreign Origin, Sec-Fetch-Site, a form POST', async () => {
    const { host } = await serve();
    const post = (headers: Record<string, string>, body = '{}') =>
      rawRequest(host.port, { method: 'POST', path: '/api/queryTasks', headers, body });
    expect((await post(json(host.token, { Origin: 'https://evil.example' }))).status).toBe(403);
    expect(
      (await post(json(host.token, { Origin: `http://127.0.0.1:${host.port + 1}` }))).status,
    ).toBe(403);
    expect((await post(json(host.token, { Origin: 'null' }))).status).toBe(403);
    expect((await post(json(host.token, { 'Sec-Fetch-Site': 'cross-site' }))).status).toBe(403);
    expect((await post(json(host.token, { 'Sec-Fetch-Site': 'same-site' }))).status).toBe(403);
    // what a hostile page's <form method=post> sends: its Origin, a form body, the cookie
    const cookie = `cwb_token_${host.port}=${host.token}`;
    const form = await post(
      {
        Cookie: cookie,
        Origin: 'https://evil.example',
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'cross-site',
      },
      'uuid=x',
    );
    expect(form.status).toBe(403);
    // even with no Origin at all, a form body is not JSON and is refused
    const noOrigin = await post({ Cookie: cookie, 'Content-Type': 'text/plain' }, '{}');
    expect(noOrigin.status).toBe(415);
    // the app's own origin is fine
    const same = await post(
      json(host.token, { Origin: host.origin, 'Sec-Fetch-Site': 'same-origin' }),
    );
    expect(same.status).toBe(200);
  });

  it('answers 400 naming the field for an invalid payload, and maps error codes to statuses', async () => {
    const { host, uuid } = await serve();
    const call = (name: string, body: string) =>
      rawRequest(host.port, {
        method: 'POST',
        path: `/api/${name}`,
        headers: json(host.token),
        body,
      });
    const bad = await call('readMessages', JSON.stringify({ uuid, limit: 'many' }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatchObject({ code: 'bad_input', field: 'limit' });
    expect(JSON.parse(bad.body).error.message).toMatch(/^readMessages: limit: /);
    const nested = await call(
      'updateSettings',
      JSON.stringify({ patch: { llm: { provider: 'gemini' } } }),
    );
    expect(nested.status).toBe(400);
    expect(JSON.parse(nested.body).error.field).toBe('patch.llm.provider');
    const notJson = await call('queryTasks', '{"limit":');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error.message).toMatch(/not valid JSON/);
    expect((await call('noSuchOperation', '{}')).status).toBe(404);
    expect(
      (await call('getTask', JSON.stringify({ uuid: '550e8400-e29b-41d4-a716-446655440000' })))
        .status,
    ).toBe(404);
    expect((await call('pauseTask', JSON.stringify({ uuid }))).status).toBe(409);
    const get = await rawRequest(host.port, { path: '/api/queryTasks', headers: json(host.token) });
    expect(get.status).toBe(405);
    const big = await call('queryTasks', JSON.stringify({ search: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });

  it('never serves a file from outside the renderer root', async () => {
    const { host } = await serve();
    const headers = { Authorization: `Bearer ${host.token}` };
    const get = (p: string) => rawRequest(host.port, { path: p, headers });
    for (const attack of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%2fsecret.txt',
      '/%2E%2E%5Csecret.txt',
      '/assets/app.js%00.html',
      '/%ff',
    ]) {
      const res = await get(attack);
      expect([400, 404], attack).toContain(res.status);
      expect(res.body).not.toContain('TOP SECRET');
    }
    const link = await get('/assets/link.txt');
    expect(link.status).toBe(404);
    expect(link.body).not.toContain('TOP SECRET');
    const asset = await get('/assets/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    // the UI's own routes get its page
    expect((await get('/tasks/abc')).body).toContain('<title>ui</title>');
  });

  it('streams live events over SSE to an authenticated client only', async () => {
    const { host, uuid } = await serve();
    expect((await readEvents(host.port, {}, () => true)).status).toBe(401);
    const stream = readEvents(host.port, { Authorization: `Bearer ${host.token}` }, (events) =>
      events.some((e) => (e as { type: string }).type === 'compaction-finished'),
    );
    await new Promise((r) => setTimeout(r, 200));
    const run = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/runCompaction',
      headers: json(host.token),
      body: JSON.stringify({ uuid, strategies: ['truncate'] }),
    });
    expect(run.status).toBe(200);
    const { status, events } = await stream;
    expect(status).toBe(200);
    expect(events).toContainEqual({ type: 'compaction-started', uuid, reason: 'manual' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'compaction-finished', uuid }));
  });
});
