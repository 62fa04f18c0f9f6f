import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { Transform, pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { borrowBuffers, giveBack } from './buffer-pool';
import { startRequest } from './http1-request';

/**
 * The HTTP transport of the LLM clients: a request body streamed from a file (request.json
 * can be as large as the context, so it is never read into memory) and a response body
 * handed back as a stream (an SSE answer is parsed as it arrives). HTTP/1.1 on a connection
 * per request (http1-request.ts), not node:http.
 */

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The response body, not buffered. Errors with a TransportError on idle timeout or abort. */
  body: Readable;
}

export interface HttpOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** From sending the request until the response headers arrive (default 10 minutes). */
  responseTimeoutMs?: number;
  /** Longest silence between two chunks of the response body (default 5 minutes). */
  idleTimeoutMs?: number;
  /** Called after each piece of the body is handed to the socket (LlmClientOptions.memory). */
  onBodyPiece?: () => void;
}

export type TransportFailure = 'timeout' | 'idle_timeout' | 'cancelled';

/** A failure the transport decided on (a timer or the caller's signal), not the network. */
export class TransportError extends Error {
  constructor(
    readonly reason: TransportFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

// A local model evaluating a long prompt may take minutes before its first byte.
const DEFAULT_RESPONSE_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

/** POSTs the file at `filePath` as the body (Content-Length from its size). */
export async function postFile(
  url: string,
  filePath: string,
  options: HttpOptions = {},
): Promise<HttpResponse> {
  const { size } = fs.statSync(filePath);
  const headers = {
    'Content-Type': 'application/json',
    ...options.headers,
    'Content-Length': String(size),
  };
  return send('POST', url, { ...options, headers }, { path: filePath, size });
}

/** A GET without a body (model lists for `cwb doctor`). */
export function httpGet(url: string, options: HttpOptions = {}): Promise<HttpResponse> {
  return send('GET', url, options, null);
}

function send(
  method: 'GET' | 'POST',
  url: string,
  options: HttpOptions,
  file: { path: string; size: number } | null,
): Promise<HttpResponse> {
  const { signal } = options;
  const responseTimeoutMs = options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return new Promise<HttpResponse>((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    let request: ReturnType<typeof startRequest>;
    try {
      request = startRequest(new URL(url), method, options.headers ?? {});
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const { socket } = request;
    let settled = false;
    let body: Transform | undefined;

    const fail = (error: Error): void => {
      clearTimeout(responseTimer);
      if (!settled) {
        settled = true;
        reject(error);
      }
      // The body first, so its reader sees our reason rather than a bare "aborted".
      body?.destroy(error);
      socket.destroy(error);
    };
    const onAbort = (): void => fail(cancelled());
    const responseTimer = setTimeout(
      () => fail(new TransportError('timeout', `no response within ${seconds(responseTimeoutMs)}`)),
      responseTimeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });

    request.response.then((response) => {
      clearTimeout(responseTimer);
      if (settled) {
        response.body.destroy();
        return;
      }
      body = idleGuard(idleTimeoutMs);
      // pipeline carries an error of either side to the other and closes the connection.
      pipeline(response.body, body, () => signal?.removeEventListener('abort', onAbort));
      settled = true;
      resolve({
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        body,
      });
    }, fail);

    if (file !== null) {
      sendFile(file.path, file.size, socket, options.onBodyPiece).catch((error: unknown) => {
        // A failed write has already failed the request (the socket's error); a failed read has not.
        if (!socket.destroyed) fail(error instanceof Error ? error : new Error(String(error)));
      });
    }
  });
}

/**
 * Writes `size` bytes of the file as the request body through two pooled buffers that take
 * turns (buffer-pool.ts; they are all the memory a body of any size takes):
 * one is read into while the other is on its way to the socket, and a buffer is read into
 * again only once the socket is done with it. A read stream would allocate a fresh buffer
 * per chunk, and a gigabyte body would leave a gigabyte of dead buffers for V8 to collect
 * at its own pace (it lets up to 64 MiB of them pile up before it does).
 */
async function sendFile(
  filePath: string,
  size: number,
  socket: Socket,
  onPiece: (() => void) | undefined,
): Promise<void> {
  const fd = fs.openSync(filePath, 'r');
  // A request torn down mid-body may never call back for a chunk it held: stop waiting then.
  // (Not a race with one `closed` promise: every race would leave a reaction on it until the
  // request ends, 4,000 of them for a gigabyte body.)
  let closed: Error | undefined;
  let stopWaiting: ((error: Error) => void) | undefined;
  socket.once('close', () => {
    closed = new Error('the request was closed while its body was sent');
    stopWaiting?.(closed);
  });
  const settled = (write: Promise<void>): Promise<void> =>
    closed
      ? Promise.reject(closed)
      : new Promise<void>((resolve, reject) => {
          stopWaiting = reject;
          write.then(resolve, reject);
        });
  try {
    const buffers = borrowBuffers(2);
    let inFlight: Promise<void> = Promise.resolve();
    let position = 0;
    for (let turn = 0; position < size; turn = 1 - turn) {
      const buffer = buffers[turn];
      // Synchronous: the file was just written and sits in the page cache, where a read
      // takes less than a round trip through libuv's thread pool (as in request-file.ts).
      const bytesRead = fs.readSync(
        fd,
        buffer,
        0,
        Math.min(buffer.length, size - position),
        position,
      );
      if (bytesRead === 0) throw new Error(`${filePath} ended at byte ${position} of ${size}`);
      position += bytesRead;
      const written = new Promise<void>((resolve, reject) => {
        socket.write(buffer.subarray(0, bytesRead), (error) => (error ? reject(error) : resolve()));
      });
      // Keep an unobserved failure from being reported as unhandled; it is awaited below.
      written.catch(() => undefined);
      if (socket.destroyed) throw new Error('the request was closed while its body was sent');
      // The other buffer is read into next: its write must be over.
      await settled(inFlight);
      inFlight = written;
      onPiece?.();
    }
    await settled(inFlight);
    // Not ended: the head gave the body's length, and a half-closed connection makes some
    // servers drop the request.
    // Only now, every write done: a request torn down mid-body may still hold one (then
    // they are left to the collector).
    giveBack(buffers);
  } finally {
    fs.closeSync(fd);
  }
}

/** A pass-through that fails when no chunk arrives for `ms`. */
function idleGuard(ms: number): Transform {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      arm();
      done(null, chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done();
    },
    destroy(error, done) {
      clearTimeout(timer);
      done(error);
    },
  });
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        guard.destroy(
          new TransportError('idle_timeout', `the response stalled for ${seconds(ms)}`),
        ),
      ms,
    );
  };
  arm();
  return guard;
}

function cancelled(): TransportError {
  return new TransportError('cancelled', 'the request was cancelled');
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
