import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster for tests and the bench: initdb in a temp folder, a free
 * port on 127.0.0.1 (and a socket in the same folder), stopped and removed by `stop()`.
 * PostgreSQL refuses to run as root, so under root the folder belongs to an unprivileged
 * user and every server binary runs as that user through runuser. Not installed is an
 * error, never a silent skip: a backend that is not tested is not known to work.
 */
export interface PostgresCluster {
  /** postgres://… of the cluster's `postgres` database (superuser `cwb`, trust auth). */
  readonly url: string;
  readonly port: number;
  /** The temp folder holding the data directory, its log and socket. */
  readonly dir: string;
  /** A fresh empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** The URL of a database as the given role (created with LOGIN if absent). */
  roleUrl(database: string, role: string): Promise<string>;
  /** Stops the server (connections cut), keeping its data: the database went away. */
  halt(): void;
  /** Starts a halted server again on the same port, with the same data. */
  restart(): void;
  /** Stops the server and removes its folder. */
  stop(): void;
}

export const POSTGRES_BIN = process.env.CWB_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const SUPERUSER = 'cwb';
const RUN_AS = process.env.CWB_PG_RUN_AS ?? 'nobody';

function requireBinaries(): void {
  for (const bin of ['initdb', 'pg_ctl', 'postgres']) {
    if (!fs.existsSync(path.join(POSTGRES_BIN, bin))) {
      throw new Error(
        `PostgreSQL is not installed: no ${bin} in ${POSTGRES_BIN} ` +
          `(install Debian's postgresql-15, or set CWB_PG_BIN to its bin folder)`,
      );
    }
  }
}

/** Runs a server binary, as RUN_AS when we are root (PostgreSQL will not run as root). */
function runServerBinary(bin: string, args: string[]): void {
  const file = path.join(POSTGRES_BIN, bin);
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', RUN_AS, '--', file, ...args]] : [file, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: os.tmpdir() });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PostgresCluster> {
  requireBinaries();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (process.getuid?.() === 0) {
    // mkdtemp makes the folder 0700 root: hand it to the server's user.
    execFileSync('chown', [RUN_AS, dir]);
  }
  const port = await freePort();
  let running = false;
  const start = (): void => {
    runServerBinary('pg_ctl', [
      'start',
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-o',
      // A test cluster: durability off for speed, enough connections for the bench's
      // 8 hosts × 4 writers plus their pools.
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    ]);
    running = true;
  };
  const stop = (): void => {
    if (running) {
      running = false;
      try {
        runServerBinary('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      } catch {
        // Already gone: removing the folder is all that is left.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
    process.off('exit', stop);
  };
  try {
    runServerBinary('initdb', [
      '-D',
      data,
      '-U',
      SUPERUSER,
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    start();
  } catch (err) {
    const serverLog = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    stop();
    throw new Error(`could not start a test PostgreSQL in ${dir}: ${stderr}${serverLog}`, {
      cause: err,
    });
  }
  // A test process that dies without teardown must not leave a server behind.
  process.on('exit', stop);
  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  let counter = 0;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>, database = 'postgres') => {
    const client = new pg.Client({ connectionString: urlOf(port, SUPERUSER, database) });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    port,
    dir,
    async createDatabase(name) {
      const db = name ?? `test_${process.pid}_${++counter}`;
      await admin((c) => c.query(`CREATE DATABASE "${db}"`));
      return urlOf(port, SUPERUSER, db);
    },
    async roleUrl(database, role) {
      await admin(async (c) => {
        const exists = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
        if (exists.rowCount === 0) await c.query(`CREATE ROLE "${role}" LOGIN`);
      });
      return urlOf(port, role, database);
    },
    halt() {
      if (!running) return;
      runServerBinary('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
      running = false;
    },
    restart() {
      if (!running) start();
    },
    stop,
  };
}

function urlOf(port: number, user: string, database: string): string {
  return `postgres://${user}@127.0.0.1:${port}/${database}`;
}
