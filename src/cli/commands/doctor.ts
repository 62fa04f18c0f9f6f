import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resolveContextsRoot } from '../../core/store/contexts-layout';
import { ContextStore } from '../../core/store/context-store';
import { reportIsClean } from '../../core/store/recovery';
import { SCHEMA_VERSION } from '../../core/db/schema';
import { PgTaskRepository } from '../../core/db/pg-task-repository';
import { PG_SCHEMA_VERSION } from '../../core/db/pg-schema';
import { resolveContext, type CliContext, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';
import { CwbError } from '../../core/errors';
import { createLlmClient } from '../../core/llm';
import { PROVIDER_LABELS, displayUrl, providerSettings } from '../../core/llm/provider-info';
import { secretValues } from '../../core/config/secrets';
import { rederiveImports } from '../../core/import';

type Level = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  level: Level;
  detail: string;
}

/** Free space below this is worth a warning: contexts grow with every message. */
const LOW_DISK_BYTES = 1 << 30;

export function registerDoctor(program: Command, output: Output): void {
  program
    .command('doctor')
    .description(
      'check the config, the contexts folder and tasks.db; repair what recovery can repair',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const checks: Check[] = [];
      const ctx = checkConfig(globals, checks);
      const root = ctx?.root ?? resolveContextsRoot(globals.contexts, process.env);
      checks.push(checkWritable(root));
      checkStore(root, checks);
      checks.push(await checkImports(root));
      checks.push(checkDisk(root));
      if (ctx) checks.push(await checkProvider(ctx));
      checks.push({
        name: 'runtime',
        level: 'ok',
        detail: `node ${process.versions.node}, ${process.platform} ${process.arch}`,
      });
      if (opts.json) printJson(output, { contexts: root, config: ctx?.configFile ?? null, checks });
      else for (const c of checks) output.out(`${c.level.padEnd(4)}  ${c.name}: ${c.detail}`);
      const failed = checks.filter((c) => c.level === 'fail').length;
      if (failed)
        throw new CwbError('bad_input', `${failed} check${failed === 1 ? '' : 's'} failed`);
    });
}

function checkConfig(globals: GlobalOptions, checks: Check[]): CliContext | undefined {
  try {
    const ctx = resolveContext(globals);
    checks.push({
      name: 'config',
      level: 'ok',
      detail: ctx.configFile
        ? `${ctx.configFile} (provider ${ctx.config.llm.provider})`
        : 'no config file; using defaults',
    });
    return ctx;
  } catch (err) {
    checks.push({ name: 'config', level: 'fail', detail: (err as Error).message });
    return undefined;
  }
}

/** Asks the configured provider for its models: a task cannot run if nobody answers. */
async function checkProvider(ctx: CliContext): Promise<Check> {
  const llm = ctx.config.llm;
  const settings = providerSettings(llm);
  const name = `provider ${PROVIDER_LABELS[llm.provider]}`;
  const client = createLlmClient(llm, { secrets: secretValues(ctx.config), pingTimeoutMs: 5000 });
  const result = await client.ping();
  if (!result.ok)
    return {
      name,
      level: 'warn',
      detail: `${displayUrl(settings.base_url)} does not answer: ${result.error}`,
    };
  const models = result.models ?? [];
  const model = settings.model;
  const known = model === null || models.length === 0 || models.includes(model);
  return {
    name,
    level: known ? 'ok' : 'warn',
    detail: `${displayUrl(settings.base_url)} answers (${models.length} models)${model ? `; model ${model}${known ? '' : ' is not among them'}` : '; no model configured'}`,
  };
}

function checkWritable(root: string): Check {
  const probe = path.join(root, `.doctor-${process.pid}`);
  try {
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
    return { name: 'contexts folder', level: 'ok', detail: `${root} is writable` };
  } catch (err) {
    return { name: 'contexts folder', level: 'fail', detail: `${root}: ${(err as Error).message}` };
  }
}

/** Titles and token totals of earlier imports, re-derived from their messages (idempotent). */
async function checkImports(root: string): Promise<Check> {
  let store: ContextStore;
  try {
    store = ContextStore.open(root);
  } catch (err) {
    return { name: 'imports', level: 'fail', detail: (err as Error).message };
  }
  try {
    const r = await rederiveImports(store);
    const fixed = [
      r.titles && `${r.titles} title(s)`,
      r.tokens && `${r.tokens} token total(s)`,
      r.branches && `${r.branches} branch(es)`,
    ].filter(Boolean);
    const detail =
      fixed.length > 0
        ? `re-derived from their files: ${fixed.join(', ')}`
        : 'nothing to re-derive';
    if (r.empty.length > 0)
      return {
        name: 'imports',
        level: 'warn',
        detail: `${detail}; ${r.empty.length} imported task(s) hold no message (an earlier version read their file as the wrong format: delete them and import the file again): ${r.empty.join(', ')}`,
      };
    return { name: 'imports', level: 'ok', detail };
  } finally {
    store.close();
  }
}

