/**
 * Writes the events of a SessionFormat (see session-format.ts) into tasks: one task per
 * session, created only when the session's first message arrives, so a file with nothing
 * importable never leaves a task behind. Assistant tool calls wait for the `tool` messages
 * that answer them (TranscriptWriter pairs them by id); each message marked `llmCall` counts
 * one LLM call and adds its usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow, TokenUsage } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { badInput } from '../errors';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport, discardImportedTask, type ImportSession } from './import-session';
import type { AgentId, SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { realRequest, repoKey, titleLine } from './session-meta';
import { TranscriptWriter } from './transcript-writer';
import { PROMPT_MAX_CHARS, clip, fileTimes, normalizeTimestamp } from './text';
import { findSessionTask } from '../sources/source-tasks';

interface OpenSession {
  meta: SessionMeta;
  key: string;
  session?: ImportSession;
  writer?: TranscriptWriter;
  firstAt?: string;
  lastAt?: string;
  models: Set<string>;
  /** The last seq the agent's own compactions put out of its context. */
  historyThrough?: number;
  /** Seqs that stay in the context whatever the agent compacts (its system prompt). */
  pinned: number[];
}

export async function importSessionFile(
  store: ContextStore,
  file: string,
  format: SessionFormat,
  doc: unknown,
  options: { maxJsonBytes?: number; agent?: AgentId } = {},
): Promise<TranscriptImport> {
  const report = new ImportReport(file);
  const fromFile = fileTimes(await fs.promises.stat(file));
  const rows: TaskRow[] = [];
  let current: OpenSession | undefined;

  const close = async (): Promise<void> => {
    const open = current;
    current = undefined;
    if (!open) return;
    if (!open.session || !open.writer) {
      report.ignore('session without messages');
      return;
    }
    // What the agent compacted is history, out of the context (as a live sync marks it).
    if (open.historyThrough !== undefined)
      open.session.task.messages.markHistoryOnly(open.historyThrough, new Set(open.pinned));
    const counters = open.writer.finish();
    const meta = open.meta;
    const started = normalizeTimestamp(meta.startedAt) ?? open.firstAt ?? fromFile.created_at;
    const ended =
      normalizeTimestamp(meta.endedAt) ??
      normalizeTimestamp(meta.updatedAt) ??
      open.lastAt ??
      fromFile.completed_at;
    counters.times = {
      created_at: started,
      started_at: started,
      completed_at: ended < started ? started : ended,
    };
    if (open.models.size > 0 && !meta.model) counters.model = [...open.models][0]!;
    rows.push(await open.session.finish(counters));
  };

  const begin = async (open: OpenSession): Promise<void> => {
    const meta = open.meta;
    const named = titleLine(meta.title) ?? titleLine(meta.firstRequest);
    // A sub-agent's session is titled as live sync titles it (source-tasks.ts).
    const title =
      meta.parentSessionId !== undefined
        ? `Subagent: ${meta.description ?? titleLine(meta.firstRequest) ?? meta.sessionId ?? path.basename(file)}`
        : (named ?? path.basename(file));
    const prompt = meta.firstRequest;
    // A sub-agent thread of this same file (Copilot CLI) hangs under its session's task; a
    // sub-agent session of a database (opencode, Crush, Zed), which lists parents first,
    // under its parent session's, itself maybe a sub-agent's; one of another file (Gemini
    // CLI's chats, Cline's subagents) under its parent's task when that is imported already.
    const parent =
      meta.parentSessionId === undefined
        ? null
        : (rows.find((r) => r.task_type === '' && r.task_id === meta.parentSessionId)?.uuid ??
          rows.find((r) => r.task_source === meta.agent && r.task_id === meta.parentSessionId)
            ?.uuid ??
          findSessionTask(store, meta.agent, meta.parentSessionId, { anyType: true }));
    open.session = await beginImport(store, {
      title,
      prompt: prompt !== undefined ? clip(prompt, PROMPT_MAX_CHARS) : null,
      workdir: meta.cwd ?? null,
      model: meta.model ?? null,
      parent_uuid: parent,
      key: {
        task_source: meta.agent,
        task_id: meta.sessionId ?? open.key,
        ...(meta.parentSessionId !== undefined && { task_type: 'subagent' }),
        ...repoKey(meta.cwd, meta.gitRemote),
      },
      status: 'completed',
      source: {
        format: meta.agent,
        file: path.resolve(file),
        session_key: open.key,
        session_id: meta.sessionId ?? null,
        cwd: meta.cwd ?? null,
        git_branch: meta.gitBranch ?? null,
        git_remote: meta.gitRemote ?? null,
        model: meta.model ?? null,
        agent_title: meta.title ?? null,
        ...(meta.parentSessionId !== undefined && {
          relation: 'subagent',
          parent_session_id: meta.parentSessionId,
        }),
        ...meta.extra,
      },
    });
    open.writer = new TranscriptWriter(open.session.task);
  };

  const events = format.parse(
    file,
    doc,
    options.maxJsonBytes !== undefined ? { maxJsonBytes: options.maxJsonBytes } : {},
  );
  try {
    for await (const event of events) await apply(event);
    await close();
  } catch (err) {
    if (current?.session) await current.session.abort(err);
    for (const row of rows) discardImportedTask(store, row.uuid);
    throw err;
  }
  if (rows.length === 0) {
    throw badInput(
      `${path.basename(file)}: no messages to import (${format.agent} session${
        report.skipped.length > 0 ? `; ${report.skipped.length} item(s) skipped` : ''
      })`,
    );
  }
  return { rows, report };

  async function apply(event: SessionEvent): Promise<void> {
    switch (event.kind) {
      case 'session':
        await close();
        current = {
          meta: { ...event.meta, ...(options.agent && { agent: options.agent }) },
          key: event.key,
          models: new Set(),
          pinned: [],
        };
        return;
      case 'meta':
        if (current) current.meta = { ...current.meta, ...event.meta };
        return;
      case 'skip':
        report.skipItem(event.where, event.reason);
        return;
      case 'usage':
        current?.writer?.addUsage(withTotal(event.usage));
        return;
      case 'ignore':
        report.ignore(event.what);
        return;
      case 'compaction':
        if (!current)
          throw new Error(`${format.agent} parser yielded a compaction before a session`);
        if (!current.writer) await begin(current);
        current.historyThrough = current.writer!.messageCount;
        current.writer!.compaction(event.compaction);
        return;
      case 'message': {
        if (!current) throw new Error(`${format.agent} parser yielded a message before a session`);
        if (!current.writer) {
          if (!current.meta.firstRequest && event.message.role === 'user')
            current.meta.firstRequest = realRequest(event.message.content);
          await begin(current);
        }
        const writer = current.writer!;
        const m = event.message;
        const at = normalizeTimestamp(m.timestamp);
        if (at) {
          current.firstAt ??= at;
          if (!current.lastAt || at > current.lastAt) current.lastAt = at;
        }
        if (event.model) current.models.add(event.model);
        if (event.llmCall) writer.countLlmCall();
        if (event.usage) writer.addUsage(withTotal(event.usage));
        let toolName = m.tool_name;
        if (m.role === 'assistant') {
          for (const call of m.tool_calls ?? []) {
            writer.startToolCall({
              id: call.id,
              name: call.function.name,
              args: parseArgs(call.function.arguments),
              ...(at !== undefined && { timestamp: at }),
            });
          }
        } else if (m.role === 'tool') {
          const called = writer.finishToolCall({
            id: m.tool_call_id ?? '',
            content: m.content,
            ...(m.isError !== undefined && { isError: m.isError }),
            ...(at !== undefined && { timestamp: at }),
          });
          toolName ??= called;
        }
        const record = writer.append(
          {
            role: m.role,
            content: m.content,
            ...(m.tool_calls && m.tool_calls.length > 0 && { tool_calls: m.tool_calls }),
            ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
            ...(toolName !== undefined && { tool_name: toolName }),
            ...(m.name !== undefined && { name: m.name }),
            ...(m.historyOnly && { historyOnly: true }),
            ...(at !== undefined && { timestamp: at }),
          },
          event.pinned ? { pinned: true } : undefined,
        );
        if (event.pinned) current.pinned.push(record.seq);
        return;
      }
    }
  }
}

/** Usage with total_tokens: the provider's when given, else everything read and written. */
export function withTotal(u: Partial<TokenUsage>): Partial<TokenUsage> {
  if (u.total_tokens !== undefined && u.total_tokens > 0) return u;
  return {
    ...u,
    total_tokens:
      (u.input_tokens ?? 0) +
      (u.output_tokens ?? 0) +
      (u.cache_creation_tokens ?? 0) +
      (u.cache_read_tokens ?? 0),
  };
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
