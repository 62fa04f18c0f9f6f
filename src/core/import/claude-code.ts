/**
 * Claude Code sessions (`~/.claude/projects/<dir>/<session>.jsonl`) → tasks.
 *
 * One session file = one task for the main conversation. Subagents (`isSidechain: true`
 * entries, written interleaved into the same file while they run in parallel) are kept
 * apart: each subagent thread becomes its own task with `parent_uuid` set to the main
 * task (source.relation "subagent", with the Task tool call that started it when its
 * prompt matches). A file holding only sidechain entries (newer Claude Code writes
 * `agent-*.jsonl` files) gives top-level subagent tasks.
 *
 * The message mapping is described on ClaudeCodeMapper (shared with live sync). `type: summary` entries are Claude
 * Code's short titles of a conversation (e.g. "Empty Repo Setup: CLAUDE.md Foundation
 * Created"), not compactions: the first becomes the task title, all are kept in
 * metadata.json's source. Counts are derivable from the file:
 *   messages  = per thread: string user entries + (tool_result blocks + 1 if any other
 *               block) per block-list user entry + per consecutive-same-message.id
 *               assistant run (thinking blocks + 1 if it has a text or tool_use block)
 *   tool calls = tool_use blocks + tool_result blocks whose call is not in the thread
 *   LLM calls  = distinct message.id of assistant entries (model not `<synthetic>`)
 *
 * Two streaming passes: a scan (threads, metadata, last compaction line), then the import,
 * both bounded to the size the file had at the scan so a live session can be imported.
 */
import { repoKey, titleLine } from './session-meta';
import crypto from 'node:crypto';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { readJsonl } from '../jsonl/jsonl-reader';
import { badInput } from '../errors';
import { MAIN_THREAD, parseClaudeEntry, UNREAD_MEMBER } from './claude-code-entry';
import { subagentMeta } from './claude-code-files';
import { scanClaudeCode, type ClaudeScan, type ClaudeThreadInfo } from './claude-code-scan';
import { ClaudeCodeMapper } from './claude-code-mapper';
import { findCompactionRun } from './claude-code-compaction';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport, discardImportedTask, type ImportSession } from './import-session';
import type { TranscriptSink } from './transcript-sink';
import { TranscriptWriter } from './transcript-writer';
import { PROMPT_MAX_CHARS, clip, titleFrom } from './text';
import type { ImportOptions } from './types';
import { findSessionTask } from '../sources/source-tasks';

interface OpenThread {
  info: ClaudeThreadInfo;
  session: ImportSession;
  writer: TranscriptWriter;
}

