import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionEvent, SessionFormat } from '../import/session-format';
import { SESSION_FORMATS } from '../import/session-formats';
import { ClaudeCodeMapper } from '../import/claude-code-mapper';
import { findCompactionRun } from '../import/claude-code-compaction';
import { UNREAD_MEMBER } from '../import/claude-code-entry';
import { CodexMapper } from '../import/codex-mapper';
import { openHandsEventsMapper } from './openhands-events';
import { FILE_AGENT_KINDS } from './file-agent-kinds';
import type { CreateEntryMapper } from './sync-sink';
import type { OpenStore } from './sync-store';
import { kiloSourceKind, opencodeSourceKind } from './opencode-source';
import { crushSourceKind, gooseSourceKind, zedSourceKind } from './db-agent-sources';

/**
 * Whole-document formats (Gemini CLI, Cline/Roo, OpenHands) rewrite their file on every
 * change; Aider appends to a markdown file. Such a kind re-reads the file through the same
 * SessionFormat parser as `cwb import` (src/core/import/session-format.ts), whose message
 * keys are stable across rewrites; the sync skips the messages it already has.
 */
export type SourceReader =
  | {
      mode: 'jsonl';
      mapper: CreateEntryMapper;
      /** A top-level member of each line the mapper never reads: left out before parsing. */
      omitMember?: string;
    }
  | {
      mode: 'document';
      /** `final`: the file has been still (a parser may leave out a reply still being written otherwise). */
      parse(file: string, final: boolean): AsyncIterable<SessionEvent>;
      /** Read before it was still, the file is read once more when it is (something was left out). */
      settles?: boolean;
    }
  /** A file of many sessions (a database): each session synced as a source of its own. */
  | { mode: 'store'; open: OpenStore };

/** One agent whose session store is a source. */
export interface SourceKind {
  /** Stored in source_files.kind and tasks.task_source; the key under `sources:` in config.yaml. */
  id: string;
  label: string;
  /** Where the agent keeps its sessions when nothing is configured. */
  defaultFolders(env: NodeJS.ProcessEnv): string[];
  /** Whether a file (its path relative to the source folder, with '/') is one session. */
  matches(relative: string): boolean;
  /** How many folder levels below the source folder discovery looks. */
  depth: number;
  reader: SourceReader;
  /**
   * Sessions kept as a folder of one JSON file per event (OpenHands' `<id>/events/<n>.json`):
   * `unitOf` maps a file below the source folder to its events folder (relative, with '/'),
   * which is synced as one source, event by event, through `mapper`.
   */
  events?: { unitOf(relative: string): string | undefined; mapper: CreateEntryMapper };
  /** A store kept inside projects (Crush's `.crush/crush.db`): looked for, at this path, in the working directory of every task known. */
  inWorkdirs?: string;
  /**
   * An agent that moves its sessions into a newer store (Cline into its SDK's folder, Goose
   * into sessions.db): how the source of a session's earlier copy ends, for a source of the
   * newer store (its file, or its `<store>#<id>`). A session synced from there goes on in
   * the same tasks (sync-file.ts, adoptEarlierCopy) instead of being listed twice.
   */
  earlierCopy?(unit: string): string | undefined;
  /**
   * The path a session file had before the agent renamed it (OpenClaw archives a session it
   * resets as `<id>.jsonl.reset.<time>`): its row there goes on (sync-file.ts, adoptMoved).
   */
  movedFrom?(file: string): string | undefined;
  /**
   * The lane of a file (its path relative to the source folder, with '/'): the files whose
   * sessions refer to one another (a parent and its sub-agents) share one, synced in order on
   * one thread, while other lanes may be synced at the same time (sync-threads.ts). Without
   * it a source is one lane; a kind that adopts other files' sessions (`earlierCopy`,
   * `movedFrom`) or is a store is synced on the sync's own thread.
   */
  lane?(relative: string): string;
}

const kinds = new Map<string, SourceKind>();

