import { figuresOf, writeRowStats, type RowTotals } from './row-stats';
import { HourlyUsage } from '../usage/usage-hours';
import type { FinalStats } from '../db/task-index';
import fs from 'node:fs';
import path from 'node:path';
import type { TokenUsage } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import type { TaskContextManager } from '../store/task-context-manager';
import { fileTimes } from '../import/text';
import { eventFolderSource, jsonlSource, type EntrySource } from './entry-source';
import { stableUuid } from './fingerprint';
import type { SourceKind } from './source-kinds';
import { adoptDocumentState, isSessionThread, readDocument } from './session-document';
import {
  describeSourceTask,
  findSessionTask,
  openSourceTask,
  publishSourceTask,
} from './source-tasks';
import type { StagedHistoryTask } from '../store/staged-history-task';
import {
  MAIN,
  type CreateEntryMapper,
  type EntryRef,
  type SyncSink,
  type ThreadInfo,
} from './sync-sink';
import { SyncStateRepository, type SourceFileRow } from './sync-state';
import { isoTimestamp } from '../iso-timestamp';
import type { SessionEvent } from '../import/session-format';
import {
  isStoreUnit,
  storeSession,
  StoreUnavailable,
  syncStore,
  type SessionStore,
} from './sync-store';
import type { NewMessage } from '../store/message-store';
import {
  agentCompactionRecord,
  newAgentContext,
  newMessageTokens,
  noteMessage,
  type AgentContextState,
} from '../import/agent-compaction';

/**
 * How long a session file must have been still before a sync takes its last reply as
 * complete: the entries held back are written and calls still without a result recorded.
 */
export const QUIET_MS = 5000;

/** How long a sync reads entries before it lets the event loop run. */
const EVENT_LOOP_TURN_MS = 20;
/**
 * When a sync last let the event loop run: shared by the files one sync reads in turn, so a
 * pass over many short sessions gives the loop its turns as one long session does.
 */
let lastTurn = performance.now();

/** Saved with the offset: the mapper's state and, per thread, its task and counts. */
interface FileState {
  mapper: unknown;
  threads: Record<
    string,
    {
      uuid: string;
      messages: number;
      tools: number;
      /** Provider usage was counted: estimates of the text are no longer added. */
      usage?: boolean;
      /** Estimated tokens added as the total while the session had shown no usage. */
      estimated?: number;
      /** Summary records (the agent's own compactions), and the segment since the last one. */
      summaries?: number;
      segmentStart?: number;
      segmentTokens?: number;
      /** Messages up to this seq were marked history-only after the agent's own compaction. */
      historyThrough?: number;
      /** Seqs that stay in the context whatever the agent compacts (its system prompt). */
      pinned?: number[];
      /** Fleet index: the row's counters as the syncs counted them (row-stats.ts). */
      totals?: RowTotals;
      /** The agent's context as its own compactions left it (import/agent-compaction.ts). */
      context?: AgentContextState;
    }
  >;
  info: Record<string, ThreadInfo>;
  skipped: number;
  /** Entries the mapper held back (a reply that may still grow): read again first next time. */
  held?: EntryRef[];
}

/** The range a sync claimed (source_files.pending), so a sync cut short is redone as it was. */
interface Pending {
  start: number;
  end: number;
  /** The file had been still: held entries are written, open calls recorded. */
  final?: boolean;
}

export type SyncStatus = 'synced' | 'unchanged' | 'busy' | 'missing' | 'error';

export interface SyncFileResult {
  path: string;
  kind: string;
  status: SyncStatus;
  /** Messages written by this sync. */
  messages: number;
  /** Tasks that got messages or changed. */
  uuids: string[];
  /** Something waits for the file to be still (a reply held back, calls without a result). */
  held?: boolean;
  error?: string;
  notice?: string;
}

export interface SyncFileOptions {
  /** Tests: runs after the messages are written, before the offset is recorded. */
  beforeCommit?: () => void;
  /** Tests: runs once the offset is recorded and the lease given back (another sync may start). */
  afterCommit?: () => Promise<void>;
  /** How long the file must have been still for its last reply to count as complete. */
  quietMs?: number;
  /** A store already open (syncStore passes it to the syncs of its sessions). */
  store?: SessionStore;
  /** How long the sync reads before the event loop gets a turn (EVENT_LOOP_TURN_MS; tests: 0). */
  eventLoopTurnMs?: number;
}

