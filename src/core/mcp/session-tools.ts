import path from 'node:path';
import type { ApiResult } from '../../shared/api/api-result';
import type { CompactionList } from '../../shared/api/compaction-api';
import type { MessagesPage, SearchResult } from '../../shared/api/messages-api';
import type {
  SearchSessionsInput,
  SessionSearchHit,
  SessionSearchResult,
} from '../../shared/api/search-api';
import type { TaskListRow, TasksPage } from '../../shared/api/tasks-api';
import type { MessageRecord } from '../../shared/task-types';
import { MAX_INLINE_BYTES } from '../tools/output-limits';

/**
 * The MCP server's tools (`cwb mcp`), read-only, over the workbench API: every call goes
 * through `invoke` (the service's, the same contract IPC and HTTP serve), so the MCP server is
 * a third transport and adds no engine code of its own. Outputs are plain text held to
 * history_recall's budget, with secrets scrubbed by the caller.
 */

export type Invoke = (name: string, input: unknown) => Promise<ApiResult<unknown>>;

/** As history_recall: the output stays under the inline limit by itself. */
export const MCP_OUTPUT_BUDGET_BYTES = MAX_INLINE_BYTES - 1024;
const SNIPPET_CHARS = 400;

export class ToolFailure extends Error {}

async function call<T>(invoke: Invoke, name: string, input: unknown): Promise<T> {
  const result = await invoke(name, input);
  if (!result.ok) throw new ToolFailure(`${name}: ${result.error.message}`);
  return result.value as T;
}

/** Who is calling: an agent's session id (Claude Code, Codex) and/or its working directory. */
export interface Caller {
  session_id?: string | undefined;
  cwd?: string | undefined;
}

const SCAN_PAGES = 5;
const PAGE = 1000;

/** Synced sessions, newest first, that belong to `cwd` (the folder or one inside it). */
async function sessionsOf(invoke: Invoke, filter: (row: TaskListRow) => boolean) {
  const rows: TaskListRow[] = [];
  for (let page = 0; page < SCAN_PAGES; page++) {
    const got = await call<TasksPage>(invoke, 'queryTasks', {
      sort: 'updated_at',
      order: 'desc',
      limit: PAGE,
      offset: page * PAGE,
    });
    rows.push(...got.rows.filter(filter));
    if (got.rows.length < PAGE) break;
  }
  return rows;
}