/** Adds a source kind (an importer for a new format registers one next to its parser). */
export function registerSourceKind(kind: SourceKind): void {
  if (!/^[a-z][a-z0-9-]*$/.test(kind.id))
    throw new Error(`source kind id ${kind.id}: lowercase letters, digits and '-'`);
  kinds.set(kind.id, kind);
}

export function sourceKinds(): SourceKind[] {
  return [...kinds.values()];
}

export function sourceKind(id: string): SourceKind | undefined {
  return kinds.get(id);
}

export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME ?? os.homedir();
}

/** VS Code's globalStorage of an extension, per platform. */
export function vscodeGlobalStorage(env: NodeJS.ProcessEnv, extension: string): string[] {
  const home = homeOf(env);
  const base =
    process.platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support')
      : process.platform === 'win32'
        ? (env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
        : (env.XDG_CONFIG_HOME ?? path.join(home, '.config'));
  return ['Code', 'Code - Insiders', 'VSCodium', 'Cursor'].map((app) =>
    path.join(base, app, 'User', 'globalStorage', extension, 'tasks'),
  );
}

registerSourceKind({
  id: 'claude-code',
  label: 'Claude Code',
  defaultFolders: (env) => [
    path.join(env.CLAUDE_CONFIG_DIR ?? path.join(homeOf(env), '.claude'), 'projects'),
  ],
  // <project>/<session>.jsonl, and newer subagent files <project>/<session>/subagents/agent-*.jsonl
  matches: (relative) => relative.endsWith('.jsonl'),
  depth: 4,
  // A session, its sub-agents and compaction runs are all in its project's folder (a Windows
  // project spelled `C--` and `c--` is one project).
  lane: (relative) => relative.slice(0, relative.indexOf('/') + 1).toLowerCase(),
  reader: {
    mode: 'jsonl',
    omitMember: UNREAD_MEMBER,
    mapper: (saved, sink, source) =>
      new ClaudeCodeMapper(saved, sink, {
        file: source.path,
        compactionRun: (at) => findCompactionRun(source.path, at),
      }),
  },
});

registerSourceKind({
  id: 'codex',
  label: 'Codex',
  // Codex moves a rollout it archives from sessions/YYYY/MM/DD/ to archived_sessions/ (flat):
  // the moved file's row follows it (sync-file.ts, adoptMoved), its tasks go on.
  defaultFolders: (env) => {
    const home = env.CODEX_HOME ?? path.join(homeOf(env), '.codex');
    return [path.join(home, 'sessions'), path.join(home, 'archived_sessions')];
  },
  matches: (relative) => /(^|\/)rollout-[^/]*\.jsonl$/.test(relative),
  depth: 4,
  reader: { mode: 'jsonl', mapper: (saved, sink) => new CodexMapper(saved, sink) },
});

/** A SessionFormat (the parser of `cwb import`) read as a whole document on every sync. */
function documentReader(format: SessionFormat): SourceReader {
  return { mode: 'document', parse: (file) => format.parse(file) };
}

registerSourceKind({
  id: 'gemini-cli',
  label: 'Gemini CLI',
  defaultFolders: (env) => [path.join(homeOf(env), '.gemini', 'tmp')],
  // <project hash or slug>/chats/session-*.json (rewritten whole) or session-*.jsonl (newer:
  // appended to), and sub-agents' chats/<parent session id>/<id>.jsonl
  matches: (relative) => /(^|\/)chats\/(?:[^/]+\/)?[^/]+\.jsonl?$/.test(relative),
  depth: 4,
  reader: {
    mode: 'document',
    // A session the CLI resumed after 0.38 goes on in `<name>.jsonl` beside its `.json`,
    // which holds its start again: the log alone is the session.
    parse: (file, final) =>
      file.endsWith('.json') && fs.existsSync(`${file}l`)
        ? noSession()
        : SESSION_FORMATS['gemini-cli'].parse(file, undefined, final ? {} : { growing: true }),
    // The CLI writes a reply, then its tool calls and their results into it: the last reply
    // is read once the file is still.
    settles: true,
  },
});

// eslint-disable-next-line require-yield -- a reader with nothing to read
async function* noSession(): AsyncGenerator<SessionEvent> {
  return;
}

/** Cline's SDK session folder (cline/cline sdk/packages/shared/src/storage/paths.ts). */
export function clineSdkSessions(env: NodeJS.ProcessEnv): string {
  const sessions = env.CLINE_SESSION_DATA_DIR?.trim();
  if (sessions) return sessions;
  const data = env.CLINE_DATA_DIR?.trim();
  if (data) return path.join(data, 'sessions');
  return path.join(env.CLINE_DIR?.trim() || path.join(homeOf(env), '.cline'), 'data', 'sessions');
}

registerSourceKind({
  id: 'cline',
  label: 'Cline',
  defaultFolders: (env) => [
    ...vscodeGlobalStorage(env, 'saoudrizwan.claude-dev'),
    clineSdkSessions(env),
  ],
  // The extension's old tasks: <task id>/api_conversation_history.json (ui_messages.json and
  // task_metadata.json beside it are read with it); since its SDK: <root id>/<id>.messages.json
  // (sub-agents' files in their root's folder; sessions.db is read with them).
  matches: (relative) =>
    /^[^/]+\/api_conversation_history\.json$/.test(relative) ||
    /^[^/]+\/[^/]+\.messages\.json$/.test(relative),
  depth: 2,
  // A root session's SDK file (`<id>/<id>.messages.json`) goes on from its task's old folder.
  earlierCopy: (unit) => {
    const match = /[\\/]([^\\/]+)[\\/]([^\\/]+)\.messages\.json$/.exec(unit);
    if (!match || match[1] !== match[2]) return undefined;
    return `${path.sep}${match[1]}${path.sep}api_conversation_history.json`;
  },
  reader: {
    mode: 'document',
    // A task the SDK took over (resumed, same id) is read from its SDK file only. A
    // sessions.db Cline is writing right now leaves the sync for later (busy, a notice).
    parse: (file) =>
      path.basename(file) === 'api_conversation_history.json' && migratedToSdk(file)
        ? noSession()
        : SESSION_FORMATS.cline.parse(file, undefined, { retryBusy: true }),
  },
});

function migratedToSdk(file: string): boolean {
  const id = path.basename(path.dirname(path.resolve(file)));
  return fs.existsSync(path.join(clineSdkSessions(process.env), id, `${id}.messages.json`));
}

registerSourceKind({
  id: 'roo-code',
  label: 'Roo Code',
  defaultFolders: (env) => vscodeGlobalStorage(env, 'rooveterinaryinc.roo-cline'),
  matches: (relative) => /^[^/]+\/api_conversation_history\.json$/.test(relative),
  depth: 2,
  reader: documentReader(SESSION_FORMATS['roo-code']),
});

registerSourceKind({
  id: 'openhands',
  label: 'OpenHands',
  defaultFolders: (env) => [path.join(homeOf(env), '.openhands', 'sessions')],
  // Trajectory files (save_trajectory_path) kept in the folder, read whole.
  matches: (relative) => /^[^/]+\.json$/.test(relative),
  depth: 2,
  reader: documentReader(SESSION_FORMATS.openhands),
  // The GUI's file store: <session id>/events/<n>.json, one file per event, followed event
  // by event (metadata.json and the event_cache/ pages beside it are not needed).
  events: {
    unitOf: (relative) => /^([^/]+\/events)\/\d+\.json$/.exec(relative)?.[1],
    mapper: openHandsEventsMapper,
  },
});

registerSourceKind({
  id: 'aider',
  label: 'Aider',
  // Aider writes its history into each repository: only configured folders are read.
  defaultFolders: () => [],
  matches: (relative) => /(^|\/)\.aider\.chat\.history\.md$/.test(relative),
  depth: 3,
  reader: documentReader(SESSION_FORMATS.aider),
});

for (const kind of FILE_AGENT_KINDS) registerSourceKind(kind);
registerSourceKind(opencodeSourceKind);
registerSourceKind(kiloSourceKind);
registerSourceKind(crushSourceKind);
registerSourceKind(gooseSourceKind);
registerSourceKind(zedSourceKind);
