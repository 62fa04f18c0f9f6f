import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyResult =
  { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

/**
 * The JSON body of an API call. Only `application/json` is accepted: an HTML form on
 * another site can send urlencoded or text/plain without a preflight, never JSON.
 */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes = MAX_BODY_BYTES,
): Promise<BodyResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return { ok: false, status: 415, message: 'the request body must be application/json' };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the rest is read and dropped (only an authenticated caller gets here),
  // so the answer reaches the client instead of a reset connection.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) {
    return { ok: false, status: 413, message: `the request body is larger than ${maxBytes} bytes` };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return {
      ok: false,
      status: 400,
      message: `the request body is not valid JSON (${(err as Error).message})`,
    };
  }
}
