/**
 * Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) → one task per file.
 *
 * - `session_meta`: id, cwd, provider, CLI version → source; its base instructions become
 *   the first message (system), as the model saw them. `turn_context` gives the model.
 * - `response_item` message: user → user, developer/system → system, assistant →
 *   assistant. Codex records every user turn twice (a `user` message item and a
 *   `user_message` event); the items are used when the file has any, else the events.
 * - `function_call` / `custom_tool_call` / `local_shell_call` items become tool_calls of
 *   an assistant message: calls that follow each other (or an assistant text) without
 *   another item in between are ONE message, as the model sent them together. MCP calls
 *   are named `namespace + name`. Outputs (`function_call_output`,
 *   `custom_tool_call_output`) become tool messages, paired by call_id, and each pair one
 *   tools.jsonl record. `web_search_call` is a tools.jsonl record only (no output exists).
 * - `reasoning` items: an assistant message `name: "reasoning"`, history only, holding the
 *   summary text (or "[encrypted reasoning, N characters]" when only the encrypted blob
 *   exists; the blob itself is unreadable outside OpenAI and is not copied).
 * - `compacted` entries: one summaries.jsonl record for the messages since the previous
 *   one; then the `replacement_history` messages (what Codex kept, the summary among them,
 *   marked kind `summary`), or a user message of kind `summary` holding `message` when the
 *   entry has no replacement history. Earlier messages are history only, so current.jsonl
 *   is the context after the last compaction.
 * - `event_msg` token_count: the last cumulative usage is the task's usage and each event
 *   with usage one LLM call; without any, every run of model items (reasoning, assistant
 *   text, calls) between user turns and tool outputs counts as one LLM call. Other events
 *   repeat items (agent_message, agent_reasoning) or are UI notices: counted as ignored.
 *
 * Counts: messages = 1 (instructions, if any) + user records used + system/developer
 * items + reasoning items + assistant groups + outputs (+ compaction messages);
 * tool calls = call items + web searches + outputs without a call.
 */
import { realRequest, repoKey, titleLine } from './session-meta';
import path from 'node:path';
import type { ToolCall, TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { readJsonl } from '../jsonl/jsonl-reader';
import { badInput } from '../errors';
import { codexCallId, codexMessageText, toCodexLine, type CodexLine } from './codex-line';
import { scanCodex, type CodexScan } from './codex-scan';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport } from './import-session';
import { TranscriptWriter } from './transcript-writer';
import {
  PROMPT_MAX_CHARS,
  argumentsString,
  argumentsValue,
  asString,
  clip,
  contentText,
  isRecord,
  titleFrom,
} from './text';
import { REASONING_NAME, type ImportOptions } from './types';

export async function importCodex(
  store: ContextStore,
  file: string,
  options: ImportOptions = {},
): Promise<TranscriptImport> {
  const scan = await scanCodex(file, options.maxLineBytes);
  if (
    scan.sessionId === undefined &&
    scan.firstTimestamp === undefined &&
    scan.prompt === undefined
  ) {
    throw badInput(`${path.basename(file)}: no Codex rollout entries found`);
  }
  const report = new ImportReport(file);
  const session = await beginImport(store, {
    title: titleLine(realRequest(scan.prompt)) ?? titleFrom(scan.prompt) ?? null,
    prompt: scan.prompt !== undefined ? clip(scan.prompt, PROMPT_MAX_CHARS) : null,
    workdir: scan.cwd ?? null,
    model: scan.model ?? null,
    llm_provider: scan.provider ?? 'openai',
    key: {
      task_source: 'codex',
      task_id: scan.sessionId ?? '',
      ...repoKey(scan.cwd, scan.gitRemote),
    },
    status: 'completed',
    ...(scan.firstTimestamp !== undefined && { created_at: scan.firstTimestamp }),
    ...(scan.lastTimestamp !== undefined && { completed_at: scan.lastTimestamp }),
    source: {
      format: 'codex',
      file: path.resolve(file),
      session_id: scan.sessionId ?? null,
      cwd: scan.cwd ?? null,
      model: scan.model ?? null,
      model_provider: scan.provider ?? null,
      cli_version: scan.cliVersion ?? null,
      originator: scan.originator ?? null,
      git_branch: scan.gitBranch ?? null,
      git_remote: scan.gitRemote ?? null,
    },
  });
  try {
    const mapper = new CodexMapper(new TranscriptWriter(session.task), scan, report);
    const readOptions = {
      end: scan.size,
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    };
    for await (const raw of readJsonl(file, readOptions)) {
      if (!raw.ok) {
        report.skipLine(raw.lineNo, raw.error);
        continue;
      }
      const line = toCodexLine(raw.value, raw.lineNo);
      if (!line) {
        report.skipLine(raw.lineNo, 'not a Codex rollout line');
        continue;
      }
      mapper.line(line, raw.lineNo);
    }
    const counters = mapper.end();
    const row: TaskRow = await session.finish(counters);
    return { rows: [row], report };
  } catch (err) {
    await session.abort(err);
    throw err;
  }
}