function inFolder(row: TaskListRow, cwd: string | undefined): boolean {
  if (!cwd || !row.workdir) return !cwd;
  const rel = path.relative(path.resolve(cwd), path.resolve(row.workdir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The calling session: by the agent's session id, else the newest session in its folder. */
export async function findSession(invoke: Invoke, caller: Caller): Promise<TaskListRow> {
  if (caller.session_id) {
    const [row] = await sessionsOf(invoke, (r) => r.task_id === caller.session_id);
    if (row) return row;
    if (!caller.cwd) {
      throw new ToolFailure(
        `no synced session has the id ${caller.session_id}: is its agent's folder a source (cwb sources list)?`,
      );
    }
  }
  if (!caller.cwd) throw new ToolFailure('give session_id or cwd to say which session');
  const [row] = await sessionsOf(
    invoke,
    (r) => r.agent !== '' && r.workdir === path.resolve(caller.cwd!),
  );
  if (!row) throw new ToolFailure(`no synced session ran in ${caller.cwd}`);
  return row;
}

function line(m: MessageRecord): string {
  const calls = (m.tool_calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments})`);
  return [m.content ?? '', ...calls].filter(Boolean).join('\n');
}

/** Blocks in order while they fit the budget; the last line says how to continue. */
function fitted(blocks: string[], more: (shown: number) => string | undefined): string {
  const out: string[] = [];
  let bytes = 0;
  for (const block of blocks) {
    const size = Buffer.byteLength(block) + 2;
    if (bytes + size > MCP_OUTPUT_BUDGET_BYTES - 512) {
      if (out.length === 0) out.push(`${block.slice(0, Math.floor(MCP_OUTPUT_BUDGET_BYTES / 4))}…`);
      break;
    }
    out.push(block);
    bytes += size;
  }
  const note = more(out.length);
  return note ? `${out.join('\n\n')}\n\n${note}` : out.join('\n\n');
}

function header(m: MessageRecord): string {
  const tags = [
    m.kind && m.kind !== 'message' ? m.kind : '',
    m.history_only ? 'removed from the context' : '',
  ]
    .filter(Boolean)
    .join('; ');
  return `#${m.seq} ${m.role}${m.tool_name ? ` (${m.tool_name})` : ''}${tags ? ` [${tags}]` : ''}`;
}

/** Messages from..to of a session as text blocks. */
export async function readWindow(
  invoke: Invoke,
  uuid: string,
  from: number,
  to: number,
): Promise<string> {
  const limit = Math.max(0, Math.min(200, to - from + 1));
  const page = await call<MessagesPage>(invoke, 'readMessages', {
    uuid,
    view: 'history',
    from,
    limit,
  });
  if (page.view !== 'history') throw new ToolFailure('unexpected page');
  const messages = page.messages.filter((m) => m.seq <= to);
  if (messages.length === 0) return `no messages from #${from} (the session has ${page.total})`;
  return fitted(
    messages.map((m) => `${header(m)}\n${line(m)}`),
    (shown) => {
      const last = messages[shown - 1]?.seq ?? from;
      const end = Math.min(to, page.total);
      return last < end
        ? `[#${from}-#${last} shown; continue with from_seq=${last + 1}]`
        : undefined;
    },
  );
}

/** Matches of `query` in messages of a session up to `toSeq`, newest last. */
export async function searchSession(
  invoke: Invoke,
  uuid: string,
  query: string,
  toSeq: number | undefined,
  limit: number,
): Promise<{ lines: string[]; more: boolean }> {
  const lines: string[] = [];
  let fromSeq = 1;
  for (let round = 0; round < 50 && lines.length < limit; round++) {
    const result = await call<SearchResult>(invoke, 'searchMessages', {
      uuid,
      query,
      fromSeq,
      limit: Math.min(200, limit - lines.length),
    });
    for (const hit of result.hits) {
      if (toSeq !== undefined && hit.seq > toSeq) return { lines, more: false };
      lines.push(
        `#${hit.seq} ${hit.role}: ${hit.snippet.replace(/\s+/g, ' ').slice(0, SNIPPET_CHARS)}`,
      );
    }
    if (result.nextSeq === null) return { lines, more: false };
    fromSeq = result.nextSeq;
  }
  return { lines, more: true };
}

/** Matches across sessions through the search index (the `searchSessions` operation). */
export function searchAllSessions(
  invoke: Invoke,
  input: SearchSessionsInput,
): Promise<SessionSearchResult> {
  return call<SessionSearchResult>(invoke, 'searchSessions', input);
}

/** One block per session (newest first): a line naming it, then its matches by seq. */
export function hitBlocks(hits: readonly SessionSearchHit[]): string[] {
  const bySession = new Map<string, SessionSearchHit[]>();
  for (const hit of hits) {
    const group = bySession.get(hit.uuid);
    if (group) group.push(hit);
    else bySession.set(hit.uuid, [hit]);
  }
  return [...bySession.values()].map((group) => {
    const first = group[0]!;
    const title = (first.title ?? '').replace(/\s+/g, ' ').slice(0, 100);
    const head = [first.uuid, first.agent || 'workbench', first.repository ?? '', title]
      .filter(Boolean)
      .join('  ');
    const lines = group.map(
      (h) =>
        `#${h.seq} ${h.role || '?'}${h.tool ? ` (${h.tool})` : ''}: ${h.snippet.replace(/\s+/g, ' ').slice(0, SNIPPET_CHARS)}`,
    );
    return `${head}\n${lines.join('\n')}`;
  });
}

/** The last seq the session's compactions took out of its context (0: none did). */
export async function removedThrough(invoke: Invoke, uuid: string): Promise<number> {
  const list = await call<CompactionList>(invoke, 'listCompactions', { uuid });
  return list.records
    .filter((r) => !r.undone)
    .reduce((max, r) => Math.max(max, r.through_seq ?? r.end_seq), 0);
}

export function sessionLine(row: TaskListRow): string {
  const title = (row.title ?? row.prompt_preview ?? '').replace(/\s+/g, ' ').slice(0, 100);
  return `${row.uuid}  ${row.agent || 'workbench'}  ${row.updated_at.slice(0, 16)}  ${row.total_messages} messages  ${row.workdir ?? row.repository}  ${title}`;
}

export { sessionsOf, inFolder, fitted };
