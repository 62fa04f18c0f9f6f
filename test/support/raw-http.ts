import http from 'node:http';

export interface RawReply {
  status: number;
  body: string;
}

/**
 * One request on its own connection (no keep-alive reuse, whose races would show up as
 * client-side hang-ups), to 127.0.0.1:`port`, with an exact Content-Length and the
 * headers exactly as given: Host too (none at all when `host` is null).
 */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path: string;
    host?: string | null;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers: Record<string, string> = {};
    if (options.host !== null) headers.Host = options.host ?? `127.0.0.1:${port}`;
    if (body) headers['Content-Length'] = String(body.length);
    Object.assign(headers, options.headers);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        agent: false,
        headers,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
