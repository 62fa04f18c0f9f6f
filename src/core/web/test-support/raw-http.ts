import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with full control over its headers (fetch will not let a test forge Host). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Reads server-sent events until `until` says enough (or the time runs out). */
export function readEvents(
  port: number,
  headers: Record<string, string>,
  until: (events: unknown[]) => boolean,
  timeoutMs = 30_000,
): Promise<{ status: number; events: unknown[] }> {
  return new Promise((resolve, reject) => {
    const events: unknown[] = [];
    let buffer = '';
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/events',
        headers: { Host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        const finish = (): void => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, events });
        };
        const timer = setTimeout(finish, timeoutMs);
        if (res.statusCode !== 200) {
          res.resume();
          finish();
          return;
        }
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of block.split('\n'))
              if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as unknown);
          }
          if (until(events)) finish();
        });
      },
    );
    req.on('error', (err) => (events.length ? undefined : reject(err)));
    req.end();
  });
}
