import path from 'node:path';
import type {
  SearchSessionsInput,
  SessionSearchHit,
  SessionSearchResult,
} from '../../shared/api/search-api';
import type { TaskRow } from '../../shared/task-types';
import { badInput } from '../errors';
import type { Db } from '../db/open-database';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { parseEntry } from '../store/message-window';
import { indexedText } from './message-text';
import { pendingTasks, SEQ_SPAN, type TaskDirOf } from './message-index';
import { matchExpression, planSearch, type SearchPlan } from './search-query';

const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 100;
/** Candidates an exact search checks at most (each read from its task's file). */
const MAX_EXACT_CANDIDATES = 2000;

export type SearchOptions = Required<Pick<SearchSessionsInput, 'query' | 'exact' | 'limit'>> &
  Omit<SearchSessionsInput, 'query' | 'exact' | 'limit'>;

interface TaskInfo extends Pick<TaskRow, 'uuid' | 'status' | 'title' | 'agent' | 'repository'> {
  index?: OffsetIndex;
  dir?: string;
}

/**
 * Searches every task's messages through messages_search: newest tasks first (highest rowid)
 * and each task's matches in seq order within a page. Filters on the task (agent,
 * repository, last activity) go to tasks.db; role and tool are columns of the index. Each
 * hit's snippet is read from the task's messages.jsonl (the index holds no text).
 */
export function searchSessions(
  db: Db,
  dirOf: TaskDirOf,
  options: SearchOptions,
): SessionSearchResult {
  const plan = planSearch(options.query, options.exact);
  if (!plan)
    throw badInput(`search: ${JSON.stringify(options.query)} has no letters or digits to look for`);
  const { sql, params } = taskCondition(options);
  // An exact search asks for more candidates each round only when the last round's failed
  // the check: most candidates of a path or identifier contain it, and every row FTS5
  // returns costs a phrase match over large posting lists (4× the limit at once was ~3×
  // the time of a search at 1,000,000 messages, bench group 15).
  let page = options.limit + 1;
  const statement = db.prepare(
    `SELECT rowid AS id FROM messages_search
     WHERE messages_search MATCH @match ${sql} AND rowid < @before
     ORDER BY rowid DESC LIMIT @page`,
  );
  const tasks = new Map<number, TaskInfo | null>();
  const taskOf = db.prepare(
    'SELECT uuid, status, title, agent, repository FROM tasks WHERE rowid = ?',
  );
  const hits: SessionSearchHit[] = [];
  let before = Number.MAX_SAFE_INTEGER;
  let checked = 0;
  let more = false;
  try {
    outer: for (;;) {
      const ids = (
        statement.all({ ...params, match: matchExpression(plan, options), before, page }) as {
          id: number;
        }[]
      ).map((r) => r.id);
      for (const id of ids) {
        before = id;
        if (hits.length >= options.limit) {
          more = true;
          break outer;
        }
        checked++;
        const hit = hitOf(id, plan, tasks, taskOf, dirOf);
        if (hit) hits.push(hit);
      }
      if (ids.length < page || (options.exact && checked >= MAX_EXACT_CANDIDATES)) {
        more = more || ids.length === page;
        break;
      }
      page = Math.min(page * 4, MAX_EXACT_CANDIDATES);
    }
  } finally {
    for (const t of tasks.values()) t?.index?.close();
  }
  return { hits: inTaskOrder(hits), more, pending: pendingTasks(db) };
}

/** Keeps the tasks newest first and puts each task's hits in seq order. */
export function inTaskOrder(hits: SessionSearchHit[]): SessionSearchHit[] {
  const order = new Map<string, number>();
  hits.forEach((h) => order.set(h.uuid, order.get(h.uuid) ?? order.size));
  return hits.sort((a, b) => order.get(a.uuid)! - order.get(b.uuid)! || a.seq - b.seq);
}

/** Task filters as a condition on the message rowid (a task's messages share its rowid's span). */
function taskCondition(o: SearchOptions): { sql: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (o.agent !== undefined) {
    where.push('agent = @agent');
    params.agent = o.agent;
  }
  if (o.repo) {
    where.push('(repo = @repo OR repository = @repo)');
    params.repo = o.repo;
  }
  if (o.folder) {
    where.push('(workdir = @folder OR substr(workdir, 1, length(@below)) IN (@below, @belowWin))');
    Object.assign(params, folderParams(o.folder));
  }
  if (o.since) {
    where.push('updated_at >= @since');
    params.since = o.since;
  }
  if (where.length === 0) return { sql: '', params };
  return {
    sql: `AND (rowid / ${SEQ_SPAN}) IN (SELECT rowid FROM tasks WHERE ${where.join(' AND ')})`,
    params,
  };
}