export async function importClaudeCode(
  store: ContextStore,
  file: string,
  options: ImportOptions = {},
): Promise<TranscriptImport> {
  const scan = await scanClaudeCode(file, options.maxLineBytes);
  if (scan.threads.size === 0) {
    const [forked] = scan.forked.keys();
    throw badInput(
      forked !== undefined
        ? `${path.basename(file)}: a Claude Code ${forked}, not a conversation: import its session instead`
        : `${path.basename(file)}: no Claude Code user or assistant entries found`,
    );
  }
  const report = new ImportReport(file);
  const mainUuid = scan.threads.has(MAIN_THREAD) ? crypto.randomUUID() : null;
  const open = new Map<string, OpenThread>();
  const rows: TaskRow[] = [];
  const readOptions = {
    end: scan.size,
    omitMember: UNREAD_MEMBER,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
  };
  const writerOf = (thread: string): TranscriptWriter => {
    const state = open.get(thread);
    if (!state) throw new Error(`${path.basename(file)}: thread ${thread} written while not open`);
    return state.writer;
  };
  const sink: TranscriptSink = {
    describe: () => undefined, // the scan knows each thread before its task is created
    message: (thread, message, opts) => void writerOf(thread).append(message, opts),
    tool: (thread, call) => writerOf(thread).addTool(call),
    llmCall: (thread, usage, calls = 1) => {
      const writer = writerOf(thread);
      writer.countLlmCall(calls);
      if (usage) writer.addUsage(usage);
    },
    compaction: (thread, input) => writerOf(thread).compaction(input),
    skip: (lineNo, reason) => report.skipLine(lineNo, reason),
    ignore: (what) => report.ignore(what),
  };
  const mapper = new ClaudeCodeMapper(undefined, sink, {
    historyBefore: (thread) => scan.threads.get(thread)?.lastCompactLine ?? 0,
    file,
    compactionRun: (at) => findCompactionRun(file, at),
  });
  // A subagent's own file: its description and type from `<agent>.meta.json` (Claude Code 2.1).
  const meta = subagentMeta(file);
  for (const info of scan.threads.values()) {
    if (!info.sidechain || !meta) continue;
    info.description ??= meta.description;
    info.subagentType ??= meta.agentType;
  }
  for (const [reason, entries] of scan.forked)
    for (let i = 0; i < entries; i++) report.ignore(reason);
  try {
    for await (const line of readJsonl(file, readOptions)) {
      if (!line.ok) {
        report.skipLine(line.lineNo, line.error);
        continue;
      }
      const parsed = parseClaudeEntry(line.value);
      if (!parsed.ok) {
        report.skipLine(line.lineNo, parsed.error);
        continue;
      }
      const entry = parsed.entry;
      const key = scan.router.route(entry, line.lineNo);
      const info = key !== undefined ? scan.threads.get(key) : undefined;
      if (key !== undefined && !info) continue; // routed differently than in the scan: cannot happen for the same bytes
      if (key !== undefined && info && !open.has(key))
        open.set(key, await openThread(store, file, scan, info, mainUuid));
      mapper.entry(entry, line.lineNo);
      if (key !== undefined && info && line.lineNo >= info.lastLine) {
        mapper.endThread(key);
        const state = open.get(key)!;
        open.delete(key);
        rows.push(await finishThread(state));
      }
    }
    mapper.end(true);
    for (const [key, state] of open) {
      open.delete(key);
      rows.push(await finishThread(state));
    }
  } catch (err) {
    for (const state of open.values()) await state.session.abort(err);
    for (const row of rows) discardImportedTask(store, row.uuid);
    throw err;
  }
  // The main task first, then its subagents in the order they started.
  rows.sort((a, b) => Number(b.uuid === mainUuid) - Number(a.uuid === mainUuid));
  return { rows, report };
}

async function openThread(
  store: ContextStore,
  file: string,
  scan: ClaudeScan,
  info: ClaudeThreadInfo,
  mainUuid: string | null,
): Promise<OpenThread> {
  const isMain = info.key === MAIN_THREAD;
  const title = isMain
    ? (scan.title?.title ??
      scan.titles[0]?.summary ??
      titleLine(info.request) ??
      titleFrom(info.prompt))
    : `Subagent: ${info.description ?? titleLine(info.request) ?? titleFrom(info.prompt) ?? info.key}`;
  const session = await beginImport(store, {
    ...(isMain && mainUuid !== null && { uuid: mainUuid }),
    title: title ?? null,
    prompt: info.prompt !== undefined ? clip(info.prompt, PROMPT_MAX_CHARS) : null,
    workdir: info.cwd ?? null,
    model: info.model ?? null,
    llm_provider: 'anthropic',
    // A subagent's own file (agent-*.jsonl) goes under its session's task, when imported
    // already, as live sync links it.
    parent_uuid: isMain
      ? null
      : (mainUuid ?? findSessionTask(store, 'claude-code', info.sessionId)),
    key: {
      task_source: 'claude-code',
      task_id: info.sessionId ?? '',
      task_type: isMain ? '' : 'subagent',
      ...repoKey(info.cwd, undefined),
    },
    status: 'completed',
    ...(info.firstTimestamp !== undefined && { created_at: info.firstTimestamp }),
    ...(info.lastTimestamp !== undefined && { completed_at: info.lastTimestamp }),
    source: {
      format: 'claude-code',
      file: path.resolve(file),
      session_id: info.sessionId ?? null,
      cwd: info.cwd ?? null,
      model: info.model ?? null,
      version: info.version ?? null,
      git_branch: info.gitBranch ?? null,
      ...(isMain
        ? { titles: scan.titles }
        : {
            relation: 'subagent',
            thread: info.key,
            agent_id: info.agentId ?? null,
            parent_tool_use_id: info.parentToolUseId ?? null,
            subagent_type: info.subagentType ?? null,
          }),
    },
  });
  return { info, session, writer: new TranscriptWriter(session.task) };
}

async function finishThread(state: OpenThread): Promise<TaskRow> {
  let counters;
  try {
    counters = state.writer.finish();
  } catch (err) {
    await state.session.abort(err);
    throw err;
  }
  return state.session.finish(counters);
}
