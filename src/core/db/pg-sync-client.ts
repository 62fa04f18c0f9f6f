import type { MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { CwbError } from '../errors';

/**
 * A synchronous PostgreSQL client. The task index is called from synchronous code (the
 * store moves a folder inside the index's write transaction), while every PostgreSQL
 * client for Node is asynchronous. So the `pg` pool lives in a worker thread and each call
 * posts a request and blocks on Atomics.wait until the worker has answered: the pattern
 * of `synckit`, written out here because the worker must be one source string (eval) —
 * the engine is bundled by electron-vite and run from source by tsx and vitest, and a
 * separate worker file would need an entry in each.
 *
 * One request at a time per client, so a transaction simply holds one pooled connection
 * from BEGIN to COMMIT or ROLLBACK; other statements use whichever connection is free.
 */

/** The worker: plain CommonJS, no TypeScript (see above). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const { port, flag, url, poolSize, connectTimeoutMs } = workerData;
// COUNT(*), SUM and BIGINT counters arrive as numbers: they stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
const pool = new pg.Pool({
  connectionString: url,
  max: poolSize,
  connectionTimeoutMillis: connectTimeoutMs,
  application_name: 'cwb',
});
// An idle connection that breaks is dropped by the pool; the next query says why.
pool.on('error', () => {});
let tx = null;
async function handle(req) {
  switch (req.op) {
    case 'query': {
      const r = await (tx || pool).query({ text: req.sql, values: req.params });
      return { rows: r.rows, rowCount: r.rowCount };
    }
    case 'begin': {
      const client = await pool.connect();
      try {
        await client.query(req.sql);
      } catch (err) {
        client.release(err);
        throw err;
      }
      tx = client;
      return null;
    }
    case 'commit':
    case 'rollback': {
      const client = tx;
      tx = null;
      if (!client) return null;
      try {
        await client.query(req.op === 'commit' ? 'COMMIT' : 'ROLLBACK');
        client.release();
      } catch (err) {
        client.release(err);
        throw err;
      }
      return null;
    }
    case 'end':
      if (tx) tx.release(new Error('closed'));
      tx = null;
      await pool.end();
      return null;
  }
  throw new Error('unknown request ' + req.op);
}
port.on('message', (req) => {
  handle(req).then(
    (value) => finish({ id: req.id, ok: true, value }),
    (err) => finish({
      id: req.id,
      ok: false,
      message: String(err && err.message || err),
      code: err && err.code,
      detail: err && err.detail,
    }),
  );
});
function finish(reply) {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
`;

export interface PgSyncOptions {
  /** Connections the worker's pool may open (one is held by an open transaction). */
  poolSize?: number;
  /** How long a call waits for the database before failing (a server gone silent). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

export interface PgResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A database error as the worker reported it: PostgreSQL's SQLSTATE or Node's errno code. */
export class PgError extends CwbError {
  constructor(
    message: string,
    readonly sqlState: string | undefined,
  ) {
    super(isUnreachable(sqlState) ? 'io' : 'bad_input', message);
  }
}

function isUnreachable(code: string | undefined): boolean {
  return (
    code === undefined ||
    /^(ECONN|ENOTFOUND|EAI_|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)/.test(code) ||
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin_shutdown
    code === '57P03' // cannot_connect_now
  );
}

interface Reply {
  /** The request's id: a reply to a call that gave up waiting carries an older one. */
  id: number;
  ok: boolean;
  value?: unknown;
  message?: string;
  code?: string;
  detail?: string;
}

export class PgSyncClient {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly receive: typeof receiveMessageOnPort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly timeoutMs: number;
  private closed = false;
  private lastId = 0;

  /** `location` names the database in errors (the URL without its password). */
  constructor(
    url: string,
    readonly location: string,
    options: PgSyncOptions = {},
  ) {
    // Loaded here, not imported: a task process on tasks.db never needs threads (docs/benchmarks.md, group 1).
    const threads = process.getBuiltinModule('node:worker_threads');
    this.receive = threads.receiveMessageOnPort;
    const { port1, port2 } = new threads.MessageChannel();
    this.port = port1;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    // node:module too: loading it loads Node's ES module loader (~2 MiB, group 1 again).
    const { createRequire } = process.getBuiltinModule('node:module');
    const pgPath = createRequire(import.meta.url).resolve('pg');
    this.worker = new threads.Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgPath,
        port: port2,
        flag: this.flag,
        url,
        poolSize: options.poolSize ?? 4,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      },
      transferList: [port2],
    });
    // The worker only ever runs while this thread waits for it: it must not keep a
    // finished process alive.
    this.worker.unref();
    this.port.unref();
  }

  /** `timeoutMs` replaces the client's for this call (a schema upgrade may take minutes). */
  query<Row = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
    timeoutMs = this.timeoutMs,
  ): PgResult<Row> {
    return this.call({ op: 'query', sql, params }, timeoutMs) as PgResult<Row>;
  }

  /** Takes a connection from the pool and runs `sql` (BEGIN …) on it; it serves every call until commit or rollback. */
  begin(sql = 'BEGIN', timeoutMs = this.timeoutMs): void {
    this.call({ op: 'begin', sql }, timeoutMs);
  }

  commit(): void {
    this.call({ op: 'commit' });
  }

  rollback(): void {
    this.call({ op: 'rollback' });
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: 'end' }, 5_000);
    } catch {
      // The server is gone already; the connections die with the worker.
    }
    this.closed = true;
    void this.worker.terminate();
  }

  /**
   * Posts a request and waits for its reply. Every request carries an id and only the reply
   * with that id is taken: a call that timed out leaves its reply to arrive later, and the
   * next call must drop it rather than return another statement's rows as its own.
   */
  private call(request: Record<string, unknown>, timeoutMs = this.timeoutMs): unknown {
    if (this.closed) throw new CwbError('io', `the PostgreSQL index ${this.location} is closed`);
    const id = ++this.lastId;
    const deadline = Date.now() + timeoutMs;
    this.port.postMessage({ ...request, id });
    for (;;) {
      // Cleared before the port is read: the worker posts a reply first and sets the flag
      // second, so a reply that lands after this read still wakes the wait below.
      Atomics.store(this.flag, 0, 0);
      const reply = this.replyTo(id);
      if (reply) {
        if (reply.ok) return reply.value;
        throw new PgError(`PostgreSQL index ${this.location}: ${explain(reply)}`, reply.code);
      }
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === 'timed-out') {
        throw new PgError(
          `the PostgreSQL index ${this.location} did not answer within ${timeoutMs} ms`,
          undefined,
        );
      }
    }
  }

  /** The reply to request `id` if it has come; replies to earlier requests are dropped. */
  private replyTo(id: number): Reply | undefined {
    for (;;) {
      const message = this.receive(this.port);
      if (!message) return undefined;
      const reply = message.message as Reply;
      if (reply.id === id) return reply;
    }
  }
}

/** pg's message, with what it means when the message alone does not say. */
function explain(reply: Reply): string {
  const message = reply.message ?? 'unknown error';
  switch (reply.code) {
    case 'ECONNREFUSED':
      return `${message} (is the server running, and listening on that host and port?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${message} (unknown host name)`;
    case '42501':
    case '25006':
      return `${message} (the role may not write here: a read-only role, or one without privileges on the index's tables)`;
    case '57P01':
      return `${message} (the server shut down)`;
    default:
      return reply.detail ? `${message} (${reply.detail})` : message;
  }
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable PostgreSQL URL)';
  }
}
