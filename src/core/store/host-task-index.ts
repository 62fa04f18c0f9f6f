import fs from 'node:fs';
import type { TaskFacets } from '../../shared/api/tasks-api';
import type { TaskKey, TaskRow, TaskStatus } from '../../shared/task-types';
import type { TaskIndexReply, TaskIndexRequest } from '../../shared/task-index-protocol';
import { CwbError, notFound, type CwbErrorCode } from '../errors';
import { writeAllSync } from '../jsonl/write-all';
import { sleepSync } from '../sleep-sync';
import type {
  ControlAction,
  CostSum,
  FinalStats,
  ImportFix,
  ImportedFacts,
  ImportsToFix,
  ModelRate,
  NewTaskRow,
  StatIncrements,
  StatusExtra,
  TaskIndex,
  TaskOwner,
  TaskQuery,
} from '../db/task-index';
import type { FacetValues } from '../db/task-facets';
import type { TaskFilter } from '../db/task-filter';
import type { CreateTaskInput, EndStatus, TaskFolders, TransitionExtra } from './context-store';
import type { HourUsage } from '../usage/usage-hours';

/** What a task process falls back to: a store of its own on tasks.db (a ContextStore). */
export type LocalStore = TaskFolders & { readonly repo: TaskIndex; close(): void };

/**
 * The task index of a task process whose host keeps tasks.db open: each read or write of
 * its own task is one request to the host over a pipe of its own, answered before the call
 * returns (`fs.readSync` on the pipe waits), so the index stays synchronous as the store
 * needs. Why: tasks.db in the task process was SQLite's code, its symbol lookups and its
 * page cache, 3–4 MiB of a process that otherwise holds ~55 (issue #17). The host runs
 * each request whole, row and folder move in one transaction of its own.
 *
 * If the host goes away (its pipe closes), the task goes on: from then on the process opens
 * tasks.db itself (`openLocal`), as a detached task does. A write the host applied but
 * could not answer is then done again: a counter may count one step twice, never lose one.
 * Anything a task process does not ask its host for (listings, imports) goes to that local
 * index too, so nothing fails here, it only costs the memory.
 */
export class HostTaskIndex implements TaskIndex, TaskFolders {
  readonly kind = 'sqlite' as const;
  private local: LocalStore | undefined;
  private hostGone = false;
  private readonly buffer = Buffer.allocUnsafe(16 * 1024);

  constructor(
    /** This end of the pipe to the host: blocking, as Node gives a child its extra stdio. */
    private readonly fd: number,
    readonly location: string,
    private readonly openLocal: () => LocalStore,
  ) {}

  /** True once the host went away: from then on this process uses tasks.db itself. */
  get onItsOwn(): boolean {
    return this.hostGone;
  }

  get(uuid: string): TaskRow | undefined {
    return (this.ask({ op: 'get', uuid }, (l) => l.repo.get(uuid)) ?? undefined) as
      TaskRow | undefined;
  }

  require(uuid: string): TaskRow {
    const row = this.get(uuid);
    if (!row) throw notFound(`no task with id ${uuid}`);
    return row;
  }

  findPreviousByKey(key: TaskKey, since: string, excludeUuid?: string): TaskRow | undefined {
    return (this.ask(
      { op: 'findPreviousByKey', key, since, ...(excludeUuid !== undefined && { excludeUuid }) },
      (l) => l.repo.findPreviousByKey(key, since, excludeUuid),
    ) ?? undefined) as TaskRow | undefined;
  }

  addStats(uuid: string, inc: StatIncrements): void {
    this.ask({ op: 'addStats', uuid, inc }, (l) => l.repo.addStats(uuid, inc));
  }

  setMetadata(uuid: string, metadata: unknown): void {
    this.ask({ op: 'setMetadata', uuid, metadata }, (l) => l.repo.setMetadata(uuid, metadata));
  }

  takeControl(uuid: string): ControlAction | null {
    return (this.ask({ op: 'takeControl', uuid }, (l) => l.repo.takeControl(uuid)) ??
      null) as ControlAction | null;
  }

  createTaskFolder(input: CreateTaskInput & { uuid: string }, processId: number): string {
    return this.ask({ op: 'createTaskFolder', input: { ...input } }, (l) =>
      l.createTaskFolder(input, processId),
    ) as string;
  }

  claimTaskFolder(uuid: string, processId: number): string {
    return this.ask({ op: 'claimTaskFolder', uuid }, (l) =>
      l.claimTaskFolder(uuid, processId),
    ) as string;
  }

  moveTaskFolder(uuid: string, status: EndStatus, extra: TransitionExtra = {}): string {
    return this.ask({ op: 'moveTaskFolder', uuid, status, extra }, (l) =>
      l.moveTaskFolder(uuid, status, extra),
    ) as string;
  }

  /**
   * A transaction cannot span requests to the host: the store asks its host for whole
   * changes instead (TaskFolders). Only once on its own does a task process run its own.
   */
  write<T>(fn: () => T): T {
    if (this.hostGone) return this.localIndex().repo.write(fn);
    throw new CwbError(
      'usage',
      'a task process whose host keeps the task index cannot open a write transaction of its own',
    );
  }