interface PendingAssistant {
  text: string | null;
  toolCalls: ToolCall[];
  timestamp?: string;
  line: number;
}

class CodexMapper {
  private pending: PendingAssistant | undefined;
  private inModelRun = false;

  constructor(
    private readonly writer: TranscriptWriter,
    private readonly scan: CodexScan,
    private readonly report: ImportReport,
  ) {
    // The system prompt survives compaction, so it is never history-only.
    if (scan.instructions !== undefined && scan.instructions !== '') {
      writer.append({
        role: 'system',
        content: scan.instructions,
        ...(scan.firstTimestamp !== undefined && { timestamp: scan.firstTimestamp }),
      });
    }
  }

  line(line: CodexLine, lineNo: number): void {
    if (line.kind === 'other') return this.report.ignore(line.type);
    if (line.kind === 'session_meta' || line.kind === 'turn_context') return;
    const at = {
      ...(line.timestamp !== undefined && { timestamp: line.timestamp }),
      ...(lineNo < this.scan.lastCompactedLine && { historyOnly: true }),
    };
    const p = line.payload;
    if (line.kind === 'compacted') return this.compacted(p, at);
    if (line.kind === 'event_msg') return this.event(p, at);
    this.item(p, at, lineNo);
  }

  end(): ReturnType<TranscriptWriter['finish']> {
    this.flush();
    if (this.scan.tokenCounts > 0) {
      this.writer.countLlmCall(this.scan.tokenCounts);
      if (this.scan.usage) this.writer.addUsage(this.scan.usage);
    }
    return this.writer.finish();
  }

  private event(p: Record<string, unknown>, at: At): void {
    const type = asString(p.type) ?? 'unknown';
    if (type === 'user_message' && !this.scan.hasUserItems) {
      this.userTurn();
      const images = Array.isArray(p.images) ? p.images.length : 0;
      const text = (asString(p.message) ?? '') + (images > 0 ? `\n[${images} image(s)]` : '');
      this.writer.append({ role: 'user', content: text, ...at });
    } else if (type !== 'token_count') this.report.ignore(`event_msg:${type}`);
  }

  private item(p: Record<string, unknown>, at: At, lineNo: number): void {
    const type = asString(p.type) ?? 'unknown';
    switch (type) {
      case 'message':
        return this.message(p, at, lineNo);
      case 'reasoning': {
        this.flush();
        this.modelItem();
        this.writer.append({
          role: 'assistant',
          content: reasoningText(p),
          name: REASONING_NAME,
          ...at,
          historyOnly: true,
        });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        this.modelItem();
        const id = codexCallId(p) ?? `call_line${lineNo}`;
        const namespace = asString(p.namespace) ?? '';
        const name =
          type === 'local_shell_call' ? 'local_shell' : namespace + (asString(p.name) ?? 'unknown');
        const args =
          type === 'function_call' ? p.arguments : type === 'custom_tool_call' ? p.input : p.action;
        const pending = (this.pending ??= { text: null, toolCalls: [], line: lineNo, ...ts(at) });
        pending.toolCalls.push({
          id,
          type: 'function',
          function: { name, arguments: argumentsString(args) },
        });
        this.writer.startToolCall({ id, name, args: argumentsValue(args), ...ts(at) });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        this.flush();
        this.inModelRun = false;
        const id = codexCallId(p) ?? '';
        const { text, isError } = outputOf(p.output);
        const name = this.writer.finishToolCall({ id, content: text, isError, ...ts(at) });
        this.writer.append({
          role: 'tool',
          content: text,
          tool_call_id: id,
          ...(name !== undefined && { tool_name: name }),
          ...at,
        });
        return;
      }
      case 'web_search_call':
        this.flush();
        this.modelItem();
        this.writer.recordTool({ tool: 'web_search', args: p.action ?? {}, result: null });
        return;
      default:
        this.report.ignore(`response_item:${type}`);
    }
  }