function checkStore(root: string, checks: Check[]): void {
  let store: ContextStore;
  try {
    store = ContextStore.open(root);
  } catch (err) {
    const name = process.env.CWB_INDEX_URL ? 'task index' : 'tasks.db';
    checks.push({ name, level: 'fail', detail: (err as Error).message });
    return;
  }
  const indexName = store.repo.kind === 'sqlite' ? 'tasks.db' : 'the task index';
  try {
    if (store.repo instanceof PgTaskRepository) checkPostgres(store.repo, checks);
    else checkSqlite(store, checks);
    const r = store.recovery;
    if (r && !reportIsClean(r)) {
      const parts = [
        r.interrupted.length &&
          `${r.interrupted.length} interrupted task(s) marked failed (resumable): ${r.interrupted.join(', ')}`,
        r.moved.length && `${r.moved.length} folder(s) moved to match ${indexName}`,
        r.rowsWithoutFolder.length &&
          `${r.rowsWithoutFolder.length} row(s) without a folder removed: ${r.rowsWithoutFolder.join(', ')}`,
        r.foldersWithoutRow.length &&
          `${r.foldersWithoutRow.length} folder(s) without a row indexed again: ${r.foldersWithoutRow.join(', ')}`,
        r.tornLines.length &&
          `${r.tornLines.length} torn line(s) moved aside: ${r.tornLines.map((t) => t.corruptPath).join(', ')}`,
      ].filter(Boolean);
      checks.push({ name: 'recovery', level: 'warn', detail: `repaired: ${parts.join('; ')}` });
    } else {
      checks.push({ name: 'recovery', level: 'ok', detail: `${indexName} and the folders agree` });
    }
    if (r?.heldElsewhere?.length) {
      checks.push({
        name: 'fleet',
        level: 'warn',
        detail: `${r.heldElsewhere.length} task folder(s) here belong to another contexts folder's rows (a copy?), left alone: ${r.heldElsewhere.join(', ')}`,
      });
    }
    if (store.interruptedElsewhere.length) {
      checks.push({
        name: 'fleet',
        level: 'warn',
        detail: `marked interrupted (their host's lease ran out): ${store.interruptedElsewhere.map((t) => `${t.uuid} on ${t.host}`).join(', ')}`,
      });
    }
  } finally {
    store.close();
  }
}

function checkSqlite(store: ContextStore, checks: Check[]): void {
  const integrity = store.db.pragma('quick_check', { simple: true }) as string;
  const mode = store.db.pragma('journal_mode', { simple: true }) as string;
  const sqlite = (store.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  const { total } = store.listTasks({ limit: 0 });
  checks.push({
    name: 'tasks.db',
    level: integrity === 'ok' && mode === 'wal' ? 'ok' : 'fail',
    detail: `schema v${SCHEMA_VERSION}, ${mode} journal, integrity ${integrity}, SQLite ${sqlite}, ${total} tasks`,
  });
}

/**
 * The fleet's PostgreSQL index: reachable, at this version's schema, with the trigram
 * search extension, writable by this role; and each host's lease.
 */
function checkPostgres(index: PgTaskRepository, checks: Check[]): void {
  const [info] = index.sql<{
    server: string;
    role: string;
    trgm: boolean;
    write: boolean;
    n: number;
  }>(
    `SELECT current_setting('server_version') AS server, current_user AS role,
       EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS trgm,
       has_table_privilege('tasks', 'INSERT, UPDATE, DELETE') AS write,
       (SELECT COUNT(*) FROM tasks)::bigint AS n`,
  );
  const version = index.schemaVersion();
  const problems = [
    version !== PG_SCHEMA_VERSION && `schema v${version}, expected v${PG_SCHEMA_VERSION}`,
    !info!.trgm && 'the pg_trgm extension is missing (search would scan)',
    !info!.write && `role ${info!.role} may not write the tasks table (a read-only role)`,
  ].filter(Boolean);
  checks.push({
    name: 'task index',
    level: problems.length ? 'fail' : 'ok',
    detail:
      `PostgreSQL ${info!.server} at ${index.location} as ${info!.role}, schema v${version}, ` +
      `${info!.n} tasks, this host ${index.host}${problems.length ? `: ${problems.join('; ')}` : ''}`,
  });
  checks.push(fleetFolders(index));
}

/**
 * Every contexts folder of every host and its lease (issue 29: a host may have several),
 * this one marked; hosts that have not opened since folders had ids by their old lease.
 */
function fleetFolders(index: PgTaskRepository): Check {
  const folders = index.folders();
  const withFolders = new Set(folders.map((f) => f.host));
  const older = index.hosts().filter((h) => !withFolders.has(h.name));
  const lease = (alive: boolean, lastSeen: string) =>
    alive ? 'alive' : `lease expired (last seen ${lastSeen})`;
  const byHost = new Map<string, string[]>();
  for (const f of folders) {
    const here = f.id === index.folderId ? ' (this folder)' : '';
    const line = `${f.contexts_root}${here} ${lease(f.alive, f.last_seen)}, ${f.tasks} tasks`;
    byHost.set(f.host, [...(byHost.get(f.host) ?? []), line]);
  }
  for (const h of older) {
    byHost.set(h.name, [
      `${h.contexts_root ?? '?'} ${lease(h.alive, h.last_seen)} (not opened since folders got ids)`,
    ]);
  }
  const dead = folders.some((f) => !f.alive) || older.some((h) => !h.alive);
  return {
    name: 'folders',
    level: dead ? 'warn' : 'ok',
    detail: [...byHost]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([host, lines]) => `${host}: ${lines.join(', ')}`)
      .join('; '),
  };
}

function checkDisk(root: string): Check {
  try {
    const s = fs.statfsSync(root);
    const free = s.bavail * s.bsize;
    const gib = (free / (1 << 30)).toFixed(1);
    return {
      name: 'disk',
      level: free < LOW_DISK_BYTES ? 'warn' : 'ok',
      detail: `${gib} GiB free`,
    };
  } catch (err) {
    return { name: 'disk', level: 'warn', detail: (err as Error).message };
  }
}
