/**
 * `cwb serve`'s HTTP API attacked by name (issue 18), with real requests to a real server on
 * 127.0.0.1: no or a wrong token, foreign and DNS-rebinding Host headers, foreign Origins,
 * cross-site simple requests (text/plain, forms, no content type), oversized, malformed and
 * deeply nested bodies, path tricks in every id and path parameter, and static-file
 * traversal (encoded, doubled, NUL, backslash, a symbolic link out of the renderer root).
 * Every request is answered with a clear refusal, no handler runs for a refused request,
 * and nothing beside the contexts root changes. test/reliability/web-host-guard.test.ts
 * fuzzes the guard and runs a real `cwb serve` process; this file names each attack.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWorkbenchService,
  type WorkbenchService,
} from '../../src/core/api/workbench-service';
import type { ForkWorker } from '../../src/core/supervisor/worker-handle';
import { startWebHost, type WebHost } from '../../src/core/web/web-host';
import { ContextStore } from '../../src/core/store/context-store';
import { rawRequest, type RawReply } from '../support/raw-http';

/** One raw request on its own connection; Host is sent exactly as given (null: none). */
const send = (options: Parameters<typeof rawRequest>[1]): Promise<RawReply> =>
  rawRequest(web.port, options);

let base: string;
let root: string;
let config: string;
let known: string;
let service: WorkbenchService;
let web: WebHost;
/** Operations that reached the service (a refused request must add none). */
const invoked: string[] = [];

const fakeFork: ForkWorker = () => ({
  pid: undefined,
  send: () => undefined,
  onMessage: () => undefined,
  onExit: (listener) => void setTimeout(() => listener(2, null), 5),
  kill: () => undefined,
});

const auth = (): Record<string, string> => ({ Authorization: `Bearer ${web.token}` });
const json = (): Record<string, string> => ({ ...auth(), 'Content-Type': 'application/json' });

/** Everything beside the contexts root, with contents: must never change. */
function outside(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(base, { recursive: true, encoding: 'utf8' })) {
    if (rel === 'contexts' || rel.startsWith('contexts/')) continue;
    const full = path.join(base, rel);
    const stat = fs.lstatSync(full);
    out[rel] = stat.isFile()
      ? fs.readFileSync(full, 'utf8')
      : stat.isSymbolicLink()
        ? 'link'
        : 'dir';
  }
  return out;
}

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-hostile-http-'));
  root = path.join(base, 'contexts');
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'target', workdir: base });
  task.addMessage({ role: 'user', content: 'hello' });
  await task.stop();
  known = task.uuid;
  store.close();
  config = path.join(base, 'config.yaml');
  fs.writeFileSync(
    config,
    'llm:\n  provider: ollama\n  ollama:\n    model: m\n    context_length: 32768\n    base_url: http://127.0.0.1:9\n',
  );
  fs.writeFileSync(path.join(base, 'secret.txt'), 'TOP SECRET\n');
  const renderer = path.join(base, 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log(1)');
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(renderer, 'assets', 'secret.js'));
  service = createWorkbenchService({
    contextsRoot: root,
    configFile: config,
    fork: fakeFork,
    host: { kind: 'serve', version: 'test', versions: {} },
    exportDir: path.join(base, 'exports'),
    env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg') },
  });
  const invoke = service.invoke.bind(service);
  service.invoke = (name, payload) => {
    invoked.push(name);
    return invoke(name, payload);
  };
  web = await startWebHost({ service, rendererRoot: renderer, port: 0 });
});

afterAll(async () => {
  await web?.close();
  await service?.close(100);
  fs.rmSync(base, { recursive: true, force: true });
});