type Reading =
  | { mode: 'entries'; source: EntrySource; mapper: CreateEntryMapper }
  | {
      mode: 'document';
      stat: DocumentStat;
      /** `final`: the document has been still (a store leaves out a reply still being written otherwise). */
      parse(final: boolean): AsyncIterable<SessionEvent>;
      /** Read before it was still, it is read once more when it is (a store leaves out what is being written). */
      settles?: boolean;
    };

/**
 * What tells a document (a file, or one session of a store) changed: its size (bytes, or a
 * store's row count), modification time (a store's newest update) and identity.
 */
interface DocumentStat {
  size: number;
  mtimeMs: number;
  ino: string;
  /** The session's times where it names none (the file's birth and modification). */
  times: { created_at: string; completed_at: string };
}

/**
 * Reads what is new in one session file into its tasks, exactly once.
 *
 * Order (what makes a crash at any point recoverable exactly):
 * 1. claim (IMMEDIATE transaction): take the file's lease and record the range about to be
 *    read as `pending` — [offset, size) of the file now (bytes; event numbers for an events
 *    folder) — and whether the file has been still (`final`: the held reply is complete);
 * 2. append the range's messages to the tasks' files;
 * 3. commit (one transaction): offset = end of the last complete line, the counts of each
 *    task, the mapper's state, statistics of the rows; pending and lease cleared.
 * A process killed in step 2 leaves `pending`. The next sync (any process, once the lease's
 * process is gone) reads exactly that range again from the same saved state — the mapper is
 * deterministic — and skips, per task, the messages and tool records the task already has
 * beyond the counts committed at step 3 of the previous sync; then commits as usual.
 *
 * A file whose bytes already read changed (fingerprint) or that shrank was replaced or
 * truncated: it is read again from the start into new tasks (a new generation); the
 * earlier tasks are kept as they are and the row's notice says so. A file replaced by one
 * with the same bytes (a new inode) just goes on.
 */
