import { realRequest } from './session-meta';
import fs from 'node:fs';
import { readJsonl } from '../jsonl/jsonl-reader';
import { codexMessageText, codexSubagent, toCodexLine } from './codex-line';
import { asString, isRecord, normalizeTimestamp } from './text';

export interface CodexScan {
  size: number;
  sessionId?: string;
  cwd?: string;
  model?: string;
  provider?: string;
  cliVersion?: string;
  originator?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  prompt?: string;
  /** `session_meta.git`: the repository's remote and branch, when Codex ran in a git checkout. */
  gitRemote?: string;
  gitBranch?: string;
  /** Rollouts record each user turn twice (response item and event); use the items when there are any. */
  hasUserItems: boolean;
  /**
   * Line of the last compaction (a `compacted` entry, or a `context_compacted` event with no
   * such entry before it); messages before it are history only.
   */
  lastCompactedLine: number;
  /** `token_count` events carrying usage: one per model response. */
  tokenCounts: number;
  /** A subagent's thread (thread_spawn): its parent's session id and the agent's name. */
  subagent?: { parent: string; label?: string };
}

/** First pass over a rollout: session metadata, which user records to use, compactions, usage. */
export async function scanCodex(file: string, maxLineBytes?: number): Promise<CodexScan> {
  const size = (await fs.promises.stat(file)).size;
  const scan: CodexScan = { size, hasUserItems: false, lastCompactedLine: 0, tokenCounts: 0 };
  let firstUserItem: string | undefined;
  // A forked thread's copy of its parent's history (second session_meta to turn_context).
  let forkHistory = false;
  // The last line read was a `compacted` entry (its event follows it: the same compaction).
  let afterCompacted = false;
  const readOptions = { end: size, ...(maxLineBytes !== undefined && { maxLineBytes }) };
  for await (const raw of readJsonl(file, readOptions)) {
    if (!raw.ok) continue;
    const line = toCodexLine(raw.value, raw.lineNo);
    if (!line || line.kind === 'other') continue;
    if (line.timestamp !== undefined) {
      scan.firstTimestamp ??= line.timestamp;
      scan.lastTimestamp = line.timestamp;
    }
    const p = line.payload;
    const compactedEvent = line.kind === 'event_msg' && p.type === 'context_compacted';
    if (compactedEvent && !afterCompacted) scan.lastCompactedLine = raw.lineNo;
    if (line.kind === 'compacted') afterCompacted = true;
    else if (
      line.kind === 'response_item' ||
      (line.kind === 'event_msg' && p.type === 'user_message')
    )
      afterCompacted = false;
    if (line.kind === 'session_meta' && scan.sessionId !== undefined) forkHistory = true;
    else if (line.kind === 'turn_context') forkHistory = false;
    if (line.kind === 'session_meta' && scan.sessionId === undefined) {
      scan.sessionId = asString(p.id);
      scan.subagent = codexSubagent(p);
      scan.cwd = asString(p.cwd);
      scan.provider = asString(p.model_provider);
      scan.cliVersion = asString(p.cli_version);
      scan.originator = asString(p.originator);
      scan.model ??= asString(p.model);
      const git = isRecord(p.git) ? p.git : undefined;
      scan.gitRemote = asString(git?.repository_url);
      scan.gitBranch = asString(git?.branch);
      // The session started before its first line was written.
      const started = normalizeTimestamp(p.timestamp);
      if (started !== undefined) scan.firstTimestamp = started;
    } else if (line.kind === 'turn_context') {
      scan.model ??= asString(p.model);
      scan.cwd ??= asString(p.cwd);
    } else if (line.kind === 'compacted') {
      scan.lastCompactedLine = raw.lineNo;
    } else if (line.kind === 'response_item' && p.type === 'message' && p.role === 'user') {
      scan.hasUserItems = true;
      const text = codexMessageText(p);
      if (
        !forkHistory &&
        firstUserItem === undefined &&
        !text.trimStart().startsWith('<') &&
        realRequest(text)
      )
        firstUserItem = text;
    } else if (line.kind === 'event_msg' && p.type === 'user_message') {
      const message = asString(p.message);
      if (!forkHistory && realRequest(message)) scan.prompt ??= message;
    } else if (line.kind === 'event_msg' && p.type === 'token_count' && isRecord(p.info)) {
      scan.tokenCounts++;
    }
  }
  scan.prompt ??= firstUserItem;
  if (scan.prompt !== undefined) scan.prompt = userRequest(scan.prompt);
  return scan;
}

/** IDE prompts list the files mentioned first; the request itself follows this heading. */
export function userRequest(prompt: string): string {
  const marker = '## My request for Codex:';
  const at = prompt.indexOf(marker);
  return at === -1 ? prompt : prompt.slice(at + marker.length).trim() || prompt;
}
