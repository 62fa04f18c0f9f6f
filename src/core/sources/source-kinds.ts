import os from 'node:os';
import path from 'node:path';
import type { NewMessage } from '../store/message-store';
import type { TokenUsage } from '../../shared/task-types';
import { claudeCodeLines } from './claude-code-lines';
import { codexLines } from './codex-lines';
import type { CreateLineMapper } from './sync-sink';

/**
 * Whole-document formats (Gemini CLI, Cline/Roo, OpenHands) rewrite their file on every
 * change. Such a kind re-reads the document and yields its messages with keys that are
 * stable across rewrites (the agent's message id or the index in its list); the sync skips
 * the messages it already has. Shaped after src/core/import/session-format.ts, so a
 * SessionFormat registers as it is.
 */
export type DocumentEvent =
  | { kind: 'meta'; meta: Record<string, unknown> }
  | {
      kind: 'message';
      key: string;
      message: NewMessage & { isError?: boolean };
      llmCall?: boolean;
      usage?: Partial<TokenUsage>;
    }
  | { kind: 'skip'; key: string; where: string; reason: string }
  | { kind: 'ignore'; key: string; what: string };

export type SourceReader =
  | { mode: 'jsonl'; mapper: CreateLineMapper }
  | { mode: 'document'; parse(file: string): AsyncIterable<DocumentEvent> };

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
  reader: { mode: 'jsonl', mapper: claudeCodeLines },
});

registerSourceKind({
  id: 'codex',
  label: 'Codex',
  defaultFolders: (env) => [
    path.join(env.CODEX_HOME ?? path.join(homeOf(env), '.codex'), 'sessions'),
  ],
  matches: (relative) => /(^|\/)rollout-[^/]*\.jsonl$/.test(relative),
  depth: 4,
  reader: { mode: 'jsonl', mapper: codexLines },
});