export async function syncFile(
  store: ContextStore,
  kind: SourceKind,
  file: string,
  options: SyncFileOptions = {},
): Promise<SyncFileResult> {
  // A store file (a database): its sessions that changed, each a source of its own.
  if (kind.reader.mode === 'store' && !isStoreUnit(file))
    return syncStore(store, kind, kind.reader.open, file, options, syncFile);
  const repo = new SyncStateRepository(store.sourcesDb);
  const base = { path: file, kind: kind.id, messages: 0, uuids: [] as string[] };
  let known = repo.get(file);
  let reading: Reading;
  try {
    // The offset only tells an events folder which of its files may be new (their times).
    reading = open(kind, file, known?.offset ?? 0, options.store);
  } catch {
    if (known && known.error === null) repo.update(file, { error: 'the file is gone' });
    return { ...base, status: 'missing', error: 'the file is gone' };
  }
  if (!known && reading.mode === 'entries' && reading.source.unit === 'bytes')
    known = adoptMoved(repo, kind, file, reading.source);
  if (!known && reading.mode === 'document') known = adoptEarlierCopy(repo, kind, file);
  let size = 0;
  let mtimeMs = 0;
  let ino = '';
  let quiet = false;
  const measure = (): void => {
    size = reading.mode === 'entries' ? reading.source.size : reading.stat.size;
    mtimeMs = reading.mode === 'entries' ? reading.source.mtimeMs : reading.stat.mtimeMs;
    ino = reading.mode === 'entries' ? reading.source.ino : String(reading.stat.ino);
    // Still for a while: what waited for more (a reply held back, open calls) is complete.
    quiet = Date.now() - mtimeMs >= (options.quietMs ?? QUIET_MS);
  };
  measure();
  const printOf = (offset: number): string =>
    reading.mode === 'entries' ? reading.source.fingerprint(offset) : '';
  const documentMode = reading.mode === 'document';
  if (
    known &&
    known.pending === null &&
    known.offset === size &&
    known.inode === ino &&
    known.mtime_ms === mtimeMs &&
    !(known.held === 1 && quiet)
  )
    return { ...base, status: 'unchanged', held: known.held === 1 };

  let notice: string | undefined;
  const claimed = repo.claim(
    file,
    kind.id,
    (row): (Pending & { recovering: boolean }) | undefined => {
      // Another process may have read further (or left a pending range) since the look
      // above: look again now that the file is ours.
      if (!documentMode) {
        try {
          reading = open(kind, file, row.offset, options.store);
          measure();
        } catch {
          // gone meanwhile: the read below fails and says so
        }
      }
      if (documentMode) {
        // Rewritten whole on every change: read whole; stable message keys say what is new.
        const recovering = row.pending !== null;
        const final = recovering ? (JSON.parse(row.pending!) as Pending).final : quiet;
        const pending: Pending = { start: 0, end: size, ...(final && { final }) };
        repo.update(file, { pending: JSON.stringify(pending) });
        return { ...pending, recovering };
      }
      const unchanged = row.offset === 0 || row.fingerprint === printOf(row.offset);
      if (row.pending !== null) {
        const pending = JSON.parse(row.pending) as Pending;
        if (size >= pending.end && unchanged) return { ...pending, recovering: true };
        // Replaced while a sync was cut short: what was written stays, a new generation starts.
      } else if (row.offset <= size && unchanged) {
        // Nothing new: only a file still for long enough has something to finish.
        if (row.offset === size && !(row.held === 1 && quiet)) return undefined;
        const pending: Pending = { start: row.offset, end: size, ...(quiet && { final: true }) };
        repo.update(file, { pending: JSON.stringify(pending) });
        return { ...pending, recovering: false };
      }
      const unit = reading.mode === 'entries' ? reading.source.unit : 'bytes';
      notice = `${isoTimestamp()}: the file was replaced or truncated (${size} ${unit}, ${row.offset} read before); read again from the start into new tasks, the earlier ones are kept`;
      const pending: Pending = { start: 0, end: size, ...(quiet && { final: true }) };
      repo.update(file, {
        generation: row.generation + 1,
        offset: 0,
        line_no: 0,
        fingerprint: null,
        state: null,
        task_uuid: null,
        messages: 0,
        held: 0,
        notice,
        pending: JSON.stringify(pending),
      });
      return { ...pending, recovering: false };
    },
  );
  if (!claimed) return { ...base, status: 'busy' };
  const { row, value: range } = claimed;
  if (range === undefined) {
    repo.write(() => {
      repo.update(file, { size, mtime_ms: mtimeMs, inode: ino });
      repo.release(file);
    });
    return { ...base, status: 'unchanged', held: row.held === 1 };
  }
  try {
    const result = await readRange(store, repo, kind, file, row, range, reading, {
      size,
      mtimeMs,
      ino,
      printOf,
      options,
    });
    const done = { ...base, ...result, ...(notice !== undefined && { notice }) };
    // A redone range ends where the cut-short sync's did; what the agent appended since is
    // read now too, or a last sync (`cwb sources sync`) would stop short of the file's end.
    if (range.recovering && !documentMode && size > range.end) {
      const rest = await syncFile(store, kind, file, options);
      return {
        ...rest,
        messages: done.messages + rest.messages,
        uuids: [...new Set([...done.uuids, ...rest.uuids])],
        ...(rest.status === 'unchanged' && { status: done.status }),
        ...(done.notice !== undefined && rest.notice === undefined && { notice: done.notice }),
      };
    }
    return done;
  } catch (err) {
    // A store read with the document is busy (another program writes it): no error; the
    // range stays pending, so the next sync (the next change, the full pass) reads it.
    if (err instanceof StoreUnavailable) {
      repo.write(() => repo.release(file));
      return { ...base, status: 'busy', notice: err.message };
    }
    const message = err instanceof Error ? err.message : String(err);
    // pending stays: the next sync redoes this range without duplicates.
    repo.write(() => {
      repo.update(file, { error: message });
      repo.release(file);
    });
    return { ...base, status: 'error', error: message };
  }
}

/**
 * A file the agent moved (Codex archives a rollout from sessions/ to archived_sessions/) or
 * renamed (OpenClaw's `<id>.jsonl.reset.<time>`: SourceKind.movedFrom):
 * the row of the same name whose file is gone, read as far as these same bytes, now
 * stands for the new path, so its tasks go on instead of being made a second time.
 */
