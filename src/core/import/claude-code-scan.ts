import { realRequest } from './session-meta';
import fs from 'node:fs';
import { readJsonl } from '../jsonl/jsonl-reader';
import {
  parseClaudeEntry,
  ClaudeThreadRouter,
  MAIN_THREAD,
  blocksOf,
  normalizeWorkdir,
  forkedThreadReason,
  promptHash,
  promptOf,
  titleOf,
  UNREAD_MEMBER,
  type ClaudeEntry,
} from './claude-code-entry';
import { isRecord, normalizeTimestamp } from './text';

/** What the first pass learns about one thread: enough to create its task before writing it. */
export interface ClaudeThreadInfo {
  key: string;
  sidechain: boolean;
  firstLine: number;
  lastLine: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  /** Text of the first user message that is not a meta or tool-result entry. */
  prompt?: string;
  /** The first real request (slash commands, caveats and reminders skipped): the title. */
  request?: string;
  model?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  sessionId?: string;
  agentId?: string;
  /** Line of the last compaction (boundary or summary); earlier messages are history only. */
  lastCompactLine: number;
  /** Sidechains: the main thread's Task tool call that started this subagent, when found. */
  parentToolUseId?: string;
  description?: string;
  subagentType?: string;
}

export interface ClaudeScan {
  /** Bytes scanned: the import pass reads exactly these, even if the session is still growing. */
  size: number;
  threads: Map<string, ClaudeThreadInfo>;
  router: ClaudeThreadRouter;
  /** `type: summary` entries: Claude Code's titles for the conversation. */
  titles: { summary: string; leafUuid?: string }[];
  /** The last `custom-title` (a /rename), else the last `ai-title` (Claude Code 2.1). */
  title?: { title: string; rank: number };
  /** Entries of compaction runs and side questions (never tasks), by reason. */
  forked: Map<string, number>;
}

const MAX_TITLES = 20;

/**
 * First pass over a Claude Code session: threads, their line ranges and metadata, and where
 * the last compaction of each thread is. Streams the file; bad lines are left for the
 * import pass to report.
 */
export async function scanClaudeCode(file: string, maxLineBytes?: number): Promise<ClaudeScan> {
  const size = (await fs.promises.stat(file)).size;
  const router = new ClaudeThreadRouter();
  const threads = new Map<string, ClaudeThreadInfo>();
  const titles: ClaudeScan['titles'] = [];
  let title: ClaudeScan['title'];
  const scan = { forked: new Map<string, number>() };
  // Task tool calls of the main thread by the hash of their prompt, to link subagents to them.
  const taskCalls = new Map<string, { id: string; description?: string; subagentType?: string }>();
  const readOptions = {
    end: size,
    omitMember: UNREAD_MEMBER,
    ...(maxLineBytes !== undefined && { maxLineBytes }),
  };
  for await (const line of readJsonl(file, readOptions)) {
    if (!line.ok) continue;
    const parsed = parseClaudeEntry(line.value);
    if (!parsed.ok) continue;
    const entry = parsed.entry;
    if (entry.type === 'summary' && entry.summary !== undefined) {
      if (titles.length < MAX_TITLES)
        titles.push({
          summary: entry.summary,
          ...(entry.leafUuid !== undefined && { leafUuid: entry.leafUuid }),
        });
      continue;
    }
    const titled = titleOf(entry);
    if (titled !== undefined) {
      if (titled.rank >= (title?.rank ?? 0)) title = titled;
      continue;
    }
    const key = router.route(entry, line.lineNo);
    if (key === undefined) {
      // What Claude Code re-attaches after a compaction may end the file: the thread lasts
      // until then, so the import writes it into that compaction's new context.
      const main = threads.get(MAIN_THREAD);
      if (entry.type === 'attachment' && entry.isSidechain !== true && main)
        main.lastLine = line.lineNo;
      continue;
    }
    const forked = forkedThreadReason(key);
    if (forked !== undefined) {
      scan.forked.set(forked, (scan.forked.get(forked) ?? 0) + 1);
      continue;
    }
    let info = threads.get(key);
    if (!info) {
      info = {
        key,
        sidechain: key !== MAIN_THREAD,
        firstLine: line.lineNo,
        lastLine: 0,
        lastCompactLine: 0,
      };
      threads.set(key, info);
    }
    note(info, entry, line.lineNo);
    if (key === MAIN_THREAD) rememberTaskCalls(entry, taskCalls);
  }
  for (const info of threads.values()) {
    if (!info.sidechain || info.prompt === undefined) continue;
    const call = taskCalls.get(promptHash(info.prompt));
    if (call) {
      info.parentToolUseId = call.id;
      if (call.description !== undefined) info.description = call.description;
      if (call.subagentType !== undefined) info.subagentType = call.subagentType;
    }
  }
  return {
    size,
    threads,
    router,
    titles,
    forked: scan.forked,
    ...(title !== undefined && { title }),
  };
}

function note(info: ClaudeThreadInfo, entry: ClaudeEntry, lineNo: number): void {
  info.lastLine = lineNo;
  const ts = normalizeTimestamp(entry.timestamp);
  if (ts) {
    info.firstTimestamp ??= ts;
    info.lastTimestamp = ts;
  }
  info.cwd ??= normalizeWorkdir(entry.cwd);
  info.gitBranch ??= entry.gitBranch || undefined;
  info.version ??= entry.version;
  info.sessionId ??= entry.sessionId;
  info.agentId ??= entry.agentId;
  if (entry.type === 'system' && entry.subtype === 'compact_boundary')
    info.lastCompactLine = lineNo;
  if (entry.type === 'user' && entry.isCompactSummary === true) info.lastCompactLine = lineNo;
  if (entry.type === 'assistant' && entry.message?.model && entry.message.model !== '<synthetic>')
    info.model ??= entry.message.model;
  const prompt = promptOf(entry);
  if (prompt !== undefined) {
    info.prompt ??= prompt;
    if (info.request === undefined) info.request = realRequest(prompt);
  }
}

function rememberTaskCalls(
  entry: ClaudeEntry,
  calls: Map<string, { id: string; description?: string; subagentType?: string }>,
): void {
  if (entry.type !== 'assistant') return;
  for (const block of blocksOf(entry.message?.content)) {
    if (block.type !== 'tool_use' || block.id === undefined) continue;
    if (block.name !== 'Task' && block.name !== 'Agent') continue;
    if (!isRecord(block.input) || typeof block.input.prompt !== 'string') continue;
    const { description, subagent_type: subagentType } = block.input;
    calls.set(promptHash(block.input.prompt), {
      id: block.id,
      ...(typeof description === 'string' && { description }),
      ...(typeof subagentType === 'string' && { subagentType }),
    });
  }
}