  // Not asked of a host: a task process has no use for these, so they open tasks.db here.
  insert(row: NewTaskRow): void {
    this.localIndex().repo.insert(row);
  }
  insertRow(row: TaskRow): void {
    this.localIndex().repo.insertRow(row);
  }
  insertRows(rows: Iterable<TaskRow>): void {
    this.localIndex().repo.insertRows(rows);
  }
  setStatus(uuid: string, status: TaskStatus, extra?: StatusExtra): void {
    this.localIndex().repo.setStatus(uuid, status, extra);
  }
  setFinalStats(uuid: string, stats: FinalStats): void {
    this.localIndex().repo.setFinalStats(uuid, stats);
  }
  setImportedFacts(uuid: string, facts: ImportedFacts): void {
    this.localIndex().repo.setImportedFacts(uuid, facts);
  }
  addUsageHours(uuid: string, hours: readonly HourUsage[]): void {
    this.localIndex().repo.addUsageHours(uuid, hours);
  }
  importsToFix(): ImportsToFix {
    return this.localIndex().repo.importsToFix();
  }
  fixImport(uuid: string, fix: ImportFix): void {
    this.localIndex().repo.fixImport(uuid, fix);
  }
  requestControl(uuid: string, action: ControlAction): void {
    this.localIndex().repo.requestControl(uuid, action);
  }
  delete(uuid: string): void {
    this.localIndex().repo.delete(uuid);
  }
  allStatuses(): Map<string, TaskOwner> {
    return this.localIndex().repo.allStatuses();
  }
  query(q?: TaskQuery): { rows: TaskRow[]; total: number } {
    return this.localIndex().repo.query(q);
  }
  endedBefore(cutoff: string): TaskRow[] {
    return this.localIndex().repo.endedBefore(cutoff);
  }
  statusCounts(filter: TaskFilter): TaskFacets['status'] {
    return this.localIndex().repo.statusCounts(filter);
  }
  facetValues(maxValues?: number): FacetValues {
    return this.localIndex().repo.facetValues(maxValues);
  }
  distinctModels(): (string | null)[] {
    return this.localIndex().repo.distinctModels();
  }
  sumCost(filter: TaskFilter, rates: readonly ModelRate[]): CostSum {
    return this.localIndex().repo.sumCost(filter, rates);
  }
  stamp(): string {
    return this.localIndex().repo.stamp();
  }

  /** Closes tasks.db if this process opened it (a later call opens it again). */
  close(): void {
    const local = this.local;
    this.local = undefined;
    local?.close();
  }

  private localIndex(): LocalStore {
    this.local ??= this.openLocal();
    return this.local;
  }

  /** One request answered by the host, or by `onItsOwn` once the host has gone away. */
  private ask(request: TaskIndexRequest, onItsOwn: (local: LocalStore) => unknown): unknown {
    if (this.hostGone) return onItsOwn(this.localIndex());
    let reply: TaskIndexReply;
    try {
      writeAllSync(this.fd, Buffer.from(`${JSON.stringify(request)}\n`, 'utf8'));
      reply = this.readReply();
    } catch (err) {
      if (!isHostGone(err)) throw err;
      this.hostGone = true;
      return onItsOwn(this.localIndex());
    }
    if (!reply.ok) throw new CwbError(reply.code as CwbErrorCode, reply.message);
    return reply.value;
  }

  private readReply(): TaskIndexReply {
    const parts: Buffer[] = [];
    for (;;) {
      const n = readWaiting(this.fd, this.buffer);
      if (n === 0)
        throw Object.assign(new Error('the host closed the index pipe'), { code: 'EOF' });
      const end = this.buffer.indexOf(0x0a);
      if (end === -1 || end >= n) {
        parts.push(Buffer.from(this.buffer.subarray(0, n)));
        continue;
      }
      if (end !== n - 1) throw new Error('the host answered more than it was asked');
      parts.push(this.buffer.subarray(0, end));
      return parseReply(Buffer.concat(parts).toString('utf8'));
    }
  }
}

/** A read that waits for data, also on a pipe that happens to be non-blocking. */
function readWaiting(fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return fs.readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      sleepSync(1);
    }
  }
}

function parseReply(text: string): TaskIndexReply {
  const reply = JSON.parse(text) as unknown;
  if (typeof reply === 'object' && reply !== null && 'ok' in reply) {
    const r = reply as { ok: unknown; code?: unknown; message?: unknown };
    if (r.ok === true) return reply as TaskIndexReply;
    if (r.ok === false && typeof r.code === 'string' && typeof r.message === 'string') {
      return { ok: false, code: r.code, message: r.message };
    }
  }
  throw new Error(`the host's index answered something else than a reply: ${text.slice(0, 200)}`);
}

const HOST_GONE_CODES = new Set(['EOF', 'EPIPE', 'ECONNRESET', 'ENOTCONN']);

function isHostGone(err: unknown): boolean {
  return HOST_GONE_CODES.has(String((err as NodeJS.ErrnoException).code));
}