/**
 * The folder filter's values: the folder itself, or a path below it with either separator;
 * compared with substr, not LIKE, so `_` and `%` in a path are plain.
 */
export function folderParams(input: string): { folder: string; below: string; belowWin: string } {
  const folder = input.replace(/(?<=.)[/\\]+$/, '');
  const root = /[/\\]$/.test(folder);
  return {
    folder,
    below: root ? folder : `${folder}/`,
    belowWin: root ? folder : `${folder}\\`,
  };
}

function hitOf(
  id: number,
  plan: SearchPlan,
  tasks: Map<number, TaskInfo | null>,
  taskOf: { get(task: number): unknown },
  dirOf: TaskDirOf,
): SessionSearchHit | undefined {
  const taskRowid = Math.floor(id / SEQ_SPAN);
  const seq = id - taskRowid * SEQ_SPAN;
  let task = tasks.get(taskRowid);
  if (task === undefined) {
    task = (taskOf.get(taskRowid) as TaskInfo | undefined) ?? null;
    tasks.set(taskRowid, task);
  }
  if (!task) return undefined;
  const message = readMessage(task, seq, dirOf);
  if (!message) {
    // The file is away (the task moving between folders): the hit still counts, unmarked.
    if (plan.exact) return undefined;
    return { ...facts(task, seq), snippet: '', match: null, role: '', tool: null, timestamp: null };
  }
  const text = indexedText(message);
  const at =
    plan.exact !== undefined ? exactAt(text.body, plan.exact) : wordAt(text.body, plan.words);
  if (plan.exact !== undefined && !at) return undefined;
  return {
    ...facts(task, seq),
    ...snippetOf(text.body, at),
    role: text.role,
    tool: text.tool || null,
    timestamp: message.timestamp ?? null,
  };
}

function facts(task: TaskInfo, seq: number) {
  return {
    uuid: task.uuid,
    seq,
    title: task.title,
    agent: task.agent ?? '',
    repository: task.repository || null,
  };
}

function readMessage(task: TaskInfo, seq: number, dirOf: TaskDirOf) {
  try {
    if (!task.index) {
      task.dir = dirOf(task);
      const file = path.join(task.dir, TASK_FILES.messages);
      task.index = OffsetIndex.open(file, path.join(task.dir, TASK_FILES.messagesIndex), {
        readonly: true,
      });
    }
    if (seq > task.index.count) return undefined;
    const file = path.join(task.dir!, TASK_FILES.messages);
    // The line's own bytes only (a message is ~1 KiB; the reader's chunk is 64 KiB).
    const end = seq < task.index.count ? task.index.offsetOf(seq + 1) : undefined;
    for (const entry of readLinesSync(file, {
      start: task.index.offsetOf(seq),
      ...(end !== undefined && { end }),
      firstLineNo: seq,
    })) {
      const parsed = parseEntry(entry, file, asMessageRecord);
      return parsed.ok ? parsed.value : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function exactAt(body: string, exact: string): [number, number] | undefined {
  const i = body.indexOf(exact);
  return i < 0 ? undefined : [i, i + exact.length];
}

/** The first place one of the words starts a word of the text (case-insensitive). */
export function wordAt(body: string, words: readonly string[]): [number, number] | undefined {
  const lower = body.toLowerCase();
  let best: [number, number] | undefined;
  for (const w of words) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u');
    const m = re.exec(lower);
    if (m && (!best || m.index < best[0])) best = [m.index, m.index + w.length];
  }
  return best;
}

export function snippetOf(
  body: string,
  at: [number, number] | undefined,
): { snippet: string; match: [number, number] | null } {
  const [start, end] = at ?? [0, 0];
  const from = Math.max(0, start - SNIPPET_BEFORE);
  const to = Math.min(body.length, end + SNIPPET_AFTER);
  const lead = from > 0 ? '…' : '';
  const raw = body.slice(from, to).replace(/[\s\0]/g, ' ');
  const snippet = `${lead}${raw}${to < body.length ? '…' : ''}`;
  return { snippet, match: at ? [start - from + lead.length, end - from + lead.length] : null };
}