function adoptMoved(
  repo: SyncStateRepository,
  kind: SourceKind,
  file: string,
  source: EntrySource,
): SourceFileRow | undefined {
  const before = kind.movedFrom?.(file);
  const renamed = before !== undefined ? repo.get(before) : undefined;
  const candidates = repo.named(kind.id, path.basename(file));
  if (renamed?.kind === kind.id) candidates.push(renamed);
  for (const row of candidates) {
    if (row.path === file || row.pending !== null || row.lease_pid !== null) continue;
    if (row.offset > source.size || fs.existsSync(row.path)) continue;
    if (row.offset > 0 && row.fingerprint !== source.fingerprint(row.offset)) continue;
    repo.write(() => {
      repo.rename(row.path, file);
      if (row === renamed)
        repo.update(file, {
          notice: `${isoTimestamp()}: the agent renamed ${path.basename(row.path)} to this file (it archived the session); its tasks go on`,
        });
    });
    return repo.get(file);
  }
  return undefined;
}

/**
 * A session the agent moved into a newer store (Cline into its SDK's folder, Goose into
 * sessions.db; SourceKind.earlierCopy) after its earlier copy was synced: the earlier copy's
 * row now stands for the new source, so its tasks go on (the new copy wins: what it adds is
 * appended; what the earlier copy had stays) instead of the session being listed twice. The
 * earlier copy itself is no longer read once the newer one exists (its kind's reader).
 */
function adoptEarlierCopy(
  repo: SyncStateRepository,
  kind: SourceKind,
  file: string,
): SourceFileRow | undefined {
  const suffix = kind.earlierCopy?.(file);
  if (suffix === undefined) return undefined;
  const row = repo
    .endingWith(kind.id, suffix)
    .find((r) => r.path !== file && r.pending === null && r.lease_pid === null && r.state);
  if (!row) return undefined;
  const saved = JSON.parse(row.state!) as FileState;
  // An earlier copy read after the newer one existed made no task: nothing to go on from.
  if (Object.keys(saved.threads).length === 0) return undefined;
  const mapper = adoptDocumentState(saved.mapper);
  if (mapper === undefined) return undefined;
  repo.write(() => {
    repo.rename(row.path, file);
    repo.update(file, {
      state: JSON.stringify({ ...saved, mapper }),
      // Never "unchanged": the new copy is read whole.
      size: -1,
      mtime_ms: -1,
      notice: `${isoTimestamp()}: goes on from ${row.path}, where the agent kept this session before`,
    });
  });
  return repo.get(file);
}

/**
 * How a session is read: whole (a document format), or entry by entry — the lines of a JSONL
 * file, or the event files of a folder (a kind's `events` reader). Throws when it is gone.
 */
function open(kind: SourceKind, file: string, offset: number, opened?: SessionStore): Reading {
  if (kind.reader.mode === 'store') return storeSession(kind.reader.open, file, opened);
  const stat = fs.statSync(file);
  if (stat.isDirectory()) {
    if (!kind.events) throw new Error(`${file} is a folder`);
    return { mode: 'entries', source: eventFolderSource(file, offset), mapper: kind.events.mapper };
  }
  if (kind.reader.mode === 'document') {
    const parse = kind.reader.parse;
    return {
      mode: 'document',
      stat: {
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        ino: String(stat.ino),
        times: fileTimes(stat),
      },
      parse: (final) => parse(file, final),
      ...(kind.reader.settles === true && { settles: true }),
    };
  }
  return {
    mode: 'entries',
    source: jsonlSource(file, stat, kind.reader.omitMember),
    mapper: kind.reader.mapper,
  };
}

interface OpenThread {
  task: TaskContextManager;
  /** A task new to this sync: published with its commit (its parent as it was opened with). */
  staged?: StagedHistoryTask;
  parentUuid?: string | null;
  skipMessages: number;
  skipTools: number;
  /** The seq of the last message this sync passed on (written, or skipped as written before). */
  seq: number;
  tools: number;
  llmCalls: number;
  usage: Partial<TokenUsage>;
  /** The same usage by the hour of its messages (the usage report's days). */
  hourly: HourlyUsage;
  /** Estimated tokens of the messages written (the total where the session has no usage). */
  estimated: number;
  skipSummaries: number;
  summaries: number;
  segmentStart: number;
  segmentTokens: number;
  pinned: number[];
  /** The last seq the agent's compactions put out of the context (marked before commit). */
  historyThrough: number;
  context: AgentContextState;
}

interface SourceNow {
  size: number;
  mtimeMs: number;
  ino: string;
  printOf(offset: number): string;
  options: SyncFileOptions;
}

