import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { startRequest } from './http1-request';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir('cwb-http1-');
const servers: net.Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A raw TCP server: `answer` gets each connection and what arrived so far. */
async function rawServer(
  answer: (socket: net.Socket, received: () => string) => void,
  make: (listener: (socket: net.Socket) => void) => net.Server = (l) => net.createServer(l),
): Promise<number> {
  const server = make((socket) => {
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    answer(socket, () => received);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

async function text(body: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const piece of body) out += (piece as Buffer).toString('utf8');
  return out;
}

describe('startRequest', () => {
  it('sends a head with Host, Basic credentials from the URL and Connection: close, then the body', async () => {
    const body = '{"model":"m","messages":[]}';
    let head = '';
    const port = await rawServer((socket, received) => {
      socket.on('data', () => {
        const all = received();
        const end = all.indexOf('\r\n\r\n');
        if (end === -1 || all.length < end + 4 + body.length) return;
        head = all.slice(0, end);
        expect(all.slice(end + 4)).toBe(body);
        socket.end(
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n',
        );
      });
    });
    const request = startRequest(
      new URL(`http://us%40er:p%3Ass@127.0.0.1:${port}/v1/chat?x=1`),
      'POST',
      {
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
      },
    );
    request.socket.write(body);
    const response = await request.response;
    expect(response.status).toBe(200);
    expect(await text(response.body)).toBe('abcde');
    expect(head.split('\r\n')).toEqual([
      'POST /v1/chat?x=1 HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      `Authorization: Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
      'Connection: close',
    ]);
  });

  it('refuses a header value with a line break before anything is sent', () => {
    expect(() =>
      startRequest(new URL('http://127.0.0.1:9/'), 'GET', { Authorization: 'Bearer k\r\nX: y' }),
    ).toThrow(/invalid character in the "Authorization" header/);
  });

  it('fails like node:http when the server hangs up before answering, or mid-body', async () => {
    const silent = await rawServer((socket) => socket.once('data', () => socket.destroy()));
    const early = startRequest(new URL(`http://127.0.0.1:${silent}/`), 'GET', {});
    await expect(early.response).rejects.toMatchObject({
      message: 'socket hang up',
      code: 'ECONNRESET',
    });

    const cut = await rawServer((socket) =>
      socket.once('data', () =>
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'),
      ),
    );
    const late = startRequest(new URL(`http://127.0.0.1:${cut}/`), 'GET', {});
    const response = await late.response;
    await expect(text(response.body)).rejects.toMatchObject({
      message: 'aborted',
      code: 'ECONNRESET',
    });
  });

  it('rejects a malformed answer with what was wrong', async () => {
    const port = await rawServer((socket) =>
      socket.once('data', () => socket.end('nonsense\r\n\r\n')),
    );
    const request = startRequest(new URL(`http://127.0.0.1:${port}/`), 'GET', {});
    await expect(request.response).rejects.toThrow(/malformed HTTP response: the status line/);
  });

  it('keeps the connection paused while the body is not read (backpressure)', async () => {
    const big = 'x'.repeat(8 * 1024 * 1024);
    const port = await rawServer((socket) =>
      socket.once('data', () =>
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`),
      ),
    );
    const request = startRequest(new URL(`http://127.0.0.1:${port}/`), 'GET', {});
    const response = await request.response;
    await new Promise((r) => setTimeout(r, 100));
    // Unread, the body holds about its high-water mark, not the 8 MiB sent.
    expect(response.body.readableLength).toBeLessThan(1024 * 1024);
    expect((await text(response.body)).length).toBe(big.length);
  });

  const openssl = (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!openssl)(
    'speaks TLS for https with the host name as SNI, and refuses a certificate it cannot verify',
    async () => {
      const key = path.join(tempDir(), 'key.pem');
      const cert = path.join(tempDir(), 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          key,
          '-out',
          cert,
        ],
        { stdio: 'ignore' },
      );
      let sni: string | undefined;
      const port = await rawServer(
        (socket) => socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\n\r\n')),
        (listener) =>
          tls.createServer(
            {
              key: fs.readFileSync(key),
              cert: fs.readFileSync(cert),
              SNICallback: (name, done) => {
                sni = name;
                done(null, undefined);
              },
            },
            listener,
          ),
      );
      const request = startRequest(new URL(`https://localhost:${port}/v1/models`), 'GET', {});
      await expect(request.response).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
      expect(sni).toBe('localhost');
    },
  );
});
