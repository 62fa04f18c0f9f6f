import net from 'node:net';
import { Readable } from 'node:stream';
import { ResponseReader, type ResponseHead } from './http1-response-reader';

/**
 * One HTTP/1.1 request on a connection of its own, for the LLM clients.
 *
 * Why not node:http: its client (the parser, agents, request and message classes) made a
 * task process ~2 MiB larger, in every task process for every model call (issue #17:
 * measured with the same POST round trips over net and over http, 42.1 against 44.0 MiB).
 * These requests need little of it: a head, a body of known length written by the caller,
 * and an answer read as it arrives. One connection per request (`Connection: close`): a
 * model call takes seconds, opening a connection (TLS included) milliseconds, and no pool
 * means no idle socket the server may have closed in the meantime.
 */

export interface Http1Response extends ResponseHead {
  /** The body as it arrives; destroying it closes the connection. */
  body: Readable;
}

export interface Http1Request {
  /** The connection: write the body to it (the head is already queued); never end it. */
  socket: net.Socket;
  /** The answer's head and body; rejects when the request fails before the head. */
  response: Promise<Http1Response>;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Starts `method` on `target` (http: or https:) with `headers`; Host and Connection are set here. */
export function startRequest(
  target: URL,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
): Http1Request {
  const head = requestHead(method, target, headers);
  const secure = target.protocol === 'https:';
  // URL keeps an IPv6 literal's brackets; a socket wants the bare address.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port) || (secure ? 443 : 80);
  const socket = secure
    ? // node:tls only when asked for: a local model never needs it (~1 MiB).
      process.getBuiltinModule('node:tls').connect({
        host,
        port,
        ...(net.isIP(host) === 0 && { servername: host }),
        ALPNProtocols: ['http/1.1'],
      })
    : net.connect({ host, port });
  // No Nagle delay, as node:http sets: the body's last small segment would otherwise wait
  // for the server's acknowledgement of the one before it.
  socket.setNoDelay(true);
  socket.write(head, 'latin1');
  return { socket, response: readResponse(socket) };
}

function readResponse(socket: net.Socket): Promise<Http1Response> {
  return new Promise<Http1Response>((resolve, reject) => {
    let body: Readable | undefined;
    let failed = false;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      if (body) body.destroy(error);
      else reject(error);
      socket.destroy();
    };
    const reader = new ResponseReader({
      head: (answer) => {
        body = new Readable({
          read: () => socket.resume(),
          destroy: (error, done) => {
            socket.destroy();
            done(error);
          },
        });
        resolve({ ...answer, body });
      },
      body: (piece) => {
        if (!body!.push(piece)) socket.pause();
      },
      end: () => {
        body!.push(null);
        socket.destroy();
      },
    });
    socket.on('data', (data: Buffer) => {
      try {
        reader.push(data);
      } catch (error) {
        fail(error as Error);
      }
    });
    socket.on('error', fail);
    // The words and code node:http uses, so a dropped connection is classified the same
    // (llm-error.ts: retried).
    const cutShort = (): Error =>
      Object.assign(new Error(reader.headRead ? 'aborted' : 'socket hang up'), {
        code: 'ECONNRESET',
      });
    socket.on('end', () => {
      if (!reader.close()) fail(cutShort());
    });
    socket.on('close', () => {
      if (!reader.done) fail(cutShort());
    });
  });
}

/** The request line and headers, ending with the empty line. */
function requestHead(method: string, target: URL, headers: Record<string, string>): string {
  const lines = [`${method} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
  const names = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    // A line break in a value (a pasted API key) would split the head: refused, as node:http does.
    if (!HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) {
      throw new TypeError(`invalid character in the ${JSON.stringify(name)} header`);
    }
    names.add(name.toLowerCase());
    lines.push(`${name}: ${value}`);
  }
  // Credentials in the URL become Basic authentication, as node:http makes them.
  if ((target.username || target.password) && !names.has('authorization')) {
    const user = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    lines.push(`Authorization: Basic ${Buffer.from(user).toString('base64')}`);
  }
  lines.push('Connection: close', '', '');
  return lines.join('\r\n');
}
