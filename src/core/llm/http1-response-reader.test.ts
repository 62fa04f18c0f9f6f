import { describe, expect, it } from 'vitest';
import { MalformedResponseError, ResponseReader, type ResponseHead } from './http1-response-reader';

interface Seen {
  head?: ResponseHead;
  body: string;
  ended: number;
  closeCompletes?: boolean;
}

/** Feeds `pieces` to a reader, then the end of the connection. */
function read(pieces: Buffer[], close = true): Seen {
  const seen: Seen = { body: '', ended: 0 };
  const reader = new ResponseReader({
    head: (head) => (seen.head = head),
    body: (piece) => (seen.body += piece.toString('latin1')),
    end: () => seen.ended++,
  });
  for (const piece of pieces) reader.push(piece);
  if (close) seen.closeCompletes = reader.close();
  return seen;
}

/** Every way of cutting `text` in two, and byte by byte. */
function splits(text: string): Buffer[][] {
  const bytes = Buffer.from(text, 'latin1');
  const ways: Buffer[][] = [[...bytes].map((b) => Buffer.from([b]))];
  for (let i = 1; i < bytes.length; i++) ways.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return ways;
}

describe('ResponseReader', () => {
  it('reads a Content-Length body however the bytes arrive, and ignores what follows it', () => {
    const text =
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Twice: a\r\nx-twice: b\r\n' +
      'Content-Length: 11\r\n\r\n{"ok":true}trailing junk';
    for (const pieces of splits(text)) {
      const seen = read(pieces);
      expect(seen.head).toEqual({
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'application/json', 'x-twice': 'a, b', 'content-length': '11' },
      });
      expect(seen.body).toBe('{"ok":true}');
      expect(seen.ended).toBe(1);
      expect(seen.closeCompletes).toBe(true);
    }
  });

  it('decodes a chunked body with extensions and trailers however the bytes arrive', () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5;name=value\r\ndata:\r\nA\r\n {"x":1}\n\n\r\n0\r\nX-Trailer: t\r\n\r\n';
    for (const pieces of splits(text)) {
      const seen = read(pieces, false);
      expect(seen.body).toBe('data: {"x":1}\n\n');
      expect(seen.ended).toBe(1);
    }
  });

  it('reads a body without length to the end of the connection', () => {
    const seen = read([Buffer.from('HTTP/1.0 500 Oops\r\n\r\nbroken'), Buffer.from(' gateway')]);
    expect(seen.head?.status).toBe(500);
    expect(seen.body).toBe('broken gateway');
    expect(seen.closeCompletes).toBe(true);
    expect(seen.ended).toBe(1);
  });

  it('skips 100 Continue and ends bodiless answers at their head', () => {
    const seen = read([
      Buffer.from(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n',
      ),
    ]);
    expect(seen.head?.status).toBe(204);
    expect(seen.body).toBe('');
    expect(seen.ended).toBe(1);
  });

  it('tells a body cut short by the connection from a complete one', () => {
    expect(
      read([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')]).closeCompletes,
    ).toBe(false);
    expect(
      read([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n')])
        .closeCompletes,
    ).toBe(false);
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nContent-Le')]).closeCompletes).toBe(false);
  });

  it.each([
    ['a status line that is not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', /status line/],
    ['a broken header', 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /header line/],
    [
      'a bad chunk size',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      /chunk size/,
    ],
    [
      'a chunk without its CRLF',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc',
      /CRLF/,
    ],
    ['conflicting lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n', /Content-Length/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => read([Buffer.from(text, 'latin1')])).toThrow(MalformedResponseError);
    expect(() => read([Buffer.from(text, 'latin1')])).toThrow(message);
  });

  it('refuses a head that never ends instead of buffering it', () => {
    const reader = new ResponseReader({ head: () => {}, body: () => {}, end: () => {} });
    reader.push(Buffer.from('HTTP/1.1 200 OK\r\n'));
    expect(() => reader.push(Buffer.alloc(70 * 1024, 0x61))).toThrow(/no end of headers/);
  });
});
