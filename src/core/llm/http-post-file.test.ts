import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { TransportError, httpGet, postFile } from './http-post-file';
import { readBodyText } from './stream-lines';

const tempDir = useTempDir('cwb-llm-http-');
const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function file(content: string | Buffer): string {
  const p = path.join(tempDir(), 'request.json');
  fs.writeFileSync(p, content);
  return p;
}

describe('postFile', () => {
  it('streams the file as the body with its size as Content-Length', async () => {
    const content = Buffer.from(`{"text":"${'日本語😀'.repeat(100_000)}"}`);
    let received:
      { length: string | undefined; auth: string | undefined; body: Buffer } | undefined;
    const url = await serve((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        received = {
          length: req.headers['content-length'],
          auth: req.headers.authorization,
          body: Buffer.concat(parts),
        };
        res.writeHead(201, { 'Content-Type': 'text/plain' }).end('created');
      });
    });
    const res = await postFile(`${url}/x`, file(content), {
      headers: { Authorization: 'Bearer k' },
    });
    expect(res.status).toBe(201);
    expect(await readBodyText(res.body)).toBe('created');
    expect(received?.length).toBe(String(content.length));
    expect(received?.auth).toBe('Bearer k');
    expect(received?.body.equals(content)).toBe(true);
  });

  it('sends a body far larger than its buffers intact to a server that reads it late', async () => {
    // Random bytes: a buffer reused before the socket was done with it would show.
    const content = randomBytes(12 * 1024 * 1024);
    let received: Buffer | undefined;
    const url = await serve((req, res) => {
      const parts: Buffer[] = [];
      // Not reading at first lets the socket fill up, so writes wait for the server.
      req.pause();
      setTimeout(() => {
        req.on('data', (c: Buffer) => parts.push(c));
        req.resume();
      }, 200);
      req.on('end', () => {
        received = Buffer.concat(parts);
        res.end('ok');
      });
    });
    const res = await postFile(`${url}/x`, file(content));
    expect(await readBodyText(res.body)).toBe('ok');
    expect(received?.length).toBe(content.length);
    expect(received?.equals(content)).toBe(true);
  });

  it('fails when the server drops the connection mid-body, and the next body still goes out intact', async () => {
    const dropping = await serve((req) => {
      req.once('data', () => req.socket.destroy());
    });
    const big = randomBytes(16 * 1024 * 1024);
    await expect(postFile(`${dropping}/x`, file(big))).rejects.toThrow();
    // The two buffers that body was sent through go back to the pool only once no write
    // holds them: the next body, sent through pooled buffers, arrives byte for byte.
    const content = randomBytes(4 * 1024 * 1024);
    let received: Buffer | undefined;
    const url = await serve((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        received = Buffer.concat(parts);
        res.end('ok');
      });
    });
    const res = await postFile(`${url}/x`, file(content));
    expect(await readBodyText(res.body)).toBe('ok');
    expect(received?.equals(content)).toBe(true);
  });

  it('hands back the body as a stream, before the server has finished it', async () => {
    let finish: (() => void) | undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('first ');
      finish = () => res.end('last');
    });
    const res = await postFile(url, file('{}'));
    const iterator = res.body[Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe('first ');
    finish?.();
    expect(String((await iterator.next()).value)).toBe('last');
  });

  it('fails with a timeout when no response comes', async () => {
    const url = await serve(() => undefined);
    const started = Date.now();
    const error = await postFile(url, file('{}'), { responseTimeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(10_000); // no answer ever comes
  });

  it('fails the body with idle_timeout when the response stalls', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('a');
    });
    const res = await postFile(url, file('{}'), { idleTimeoutMs: 200 });
    const error = await readBodyText(res.body).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'idle_timeout' });
  });

  it('cancels before and after the response headers', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('a');
    });
    const early = new AbortController();
    early.abort();
    await expect(postFile(url, file('{}'), { signal: early.signal })).rejects.toMatchObject({
      reason: 'cancelled',
    });

    const late = new AbortController();
    const res = await postFile(url, file('{}'), { signal: late.signal });
    const reading = readBodyText(res.body);
    late.abort();
    await expect(reading).rejects.toMatchObject({ reason: 'cancelled' });
  });

  it('reports a refused connection as the network error it is', async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => {
      servers[0].close(resolve);
      servers.splice(0);
    });
    await expect(httpGet(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