async function readRange(
  store: ContextStore,
  repo: SyncStateRepository,
  kind: SourceKind,
  file: string,
  row: SourceFileRow,
  range: Pending & { recovering: boolean },
  reading: Reading,
  now: SourceNow,
): Promise<{ status: SyncStatus; messages: number; uuids: string[]; held: boolean }> {
  const saved: FileState = row.state
    ? (JSON.parse(row.state) as FileState)
    : { mapper: undefined, threads: {}, info: {}, skipped: 0 };
  // Recovery: the range was claimed by a sync that never committed (killed, or failed).
  const { recovering } = range;
  const final = range.final === true;
  const open = new Map<string, OpenThread>();
  let written = 0;
  let skipped = 0;

  const taskOf = (key: string): string => stableUuid(`${file}\0${row.generation}\0${key}`);
  // A subagent's parent: this file's main task, or (a separate subagent file) its session's.
  const parentOf = (info: ThreadInfo): string | null => {
    const main = saved.threads[MAIN]?.uuid ?? taskOf(MAIN);
    if (open.has(MAIN) || store.repo.get(main)) return main;
    return findSessionTask(store, kind.id, info.sessionId ?? saved.info[MAIN]?.sessionId);
  };

  const thread = (key: string): OpenThread => {
    let t = open.get(key);
    if (t) return t;
    const committed = saved.threads[key];
    const uuid = committed?.uuid ?? taskOf(key);
    const info = saved.info[key] ?? {};
    // A session that is a subagent of another one (Codex's thread_spawn) hangs under it.
    const parentUuid = !isSessionThread(key)
      ? parentOf(info)
      : info.parentSessionId !== undefined
        ? findSessionTask(store, kind.id, info.parentSessionId, { anyType: true })
        : null;
    const { task, staged } = openSourceTask(store, {
      uuid,
      kind: kind.id,
      file,
      thread: key,
      generation: row.generation,
      info,
      parentUuid,
    });
    const messages = task.messages.count;
    let skipMessages = 0;
    let skipTools = 0;
    let tools = committed?.tools ?? 0;
    const summaries = committed?.summaries ?? 0;
    let skipSummaries = 0;
    if (recovering) {
      skipSummaries = Math.max(0, task.summaries.nextId - 1 - summaries);
      tools = task.tools.count();
      skipMessages = Math.max(0, messages - (committed?.messages ?? 0));
      skipTools = Math.max(0, tools - (committed?.tools ?? 0));
    }
    t = {
      task,
      ...(staged && { staged, parentUuid }),
      skipMessages,
      skipTools,
      seq: messages - skipMessages,
      tools,
      llmCalls: 0,
      usage: {},
      hourly: new HourlyUsage(),
      estimated: 0,
      skipSummaries,
      summaries,
      segmentStart: committed?.segmentStart ?? 1,
      segmentTokens: committed?.segmentTokens ?? 0,
      pinned: [...(committed?.pinned ?? [])],
      historyThrough: committed?.historyThrough ?? 0,
      // A state saved before the records had plans: its segment, the context's size unknown.
      context: committed?.context
        ? structuredClone(committed.context)
        : {
            ...newAgentContext(),
            segmentStart: committed?.segmentStart ?? 1,
            segmentTokens: committed?.segmentTokens ?? 0,
          },
    };
    open.set(key, t);
    return t;
  };

  /** Appends a message (or passes one a redone range wrote before); its estimated tokens. */
  const put = (t: OpenThread, message: NewMessage): number => {
    t.seq++;
    if (t.skipMessages > 0) {
      t.skipMessages--;
      return newMessageTokens(message);
    }
    const tokens = t.task.messages.append(message).tokens;
    t.estimated += tokens;
    written++;
    return tokens;
  };

  const sink: SyncSink = {
    describe(key, info) {
      const into = (saved.info[key] ??= {});
      for (const [field, value] of Object.entries(info) as [keyof ThreadInfo, string][]) {
        if (value === undefined) continue;
        if (field === 'lastTimestamp' || field === 'title') into[field] = value;
        else into[field] ??= value;
      }
    },
    message(key, message, options) {
      const t = thread(key);
      t.hourly.message(message.timestamp);
      const tokens = put(t, message);
      if (options?.pinned && !t.pinned.includes(t.seq)) t.pinned.push(t.seq);
      t.segmentTokens += tokens;
      noteMessage(t.context, t.seq, message, tokens, options?.pinned === true);
    },
    tool(key, call) {
      const t = thread(key);
      if (t.skipTools > 0) t.skipTools--;
      else {
        t.task.tools.add(call);
        t.tools++;
      }
    },
    llmCall(key, usage, calls = 1) {
      const t = thread(key);
      t.llmCalls += calls;
      if (usage) t.hourly.usage(usage);
      if (usage)
        for (const [field, n] of Object.entries(usage) as [keyof TokenUsage, number][])
          t.usage[field] = (t.usage[field] ?? 0) + n;
    },
    compaction(key, input) {
      const t = thread(key);
      // Skipped messages of a redone range count too: the segment ends at the last seq.
      const end = t.seq;
      const created = (input.messages ?? []).map((m) => ({ tokens: put(t, m), seq: t.seq }));
      const record = agentCompactionRecord(t.context, input, end, created);
      if (t.skipSummaries > 0) t.skipSummaries--;
      else t.task.summaries.add({ ...record, extra: { live: true, ...record.extra } });
      t.summaries++;
      t.segmentStart = end + 1;
      t.segmentTokens = t.context.segmentTokens;
      // As `cwb import`: what the agent compacted is history, out of the context.
      t.historyThrough = Math.max(t.historyThrough, end);
    },
    skip() {
      skipped++;
    },
    ignore: () => undefined,
  };

  let offset = range.start;
  let lineNo = row.line_no;
  let committed = false;
  let mapperState: unknown;
  let waiting = false;
  try {
    if (reading.mode === 'entries') {
      const mapper = reading.mapper(saved.mapper, sink, { path: file });
      // What the last sync held back comes first, read again from the file.
      for (const ref of saved.held ?? []) {
        let value: unknown;
        try {
          value = reading.source.readAgain(ref);
        } catch (err) {
          sink.skip(ref.lineNo, `held back, then unreadable: ${(err as Error).message}`);
          continue;
        }
        mapper.line(value, ref.lineNo, ref);
      }
      for (const entry of reading.source.read(range.start, range.end, row.line_no + 1, final)) {
        if ('partial' in entry) break;
        // Read synchronously: the event loop gets its turn now and then (`cwb serve` answers).
        if (performance.now() - lastTurn >= (now.options.eventLoopTurnMs ?? EVENT_LOOP_TURN_MS)) {
          await new Promise((resolve) => setImmediate(resolve));
          lastTurn = performance.now();
        }
        if (entry.ok) mapper.line(entry.value, entry.lineNo, entry.ref);
        else sink.skip(entry.lineNo, entry.error);
        offset = entry.next;
        lineNo = entry.lineNo;
      }
      const end = mapper.end(final);
      mapperState = mapper.save();
      waiting = end.waiting;
      if (end.held.length > 0) saved.held = end.held;
      else delete saved.held;
    } else {
      const doc = await readDocument(
        reading.parse(final),
        saved.mapper,
        sink,
        reading.stat.times,
        final,
      );
      mapperState = doc.state;
      waiting = doc.waiting || (reading.settles === true && !final);
      offset = range.end;
      lineNo = doc.messages;
    }
    // Messages an agent's own compaction replaced leave the context, as on import.
    for (const [key, t] of open) {
      if (t.historyThrough > (saved.threads[key]?.historyThrough ?? 0))
        t.task.messages.markHistoryOnly(t.historyThrough, new Set(t.pinned));
    }
    const finals = closeForCommit(open);
    now.options.beforeCommit?.();
    const uuids = [...open.values()].map((t) => t.task.uuid);
    // Read from the file before the transaction: tasks.db's writers (other threads, other
    // processes) wait for no file reads.
    const fingerprint = now.printOf(offset);
    repo.write(() => {
      for (const [key, t] of open) {
        const final = finals.get(key)!;
        const info = saved.info[key] ?? {};
        // As `cwb import`: provider usage where the session has it, else the text's estimate,
        // so a task with text never shows 0 tokens.
        // Usage first seen now replaces the estimates added by earlier syncs.
        const before = saved.threads[key];
        const usageSeen = before?.usage === true || usageTotal(t.usage) > 0;
        const estimated = usageSeen ? 0 : (before?.estimated ?? 0) + t.estimated;
        const usage =
          usageTotal(t.usage) > 0
            ? before?.usage === true || !before?.estimated
              ? t.usage
              : { ...t.usage, total_tokens: usageTotal(t.usage) - before.estimated }
            : usageSeen
              ? {}
              : { total_tokens: t.estimated };
        const compressions = t.summaries - (before?.summaries ?? 0);
        const counted = { llm_calls: t.llmCalls, compressions, usage };
        // A new task's row goes in complete where it can (tasks.db): no updates after it.
        const complete =
          t.staged !== undefined &&
          publishSourceTask(store, t.staged, {
            input: { kind: kind.id, thread: key, parentUuid: t.parentUuid ?? null },
            info,
            isMain: isSessionThread(key),
            figures: figuresOf(counted, final),
          });
        const totals = complete
          ? undefined
          : writeRowStats(store, t.task.uuid, before?.totals, counted);
        store.repo.addUsageHours(t.task.uuid, t.hourly.take());
        if (!complete) {
          store.repo.setFinalStats(t.task.uuid, final);
          describeSourceTask(store, t.task.uuid, info, isSessionThread(key), kind.id);
        }
        saved.threads[key] = {
          uuid: t.task.uuid,
          messages: final.total_messages,
          tools: t.tools,
          ...(usageSeen && { usage: true }),
          ...(estimated > 0 && { estimated }),
          ...(t.summaries > 0 && { summaries: t.summaries, segmentStart: t.segmentStart }),
          segmentTokens: t.segmentTokens,
          ...(t.historyThrough > 0 && { historyThrough: t.historyThrough }),
          ...(t.pinned.length > 0 && { pinned: t.pinned }),
          ...(totals && { totals }),
          context: t.context,
        };
      }
      // Info of threads that have no task yet still changes with the lines read.
      for (const [key, committed] of Object.entries(saved.threads)) {
        if (!open.has(key) && saved.info[key])
          describeSourceTask(
            store,
            committed.uuid,
            saved.info[key]!,
            isSessionThread(key),
            kind.id,
          );
      }
      saved.mapper = mapperState;
      saved.skipped += skipped;
      const total = Object.values(saved.threads).reduce((n, t) => n + t.messages, 0);
      repo.update(file, {
        offset,
        line_no: lineNo,
        fingerprint,
        size: now.size,
        mtime_ms: now.mtimeMs,
        inode: now.ino,
        messages: total,
        task_uuid: saved.threads[MAIN]?.uuid ?? Object.values(saved.threads)[0]?.uuid ?? null,
        state: JSON.stringify(saved),
        held: waiting ? 1 : 0,
        pending: null,
        synced_at: isoTimestamp(),
        error: null,
      });
      repo.release(file);
    });
    committed = true;
    await now.options.afterCommit?.();
    return { status: 'synced', messages: written, uuids, held: waiting };
  } finally {
    // Closed before the commit already, unless the sync failed on the way there: then what
    // the tasks held may not reach their files either, and the range is redone (pending).
    for (const t of open.values()) {
      try {
        t.task.close();
      } catch {
        // the sync's own error is the one to report
      }
      // A task this sync made goes with it: the redone range makes it again.
      if (!committed) t.staged?.discard();
    }
  }
}

/**
 * Each task's figures for the commit, then the tasks closed: closing writes the offset
 * index entries of messages.jsonl a task keeps in memory, and they must be on disk before
 * the commit gives the lease back. A sync taking the file right after (another process)
 * would otherwise index those lines itself, the late entries would then land after its
 * own, and every later open would count the lines twice (the soak's 564 messages for 550).
 */
function closeForCommit(open: Map<string, OpenThread>): Map<string, FinalStats> {
  const finals = new Map<string, FinalStats>();
  for (const [key, t] of open) {
    finals.set(key, {
      total_messages: t.task.messages.count,
      total_summaries: t.task.summaries.nextId - 1,
      total_tool_calls: t.tools,
      final_token_count: t.task.messages.currentTokenCount(),
      final_message_count: t.task.messages.currentCount(),
    });
  }
  for (const t of open.values()) t.task.close();
  return finals;
}

function usageTotal(u: Partial<TokenUsage>): number {
  return (
    u.total_tokens ??
    (u.input_tokens ?? 0) +
      (u.output_tokens ?? 0) +
      (u.cache_creation_tokens ?? 0) +
      (u.cache_read_tokens ?? 0)
  );
}