describe('the HTTP API under attack', () => {
  it('no token, a wrong token, foreign and DNS-rebinding Hosts, foreign Origins, cross-site requests: refused before any handler', async () => {
    const before = outside();
    const body = JSON.stringify({ uuid: known });
    const cases: [string, Partial<Parameters<typeof send>[0]>, number, RegExp][] = [
      [
        'no token',
        { headers: { 'Content-Type': 'application/json' } },
        401,
        /access token is required/,
      ],
      [
        'wrong token',
        { headers: { Authorization: 'Bearer nope', 'Content-Type': 'application/json' } },
        403,
        /not valid/,
      ],
      [
        'token of another length',
        { headers: { Authorization: `Bearer ${web.token}x`, 'Content-Type': 'application/json' } },
        403,
        /not valid/,
      ],
      [
        'token in the query (API)',
        {
          path: `/api/getTask?token=${web.token}`,
          headers: { 'Content-Type': 'application/json' },
        },
        401,
        /required/,
      ],
      [
        'Host attacker.com',
        { host: 'attacker.com', headers: json() },
        403,
        /Host "attacker\.com" is not served here/,
      ],
      [
        'Host evil.example:PORT (rebinding)',
        { host: `evil.example:${web.port}`, headers: json() },
        403,
        /is not served here/,
      ],
      [
        'Host 127.0.0.1.nip.io:PORT',
        { host: `127.0.0.1.nip.io:${web.port}`, headers: json() },
        403,
        /is not served here/,
      ],
      [
        'Host localhost.:PORT',
        { host: `localhost.:${web.port}`, headers: json() },
        403,
        /is not served here/,
      ],
      ['Host without a port', { host: '127.0.0.1', headers: json() }, 403, /is not served here/],
      [
        'Host of another port',
        { host: `127.0.0.1:${web.port + 1}`, headers: json() },
        403,
        /is not served here/,
      ],
      [
        'Host with credentials',
        { host: `user@127.0.0.1:${web.port}`, headers: json() },
        403,
        /is not served here/,
      ],
      [
        'Origin of another site',
        { headers: { ...json(), Origin: 'http://evil.example' } },
        403,
        /cross-origin/,
      ],
      [
        'Origin null (sandboxed frame, file:)',
        { headers: { ...json(), Origin: 'null' } },
        403,
        /cross-origin/,
      ],
      [
        'Origin https on our host',
        { headers: { ...json(), Origin: `https://127.0.0.1:${web.port}` } },
        403,
        /cross-origin/,
      ],
      [
        'Origin of another port',
        { headers: { ...json(), Origin: `http://127.0.0.1:${web.port + 1}` } },
        403,
        /cross-origin/,
      ],
      [
        'Sec-Fetch-Site cross-site',
        { headers: { ...json(), 'Sec-Fetch-Site': 'cross-site' } },
        403,
        /cross-site/,
      ],
      [
        'Sec-Fetch-Site same-site',
        { headers: { ...json(), 'Sec-Fetch-Site': 'same-site' } },
        403,
        /cross-site/,
      ],
      // A simple request a page on another site can send without a preflight (an HTML form
      // or fetch with mode no-cors): the token would be in the cookie, not a header.
      [
        'text/plain with the cookie',
        { headers: { Cookie: `cwb_token_${web.port}=${web.token}`, 'Content-Type': 'text/plain' } },
        415,
        /must be application\/json/,
      ],
      [
        'form with the cookie',
        {
          headers: {
            Cookie: `cwb_token_${web.port}=${web.token}`,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
        },
        415,
        /must be application\/json/,
      ],
      [
        'multipart with the cookie',
        {
          headers: {
            Cookie: `cwb_token_${web.port}=${web.token}`,
            'Content-Type': 'multipart/form-data; boundary=x',
          },
        },
        415,
        /must be application\/json/,
      ],
      ['no content type', { headers: auth() }, 415, /must be application\/json/],
      [
        'a cookie of another port',
        {
          headers: {
            Cookie: `cwb_token_${web.port + 1}=${web.token}`,
            'Content-Type': 'application/json',
          },
        },
        401,
        /required/,
      ],
    ];
    for (const [name, options, status, message] of cases) {
      const reply = await send({
        method: 'POST',
        body,
        ...options,
        path: options.path ?? '/api/getTask',
      });
      expect(reply.status, name).toBe(status);
      expect(
        (JSON.parse(reply.body) as { error: { message: string } }).error.message,
        name,
      ).toMatch(message);
    }
    // A request without a Host header at all is refused by HTTP/1.1 itself.
    expect(
      (await send({ method: 'POST', path: '/api/getTask', host: null, headers: json(), body }))
        .status,
    ).toBe(400);
    expect(invoked).toEqual([]);
    // The event stream and the pages want the token too.
    expect((await send({ path: '/api/events' })).status).toBe(401);
    expect((await send({ path: '/' })).status).toBe(401);
    expect((await send({ path: '/?token=nope' })).status).toBe(403);
    expect(
      (await send({ path: '/', host: `evil.example:${web.port}`, headers: auth() })).status,
    ).toBe(403);
    expect(outside()).toEqual(before);
  });

  it('oversized, malformed, wrongly typed and deeply nested bodies: a 4xx naming the problem, never a 500', async () => {
    const post = (path: string, body: string) =>
      send({ method: 'POST', path, headers: json(), body });
    const cases: [string, string, string, number, RegExp][] = [
      [
        'oversized',
        '/api/getTask',
        `{"uuid":"${'x'.repeat(2 * 1024 * 1024)}"}`,
        413,
        /larger than 1048576 bytes/,
      ],
      ['invalid JSON', '/api/getTask', '{"uuid": ', 400, /not valid JSON/],
      ['a JSON string', '/api/getTask', '"x"', 400, /expected object/],
      ['wrong type', '/api/getTask', '{"uuid": 5}', 400, /uuid: .*expected string/],
      ['an unknown key', '/api/getTask', `{"uuid":"${'0'.repeat(8)}","x":1}`, 400, /getTask: /],
      ['__proto__ key', '/api/queryTasks', '{"__proto__":{"limit":1}}', 400, /queryTasks: /],
      [
        'nested 100 000 arrays deep',
        '/api/getTask',
        `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
        400,
        /not valid JSON|expected object/,
      ],
      [
        'nested 50 000 objects deep',
        '/api/getTask',
        `{"uuid":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
        400,
        /uuid: .*expected string|not valid JSON/,
      ],
      [
        'deep nesting into a settings patch',
        '/api/updateSettings',
        `{"patch":{"llm":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}}`,
        400,
        /patch/,
      ],
      ['a prototype operation name', '/api/__proto__', '{}', 404, /no operation named "__proto__"/],
      [
        'constructor as an operation',
        '/api/constructor',
        '{}',
        404,
        /no operation named "constructor"/,
      ],
    ];
    for (const [name, path, body, status, message] of cases) {
      const reply = await post(path, body);
      expect(reply.status, `${name}: ${reply.body.slice(0, 300)}`).toBe(status);
      expect(JSON.parse(reply.body).error.message, name).toMatch(message);
    }
  });

  it('path tricks in every id and path parameter: refused as bad input, nothing outside touched', async () => {
    const before = outside();
    const configBefore = fs.readFileSync(config, 'utf8');
    const ids = [
      '../../etc/passwd',
      '%2e%2e%2f%2e%2e%2f',
      `${known}/../x`,
      `${known}\u0000`,
      '/etc/passwd',
      known.toUpperCase(),
      `${known} `,
      '00000000-0000-0000-0000-000000000000',
    ];
    for (const id of ids) {
      for (const [op, payload] of [
        ['getTask', { uuid: id }],
        ['readMessages', { uuid: id }],
        [
          'exportTasks',
          { uuids: [id], format: 'markdown', output: path.join(base, 'exports', 'x.md') },
        ],
        ['readToolOutput', { uuid: known, ref: id }],
      ] as const) {
        const reply = await send({
          method: 'POST',
          path: `/api/${op}`,
          headers: json(),
          body: JSON.stringify(payload),
        });
        // A ref that is a well-formed name is looked up (and not found); anything else is bad input.
        expect([400, 404], `${op} ${JSON.stringify(id)}: ${reply.body}`).toContain(reply.status);
        expect(JSON.parse(reply.body).error.code).toBe(
          reply.status === 400 ? 'bad_input' : 'not_found',
        );
      }
    }
    for (const bad of ['relative/out.md', 'a\u0000b.md', '']) {
      const reply = await send({
        method: 'POST',
        path: '/api/exportTasks',
        headers: json(),
        body: JSON.stringify({ uuids: [known], format: 'markdown', output: bad }),
      });
      expect(reply.status, JSON.stringify(bad)).toBe(400);
    }
    for (const bad of ['relative.jsonl', 'a\u0000b', '']) {
      const reply = await send({
        method: 'POST',
        path: '/api/importFiles',
        headers: json(),
        body: JSON.stringify({ paths: [bad] }),
      });
      expect(reply.status, JSON.stringify(bad)).toBe(400);
    }
    // Was: a contexts_dir with a NUL byte was written into config.yaml, and every later
    // start of cwb failed on it.
    const nul = await send({
      method: 'POST',
      path: '/api/updateSettings',
      headers: json(),
      body: JSON.stringify({ patch: { contexts_dir: 'a\u0000b' } }),
    });
    expect(nul.status, nul.body).toBe(400);
    expect(JSON.parse(nul.body).error).toMatchObject({
      code: 'bad_input',
      field: 'patch.contexts_dir',
    });
    expect(fs.readFileSync(config, 'utf8')).toBe(configBefore);
    // The upload's name is only ever a file name inside the staging folder.
    for (const name of ['../../../escape.jsonl', '/tmp/escape.jsonl', '..', 'a\u0000b']) {
      const reply = await send({
        method: 'POST',
        path: `/api/upload?name=${encodeURIComponent(name)}`,
        headers: { ...auth(), 'Content-Type': 'application/octet-stream' },
        body: '{"not":"a transcript"}\n',
      });
      expect(reply.status, name).toBe(200);
      const failed = JSON.parse(reply.body).value.failed as { file: string }[];
      expect(
        failed[0]!.file.startsWith(path.join(root, '.staging') + path.sep),
        failed[0]!.file,
      ).toBe(true);
    }
    expect(fs.readdirSync(path.join(root, '.staging'))).toEqual([]);
    // Download ids are opaque, one-time keys: no path in them is ever looked at.
    for (const id of [
      '..%2f..%2fsecret.txt',
      '%00',
      '..',
      encodeURIComponent(path.join(base, 'secret.txt')),
    ]) {
      const reply = await send({ path: `/api/download/${id}`, headers: auth() });
      // `..` is resolved by the URL parser to /api/ itself (GET: 405).
      expect([404, 405], id).toContain(reply.status);
    }
    expect(outside()).toEqual(before);
    expect(fs.existsSync('/tmp/escape.jsonl')).toBe(false);
  });

  it('static files: traversal, encodings, NUL, backslashes and a symbolic link out of the renderer root never serve a file outside it', async () => {
    for (const p of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2e%2e%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/%252e%252e%252fsecret.txt',
      '/..%5csecret.txt',
      '/index.html%00.js',
      '/assets/secret.js',
      `//${base.slice(1)}/secret.txt`,
      `/${'..%2f'.repeat(20)}etc/passwd`,
    ]) {
      const reply = await send({ path: p, headers: auth() });
      expect([400, 404, 200], p).toContain(reply.status);
      expect(reply.body, p).not.toContain('TOP SECRET');
      expect(reply.body, p).not.toContain('root:');
    }
    const app = await send({ path: '/assets/app.js', headers: auth() });
    expect(app).toEqual({ status: 200, body: 'console.log(1)' });
  });
});