  private message(p: Record<string, unknown>, at: At, lineNo: number): void {
    const role = asString(p.role);
    const text = codexMessageText(p);
    if (role === 'assistant') {
      this.flush();
      this.modelItem();
      this.pending = { text, toolCalls: [], line: lineNo, ...ts(at) };
    } else if (role === 'user') {
      if (!this.scan.hasUserItems) return this.report.ignore('response_item:message:user');
      this.userTurn();
      this.writer.append({ role: 'user', content: text, ...at });
    } else {
      this.flush();
      this.inModelRun = false;
      this.writer.append({ role: 'system', content: text, ...at });
    }
  }

  private compacted(p: Record<string, unknown>, at: At): void {
    this.flush();
    this.inModelRun = false;
    const summary = asString(p.message) ?? '';
    const replacement = Array.isArray(p.replacement_history) ? p.replacement_history : undefined;
    this.writer.compaction({
      strategy: 'codex-compact',
      summary,
      extra: {
        source_format: 'codex',
        ...(replacement && { replacement_items: replacement.length }),
      },
    });
    let summaryWritten = false;
    for (const item of replacement ?? []) {
      if (!isRecord(item) || item.type !== 'message') {
        this.report.ignore('compacted:replacement_item');
        continue;
      }
      const text = codexMessageText(item);
      const role =
        item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system';
      const isSummary: boolean = !summaryWritten && summary !== '' && text.includes(summary);
      summaryWritten ||= isSummary;
      this.writer.append({ role, content: text, ...(isSummary && { kind: 'summary' }), ...at });
    }
    if (!summaryWritten)
      this.writer.append({ role: 'user', content: summary, kind: 'summary', ...at });
  }

  /** A user turn ends the model's run and any assistant message being assembled. */
  private userTurn(): void {
    this.flush();
    this.inModelRun = false;
  }

  /** Without token_count events, each run of model items is one LLM call. */
  private modelItem(): void {
    if (!this.inModelRun && this.scan.tokenCounts === 0) this.writer.countLlmCall();
    this.inModelRun = true;
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.writer.append({
      role: 'assistant',
      content: pending.text,
      ...(pending.toolCalls.length > 0 && { tool_calls: pending.toolCalls }),
      ...(pending.timestamp !== undefined && { timestamp: pending.timestamp }),
      ...(pending.line < this.scan.lastCompactedLine && { historyOnly: true }),
    });
  }
}

type At = { timestamp?: string; historyOnly?: boolean };

function ts(at: At): { timestamp?: string } {
  return at.timestamp !== undefined ? { timestamp: at.timestamp } : {};
}

function reasoningText(p: Record<string, unknown>): string {
  const summary = contentText(p.summary);
  const content = contentText(p.content);
  const text = [summary, content].filter((t) => t !== '').join('\n\n');
  if (text !== '') return text;
  const encrypted = asString(p.encrypted_content);
  return encrypted
    ? `[encrypted reasoning, ${encrypted.length} characters]`
    : '[reasoning without text]';
}

/** Outputs are a string, or (older rollouts) `{content, success}`. */
function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  if (isRecord(output)) {
    return { text: contentText(output.content ?? ''), isError: output.success === false };
  }
  return { text: contentText(output), isError: false };
}
