import type { TaskRow } from '../../shared/task-types';
import { prepared } from '../db/prepared';
import type { Db } from '../db/open-database';
import { PgTaskRepository } from '../db/pg-task-repository';
import { TaskRepository } from '../db/task-repository';
import type { FigureColumn, NewTaskRow } from '../db/task-index';
import { isoTimestamp } from '../iso-timestamp';
import type { StagedHistoryTask } from '../store/staged-history-task';
import { runOnIndex } from './index-sql';
import { adoptWaitingChildren, waitForParent } from './waiting-children';
import type { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { PROMPT_MAX_CHARS, clip, titleFrom } from '../import/text';
import { repoKey, titleLine } from '../import/session-meta';
import { AGENT_OF_SOURCE } from '../store/task-import';
import { isSessionThread } from './session-document';
import type { ThreadInfo } from './sync-sink';

export interface SourceTaskInput {
  uuid: string;
  kind: string;
  file: string;
  thread: string;
  generation: number;
  info: ThreadInfo;
  parentUuid: string | null;
}

/** A source task opened by the sync of its session file. */
export interface SourceTask {
  task: TaskContextManager;
  /**
   * A task new to this sync, written under its staging name (StagedHistoryTask): the sync's
   * commit publishes it (publishSourceTask), or discards it when the sync fails before.
   */
  staged?: StagedHistoryTask;
}

/**
 * A source task: a completed task (so it can never be resumed as a run) that only the
 * sync of its session file appends to. A new one is staged, and published with the commit
 * of the sync that made it. One made running and then completed by an earlier version, and
 * cut off between the two, is completed here on the next sync.
 */
export function openSourceTask(store: ContextStore, input: SourceTaskInput): SourceTask {
  const row = store.repo.get(input.uuid);
  if (!row) {
    const info = input.info;
    // A session spawned by another (Codex's thread_spawn) is a subagent too.
    const isMain = isSessionThread(input.thread) && info.parentSessionId === undefined;
    const title = isMain
      ? (info.title ?? promptTitle(info) ?? null)
      : `Subagent: ${info.description ?? promptTitle(info) ?? info.sessionId ?? input.thread}`;
    const staged = store.stageHistoryTask({
      uuid: input.uuid,
      title,
      prompt: info.prompt !== undefined ? clip(info.prompt, PROMPT_MAX_CHARS) : null,
      workdir: info.workdir ?? null,
      model: info.model ?? null,
      parent_uuid: input.parentUuid,
      key: {
        task_source: input.kind,
        task_id: info.sessionId ?? '',
        task_type: isMain ? '' : 'subagent',
        ...repoKey(info.workdir, info.gitRemote),
      },
      source: {
        format: input.kind,
        file: input.file,
        live: true,
        thread: input.thread,
        generation: input.generation,
        session_id: info.sessionId ?? null,
        ...(info.agentId !== undefined && { agent_id: info.agentId }),
        ...(!isMain && { relation: 'subagent' }),
        ...(info.parentSessionId !== undefined && { parent_session_id: info.parentSessionId }),
      },
    });
    return { task: store.openStaged(staged.uuid, staged.staging), staged };
  }
  if (row.status !== 'completed') complete(store, row);
  // Written only by this sync, which commits after closing it: its lines are written together.
  return { task: store.openForMaintenance(input.uuid, { batched: true }) };
}

/** What a sync's commit knows of a new source task it publishes. */
export interface SourceTaskCommit {
  input: Pick<SourceTaskInput, 'kind' | 'thread' | 'parentUuid'>;
  /** What the session says of it, as describeSourceTask takes it. */
  info: ThreadInfo;
  isMain: boolean;
  /** Its row's figures as the sync counted them (addStats' increments, setFinalStats' values). */
  figures: Partial<Record<FigureColumn, number>>;
}

/**
 * In the sync's commit: a staged source task's row written and its folder given its uuid.
 * On tasks.db the row is written complete, as describeSourceTask and the figures' updates
 * would leave it (true: the caller writes neither); on a fleet index (false) it is written
 * as staged, and the caller describes it and writes its figures as for any source task.
 * Then the sub-agents waiting for it are linked, or it waits for its parent.
 */
export function publishSourceTask(
  store: ContextStore,
  staged: StagedHistoryTask,
  commit: SourceTaskCommit,
): boolean {
  const repo = store.repo;
  const complete = repo instanceof TaskRepository;
  if (complete) {
    const p = describeParams(staged.uuid, commit.info, commit.isMain, commit.input.kind);
    staged.publish((row) => {
      const now = isoTimestamp();
      const next = describedRow(repo.db, describedOf(row, now), p);
      repo.insertComplete(
        {
          ...row,
          title: next.title,
          prompt: next.prompt,
          model: next.model,
          workdir: next.workdir,
          parent_uuid: next.parent_uuid,
          key: {
            ...row.key,
            owner: next.owner ?? '',
            repo: next.repo ?? '',
            task_id: next.task_id ?? '',
          },
          created_at: next.created_at ?? now,
          started_at: next.started_at,
          completed_at: next.completed_at,
        },
        {
          agent: next.agent ?? '',
          git_branch: next.git_branch,
          updated_at: next.updated_at ?? now,
          figures: commit.figures,
        },
      );
    });
  } else staged.publish();
  linkWaiting(store, { ...commit.input, uuid: staged.uuid, info: commit.info });
  return complete;
}

/**
 * A new source task: a sub-agent whose parent's task is not there yet waits for it; a
 * session's task takes the sub-agents that waited for it (waiting-children.ts).
 */
function linkWaiting(
  store: ContextStore,
  input: Pick<SourceTaskInput, 'kind' | 'thread' | 'parentUuid' | 'uuid' | 'info'>,
): void {
  const { info, thread } = input;
  const session = isSessionThread(thread);
  const parentSession = info.parentSessionId ?? (session ? undefined : info.sessionId);
  if (input.parentUuid === null && parentSession !== undefined)
    waitForParent(store, input.kind, parentSession, input.uuid);
  if (session && info.sessionId !== undefined)
    adoptWaitingChildren(store, input.kind, info.sessionId, input.uuid);
}

function complete(store: ContextStore, row: TaskRow): void {
  store.repo.write(() => {
    store.repo.setStatus(row.uuid, 'completed', { process_id: null, hostname: null });
    store.move(row, 'completed');
  });
}

/**
 * What the session says about a task, written to its row after each sync: its own times,
 * the agent, and title, prompt, model, working directory, git branch and repository (git
 * remote, else the working directory's name: as `cwb import`) where the row has none yet.
 */
export function describeSourceTask(
  store: ContextStore,
  uuid: string,
  info: ThreadInfo,
  isMain: boolean,
  kind: string,
): void {
  const params = describeParams(uuid, info, isMain, kind);
  if (store.repo instanceof PgTaskRepository) {
    runOnIndex(store, DESCRIBE_SQL, params);
    return;
  }
  describeOnSqlite(store.db, params);
}

function describeParams(
  uuid: string,
  info: ThreadInfo,
  isMain: boolean,
  kind: string,
): DescribeParams {
  const repository = repoKey(info.workdir, info.gitRemote);
  return {
    uuid,
    // The agent's own title (Claude Code's summary) replaces the one from the prompt.
    title: isMain && info.parentSessionId === undefined ? (info.title ?? null) : null,
    // A real request read in a later sync replaces a title taken from the first prompt
    // (a bare slash command), as `cwb import` of the whole file titles it; a subagent
    // session keeps its agent's name.
    requestTitle:
      isMain && info.parentSessionId === undefined ? (titleLine(info.request) ?? null) : null,
    promptTitle: promptTitle(info) ?? null,
    prompt: info.prompt !== undefined ? clip(info.prompt, PROMPT_MAX_CHARS) : null,
    model: info.model ?? null,
    workdir: info.workdir ?? null,
    session: info.sessionId ?? null,
    first: info.firstTimestamp ?? null,
    last: info.lastTimestamp ?? null,
    agent: AGENT_OF_SOURCE[kind] ?? kind,
    kind,
    parentSession: info.parentSessionId ?? null,
    branch: info.gitBranch ?? null,
    owner: repository.owner ?? '',
    repo: repository.repo ?? '',
  };
}

/** describeSourceTask's values: text or null each (both indexes bind them as text). */
interface DescribeParams extends Record<string, string | null> {
  uuid: string;
  agent: string;
  kind: string;
  owner: string;
  repo: string;
}

const DESCRIBE_SQL = `UPDATE tasks SET
       title = COALESCE(@title, @requestTitle, title, @promptTitle),
       prompt = COALESCE(prompt, @prompt),
       model = COALESCE(model, @model),
       workdir = COALESCE(workdir, @workdir),
       agent = @agent,
       -- The session's git remote may be read after its working directory: it wins.
       git_branch = COALESCE(git_branch, @branch),
       owner = CASE WHEN @repo <> '' THEN @owner ELSE owner END,
       repo = CASE WHEN @repo <> '' THEN @repo ELSE repo END,
       task_id = CASE WHEN task_id = '' AND @session IS NOT NULL THEN @session ELSE task_id END,
       -- A subagent session synced before its parent's finds it once that is there.
       parent_uuid = COALESCE(parent_uuid, (SELECT p.uuid FROM tasks p
         WHERE @parentSession IS NOT NULL AND p.task_source = @kind AND p.task_id = @parentSession
         ORDER BY p.task_type <> '', p.created_at LIMIT 1)),
       created_at = COALESCE(@first, created_at),
       started_at = COALESCE(@first, started_at),
       completed_at = COALESCE(@last, completed_at),
       updated_at = COALESCE(@last, updated_at)
     WHERE uuid = @uuid`;

/** The columns describeSourceTask writes. */
const DESCRIBED = [
  'title',
  'prompt',
  'model',
  'workdir',
  'agent',
  'git_branch',
  'owner',
  'repo',
  'task_id',
  'parent_uuid',
  'created_at',
  'started_at',
  'completed_at',
  'updated_at',
] as const;
type Described = Record<(typeof DESCRIBED)[number], string | null>;

/**
 * DESCRIBE_SQL on tasks.db, setting only the columns whose value changes. SQLite rewrites an
 * index entry (and fires the search index's and the facet counts' triggers) for every column
 * a statement assigns, even to the value it has: assigning all of them after every sync of
 * every task was a large part of a first sync's commits (docs/benchmarks.md §14).
 */
function describeOnSqlite(db: Db, p: DescribeParams): void {
  const row = prepared(db, `SELECT ${DESCRIBED.join(', ')} FROM tasks WHERE uuid = ?`).get(
    p.uuid,
  ) as Described | undefined;
  if (!row) return;
  const next = describedRow(db, row, p);
  const changed = DESCRIBED.filter((column) => next[column] !== row[column]);
  if (changed.length === 0) return;
  const values: Record<string, string | null> = { uuid: p.uuid };
  for (const column of changed) values[column] = next[column];
  prepared(
    db,
    `UPDATE tasks SET ${changed.map((c) => `${c} = @${c}`).join(', ')} WHERE uuid = @uuid`,
  ).run(values);
}

/** A row's described columns as DESCRIBE_SQL leaves them. */
function describedRow(db: Db, row: Described, p: DescribeParams): Described {
  return {
    title: p.title ?? p.requestTitle ?? row.title ?? p.promptTitle ?? null,
    prompt: row.prompt ?? p.prompt ?? null,
    model: row.model ?? p.model ?? null,
    workdir: row.workdir ?? p.workdir ?? null,
    agent: p.agent,
    git_branch: row.git_branch ?? p.branch ?? null,
    owner: p.repo !== '' ? p.owner : row.owner,
    repo: p.repo !== '' ? p.repo : row.repo,
    task_id: row.task_id === '' && p.session != null ? p.session : row.task_id,
    parent_uuid: row.parent_uuid ?? parentOfSession(db, p),
    created_at: p.first ?? row.created_at,
    started_at: p.first ?? row.started_at,
    completed_at: p.last ?? row.completed_at,
    updated_at: p.last ?? row.updated_at,
  };
}

/** The described columns a staged row would have once inserted, its figures written `now`. */
function describedOf(row: NewTaskRow, now: string): Described {
  return {
    title: row.title ?? null,
    prompt: row.prompt ?? null,
    model: row.model ?? null,
    workdir: row.workdir ?? null,
    agent: '',
    git_branch: null,
    owner: row.key.owner,
    repo: row.key.repo,
    task_id: row.key.task_id,
    parent_uuid: row.parent_uuid ?? null,
    created_at: row.created_at ?? now,
    started_at: row.started_at ?? null,
    completed_at: row.completed_at ?? null,
    // The figures' updates set it to their time; the description then to the session's last.
    updated_at: now,
  };
}

/** A subagent session synced before its parent's finds it once that is there (as DESCRIBE_SQL). */
function parentOfSession(db: Db, p: DescribeParams): string | null {
  if (p.parentSession == null) return null;
  const parent = prepared(
    db,
    `SELECT p.uuid FROM tasks p WHERE p.task_source = @kind AND p.task_id = @parentSession
     ORDER BY p.task_type <> '', p.created_at LIMIT 1`,
  ).get({ kind: p.kind, parentSession: p.parentSession }) as { uuid: string } | undefined;
  return parent?.uuid ?? null;
}

/** The main task of the session a subagent file belongs to (newer Claude Code keeps them apart). */
export function findSessionTask(
  store: ContextStore,
  kind: string,
  sessionId: string | undefined,
  options: { anyType?: boolean } = {},
): string | null {
  if (sessionId === undefined) return null;
  // anyType: the parent may itself be a subagent's session (a subagent's subagent).
  const [row] = runOnIndex(
    store,
    `SELECT uuid FROM tasks WHERE task_source = @kind AND task_id = @session ${options.anyType ? '' : "AND task_type = ''"}
     ORDER BY task_type <> '', created_at, uuid LIMIT 1`,
    { kind, session: sessionId },
  ) as { uuid: string }[];
  return row?.uuid ?? null;
}

/** A title from what the person asked: the first real request, else the first prompt (as `cwb import`). */
function promptTitle(info: ThreadInfo): string | undefined {
  return titleLine(info.request) ?? titleFrom(info.prompt);
}
