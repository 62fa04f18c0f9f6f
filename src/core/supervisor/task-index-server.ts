import { StringDecoder } from 'node:string_decoder';
import type { Duplex } from 'node:stream';
import {
  taskIndexRequestSchema,
  type TaskIndexReply,
  type TaskIndexRequest,
} from '../../shared/task-index-protocol';
import { describeIssues } from '../../shared/api/validate-input';
import { CwbError } from '../errors';
import type { ContextStore } from '../store/context-store';

export interface TaskIndexServerOptions {
  /** The task the process runs: the only one whose row and folder it may change. */
  uuid: string;
  /** The process's id, recorded as the task's owner (never taken from a request). */
  processId: number | undefined;
  /** The host's store on the same contexts folder, opened when first needed. */
  store: () => ContextStore;
}

/** The longest request line taken (a task's metadata and prompt are in some). */
const MAX_REQUEST_CHARS = 16 * 1024 * 1024;

/**
 * The host's side of host-task-index.ts: answers one task process's index requests on the
 * pipe given to it as its extra stdio, one JSON line each way, in order. Each request runs
 * whole in this process (a row and its folder move in one transaction of this host's
 * store), so nothing waits on the task process while tasks.db is locked.
 */
export function serveTaskIndex(pipe: Duplex, options: TaskIndexServerOptions): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  pipe.on('data', (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let end: number;
    while ((end = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      pipe.write(`${JSON.stringify(answerTaskIndexRequest(line, options))}\n`);
    }
    if (pending.length > MAX_REQUEST_CHARS) {
      pending = '';
      pipe.destroy(new Error('index request too long'));
    }
  });
  // The process ended or closed its end: nothing to answer any more.
  pipe.on('error', () => undefined);
}

/** The reply to one request line: its value, or the error, never a throw. */
export function answerTaskIndexRequest(
  line: string,
  options: TaskIndexServerOptions,
): TaskIndexReply {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { ok: false, code: 'bad_input', message: `${where(options)}: ${firstLine(err)}` };
  }
  const parsed = taskIndexRequestSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, ...describeIssues(where(options), parsed.error) };
  try {
    const value = run(parsed.data, options);
    return value === undefined ? { ok: true } : { ok: true, value };
  } catch (err) {
    const code = err instanceof CwbError ? err.code : 'io';
    return { ok: false, code, message: firstLine(err) };
  }
}

function run(request: TaskIndexRequest, options: TaskIndexServerOptions): unknown {
  const store = options.store();
  const own = (uuid: string): string => {
    if (uuid !== options.uuid) {
      throw new CwbError(
        'conflict',
        `the process of task ${options.uuid} asked to change task ${uuid}, which is not its own`,
      );
    }
    return uuid;
  };
  const processId = options.processId ?? 0;
  switch (request.op) {
    case 'get':
      return store.repo.get(request.uuid) ?? null;
    case 'findPreviousByKey':
      return store.repo.findPreviousByKey(request.key, request.since, request.excludeUuid) ?? null;
    case 'addStats':
      return store.repo.addStats(own(request.uuid), request.inc);
    case 'setMetadata':
      return store.repo.setMetadata(own(request.uuid), request.metadata);
    case 'takeControl':
      return store.repo.takeControl(own(request.uuid));
    case 'createTaskFolder':
      own(request.input.uuid);
      return store.createTaskFolder(request.input, processId);
    case 'claimTaskFolder':
      return store.claimTaskFolder(own(request.uuid), processId);
    case 'moveTaskFolder':
      return store.moveTaskFolder(own(request.uuid), request.status, request.extra);
  }
}

function where(options: TaskIndexServerOptions): string {
  return `index request of the process of task ${options.uuid}`;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? '';
}
