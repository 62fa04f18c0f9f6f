import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { seedTasks } from '../api/test-support/seed-tasks';
import { createWorkbenchService, type WorkbenchService } from '../api/workbench-service';
import type { ForkWorker } from '../supervisor/worker-handle';
import { rawRequest } from './test-support/raw-http';
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

async function serve(maxUploadBytes?: number) {
  const base = tempDir();
  const root = path.join(base, 'contexts');
  const [task] = await seedTasks(root, [{ title: 'Exported task' }]);
  const service = createWorkbenchService({
    contextsRoot: root,
    configFile: null,
    fork: noFork,
    host: { kind: 'serve', version: 'test', versions: {} },
    exportDir: base,
    env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg') },
  });
  const host = await startWebHost({
    service,
    rendererRoot: null,
    port: 0,
    ...(maxUploadBytes !== undefined && { maxUploadBytes }),
  });
  open.push({ host, service });
  return { host, root, uuid: task!.uuid };
}

const auth = (token: string, type: string, extra: Record<string, string> = {}) => ({
  'Content-Type': type,
  Authorization: `Bearer ${token}`,
  ...extra,
});

/** An OpenAI chat JSON transcript (one of the import formats). */
const TRANSCRIPT = JSON.stringify({
  messages: [
    { role: 'user', content: 'Uploaded hello' },
    { role: 'assistant', content: 'Hi there' },
  ],
});

describe('uploads and downloads (real HTTP)', () => {
  it('imports an uploaded file through .staging/ and leaves nothing behind', async () => {
    const { host, root } = await serve();
    const res = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/upload?name=chat.json',
      headers: auth(host.token, 'application/octet-stream'),
      body: TRANSCRIPT,
    });
    expect(res.status, res.body).toBe(200);
    const result = JSON.parse(res.body) as {
      ok: true;
      value: { results: { tasks: { uuid: string }[] }[] };
    };
    expect(result.value.results[0]!.tasks).toHaveLength(1);
    expect(fs.readdirSync(path.join(root, '.staging'))).toEqual([]);
  });

  it('guards uploads like the API: token, Origin, content type, size', async () => {
    const { host, root } = await serve(64);
    const post = (headers: Record<string, string>, body = TRANSCRIPT.slice(0, 40)) =>
      rawRequest(host.port, { method: 'POST', path: '/api/upload?name=a.json', headers, body });
    expect((await post({ 'Content-Type': 'application/octet-stream' })).status).toBe(401);
    expect(
      (await post(auth(host.token, 'application/octet-stream', { Origin: 'https://evil.example' })))
        .status,
    ).toBe(403);
    expect((await post(auth(host.token, 'text/plain'))).status).toBe(415);
    expect((await post(auth(host.token, 'multipart/form-data; boundary=x'))).status).toBe(415);
    const big = await post(auth(host.token, 'application/octet-stream'), 'x'.repeat(100));
    expect(big.status).toBe(413);
    expect(fs.readdirSync(path.join(root, '.staging'))).toEqual([]);
    // a name cannot climb out of the staging folder
    const climb = await rawRequest(host.port, {
      method: 'POST',
      path: `/api/upload?name=${encodeURIComponent('../../escape.json')}`,
      headers: auth(host.token, 'application/octet-stream'),
      body: '{}',
    });
    expect(climb.status).toBeLessThan(500);
    expect(fs.existsSync(path.join(root, 'escape.json'))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(root), 'escape.json'))).toBe(false);
  });

  it('exports into a one-time download with Content-Disposition', async () => {
    const { host, root, uuid } = await serve();
    const prep = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/download',
      headers: auth(host.token, 'application/json'),
      body: JSON.stringify({ uuids: [uuid], format: 'markdown' }),
    });
    expect(prep.status, prep.body).toBe(200);
    const { value } = JSON.parse(prep.body) as {
      value: { files: { id: string; name: string; bytes: number }[] };
    };
    const file = value.files[0]!;
    expect(file.name).toMatch(/\.md$/);
    const get = () =>
      rawRequest(host.port, {
        path: `/api/download/${file.id}`,
        headers: { Authorization: `Bearer ${host.token}` },
      });
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers['content-disposition']).toContain('attachment; filename=');
    expect(first.body).toContain('Exported task');
    expect(Buffer.byteLength(first.body)).toBe(file.bytes);
    expect((await get()).status).toBe(404);
    // A one-task export takes the file name the user chose (a path in it is not one).
    const named = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/download',
      headers: auth(host.token, 'application/json'),
      body: JSON.stringify({ uuids: [uuid], format: 'markdown', name: '../my-context.md' }),
    });
    expect(named.status, named.body).toBe(200);
    const namedFile = (
      JSON.parse(named.body) as { value: { files: { id: string; name: string }[] } }
    ).value.files[0]!;
    expect(namedFile.name).toBe('my-context.md');
    const namedGet = await rawRequest(host.port, {
      path: `/api/download/${namedFile.id}`,
      headers: { Authorization: `Bearer ${host.token}` },
    });
    expect(namedGet.headers['content-disposition']).toContain('filename="my-context.md"');
    // removed once streamed (just after the last byte left)
    await expect.poll(() => fs.readdirSync(path.join(root, '.staging'))).toEqual([]);
    // without the token, no download
    expect((await rawRequest(host.port, { path: `/api/download/${file.id}` })).status).toBe(401);
    // output is the host's business, not the caller's
    const withOutput = await rawRequest(host.port, {
      method: 'POST',
      path: '/api/download',
      headers: auth(host.token, 'application/json'),
      body: JSON.stringify({ uuids: [uuid], format: 'markdown', output: '/tmp/x' }),
    });
    expect(withOutput.status).toBe(400);
  });
});
