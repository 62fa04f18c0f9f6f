import type { IncomingHttpHeaders } from 'node:http';

/** The status line and headers of an HTTP/1.x response. */
export interface ResponseHead {
  status: number;
  statusText: string;
  /** Names in lower case; a repeated header's values joined with ", ". */
  headers: IncomingHttpHeaders;
}

export interface ResponseListener {
  head(head: ResponseHead): void;
  /** A piece of the body, framing removed: a slice of the bytes given to `push`. */
  body(piece: Buffer): void;
  /** The body is complete (its length reached, its last chunk read, or the connection closed). */
  end(): void;
}

/** A response that breaks HTTP/1.1's grammar: the connection cannot be trusted after it. */
export class MalformedResponseError extends Error {
  constructor(detail: string) {
    super(`the server sent a malformed HTTP response: ${detail}`);
    this.name = 'MalformedResponseError';
  }
}

/** Servers send a few hundred bytes of headers; past this the answer is not HTTP. */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line: hex digits, maybe extensions. */
const MAX_CHUNK_LINE_BYTES = 4096;

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

type State =
  | { kind: 'head' }
  | { kind: 'length'; left: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; left: number }
  | { kind: 'chunk-end' }
  | { kind: 'trailers' }
  | { kind: 'until-close' }
  | { kind: 'done' };

/**
 * Reads an HTTP/1.1 response to a GET or POST from the bytes of its connection, as they
 * arrive: the head, then the body as slices of what was pushed (no copy), framed by
 * Content-Length, chunked transfer coding or the end of the connection (RFC 9112 §6.3).
 * Informational answers (100 Continue) are skipped. Malformed input throws
 * MalformedResponseError from `push`.
 */
export class ResponseReader {
  private state: State = { kind: 'head' };
  /** Bytes of a head or a chunk-size line not complete yet. */
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly listener: ResponseListener) {}

  /** Whether the body has been read to its end. */
  get done(): boolean {
    return this.state.kind === 'done';
  }

  /** Whether a head has been read (a body, if any, is being read or was read). */
  get headRead(): boolean {
    return this.state.kind !== 'head';
  }

  push(data: Buffer): void {
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    this.pending = Buffer.alloc(0);
    while (bytes.length > 0 && this.state.kind !== 'done') {
      const used = this.step(bytes);
      if (used < 0) {
        // An incomplete head or line: kept until more arrives.
        this.pending = Buffer.from(bytes);
        return;
      }
      bytes = bytes.subarray(used);
    }
  }

  /**
   * The connection ended. Returns whether that completes the response: true when the body
   * runs until the close or was already complete, false when it was cut short.
   */
  close(): boolean {
    if (this.state.kind === 'until-close') {
      this.finish();
      return true;
    }
    return this.state.kind === 'done';
  }

  /** Consumes a prefix of `bytes`; -1 when it needs more bytes than there are. */
  private step(bytes: Buffer): number {
    const state = this.state;
    switch (state.kind) {
      case 'head':
        return this.readHead(bytes);
      case 'length':
      case 'chunk-data': {
        const take = Math.min(state.left, bytes.length);
        this.listener.body(bytes.subarray(0, take));
        state.left -= take;
        if (state.left === 0) {
          if (state.kind === 'length') this.finish();
          else this.state = { kind: 'chunk-end' };
        }
        return take;
      }
      case 'chunk-size':
        return this.readChunkSize(bytes);
      case 'chunk-end':
        if (bytes.length < 2) return -1;
        if (bytes[0] !== 0x0d || bytes[1] !== 0x0a) {
          throw new MalformedResponseError('a chunk does not end with CRLF');
        }
        this.state = { kind: 'chunk-size' };
        return 2;
      case 'trailers':
        return this.readTrailerLine(bytes);
      case 'until-close':
        this.listener.body(bytes);
        return bytes.length;
      case 'done':
        return bytes.length;
    }
  }

  private readHead(bytes: Buffer): number {
    const end = bytes.indexOf(HEAD_END);
    if (end === -1) {
      if (bytes.length > MAX_HEAD_BYTES) {
        throw new MalformedResponseError(`no end of headers within ${MAX_HEAD_BYTES} bytes`);
      }
      return -1;
    }
    const lines = bytes.toString('latin1', 0, end).split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) {
      throw new MalformedResponseError(
        `the status line is ${JSON.stringify(lines[0]!.slice(0, 80))}`,
      );
    }
    const headers: IncomingHttpHeaders = {};
    for (const line of lines.slice(1)) {
      const header = HEADER_LINE.exec(line);
      if (!header) {
        throw new MalformedResponseError(`a header line is ${JSON.stringify(line.slice(0, 80))}`);
      }
      const name = header[1]!.toLowerCase();
      const before = headers[name];
      headers[name] = before === undefined ? header[2]! : `${String(before)}, ${header[2]!}`;
    }
    const code = Number(status[1]);
    // 101 would switch protocols, which these requests never ask for.
    if (code >= 100 && code < 200 && code !== 101) return end + HEAD_END.length;
    const framing = bodyFraming(code, headers);
    this.listener.head({ status: code, statusText: status[2] ?? '', headers });
    this.state = framing;
    if (framing.kind === 'done') this.listener.end();
    return end + HEAD_END.length;
  }

  private readChunkSize(bytes: Buffer): number {
    const end = bytes.indexOf(CRLF);
    if (end === -1) {
      if (bytes.length > MAX_CHUNK_LINE_BYTES) {
        throw new MalformedResponseError('a chunk size line is too long');
      }
      return -1;
    }
    const line = bytes.toString('latin1', 0, end);
    const hex = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
    if (!hex)
      throw new MalformedResponseError(`a chunk size is ${JSON.stringify(line.slice(0, 40))}`);
    const size = Number.parseInt(hex[1]!, 16);
    this.state = size === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', left: size };
    return end + CRLF.length;
  }

  /** After the last chunk: trailer fields (ignored) up to an empty line. */
  private readTrailerLine(bytes: Buffer): number {
    const end = bytes.indexOf(CRLF);
    if (end === -1) {
      if (bytes.length > MAX_HEAD_BYTES) throw new MalformedResponseError('trailers too long');
      return -1;
    }
    if (end === 0) this.finish();
    return end + CRLF.length;
  }

  private finish(): void {
    this.state = { kind: 'done' };
    this.listener.end();
  }
}

/** How the body of a response with this status and these headers is delimited. */
function bodyFraming(status: number, headers: IncomingHttpHeaders): State {
  if (status === 204 || status === 304) return { kind: 'done' };
  const coding = headers['transfer-encoding'];
  if (coding !== undefined) {
    const codings = String(coding).toLowerCase().split(',');
    // Only chunked as the final coding delimits the body; anything else runs to the close.
    return codings[codings.length - 1]!.trim() === 'chunked'
      ? { kind: 'chunk-size' }
      : { kind: 'until-close' };
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    // Repeated identical values ("42, 42") are allowed; different ones are not.
    const values = new Set(
      String(length)
        .split(',')
        .map((v) => v.trim()),
    );
    const [value] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(value!)) {
      throw new MalformedResponseError(`Content-Length is ${JSON.stringify(String(length))}`);
    }
    const left = Number(value);
    return left === 0 ? { kind: 'done' } : { kind: 'length', left };
  }
  return { kind: 'until-close' };
}
