import type { ToolCall, TokenUsage } from '../../shared/task-types';
import {
  codexCallId,
  codexInstructions,
  codexMessageText,
  toCodexLine,
} from '../import/codex-line';
import { usageWithTotal } from '../import/transcript-writer';
import {
  argumentsString,
  argumentsValue,
  asNumber,
  asString,
  clip,
  contentText,
  durationBetween,
  isRecord,
  normalizeTimestamp,
} from '../import/text';
import { REASONING_NAME } from '../import/types';
import { MAIN, type CreateLineMapper, type LineMapper } from './sync-sink';

interface PendingCall {
  name: string;
  args: unknown;
  timestamp?: string;
}

interface State {
  calls: Record<string, PendingCall>;
  /** A `user` response item was seen: user turns come from items, not the repeated events. */
  userItems: boolean;
  /** `token_count` events were seen: they count the LLM calls (else each run of model items does). */
  tokenCounts?: boolean;
  /** Within a run of model items (reasoning, assistant text, calls) since the last user turn or output. */
  inModelRun?: boolean;
}

const SAVED_ARGS_CHARS = 4000;
const ERROR_CHARS = 2000;

/**
 * Codex rollouts, line by line, for live sync; the importer's mapping (src/core/import/
 * codex.ts) without its first pass: instructions become the first (system) message when
 * `session_meta` arrives, calls next to an assistant text in one batch are one message, each
 * `token_count` event with `last_token_usage` is one LLM call with that usage, and user turns
 * come from the `user_message` events until the file shows a `user` response item (current
 * rollouts write the item first). A `compacted` entry is a summaries.jsonl record and the
 * messages Codex kept, its summary among them (kind `summary`), as on import.
 */
export const codexLines: CreateLineMapper = (saved, sink) => {
  const state: State = isState(saved) ? saved : { calls: {}, userItems: false };
  const live = new Map<string, PendingCall>();
  let pending: { text: string | null; toolCalls: ToolCall[]; timestamp?: string } | undefined;

  const flush = (): void => {
    const p = pending;
    if (!p) return;
    pending = undefined;
    sink.message(MAIN, {
      role: 'assistant',
      content: p.text,
      ...(p.toolCalls.length > 0 && { tool_calls: p.toolCalls }),
      ...(p.timestamp !== undefined && { timestamp: p.timestamp }),
    });
  };

  // As the importer: without token_count events, each run of model items is one LLM call.
  const modelItem = (): void => {
    if (!state.inModelRun && !state.tokenCounts) sink.llmCall(MAIN);
    state.inModelRun = true;
  };

  const mapper: LineMapper = {
    line(value, lineNo) {
      const line = toCodexLine(value, lineNo);
      if (line === undefined) {
        flush();
        sink.skip(lineNo, 'not a Codex rollout line');
        return;
      }
      if (line.kind === 'other') return;
      const p = line.payload;
      // The session started before its first line was written (as the importer's scan).
      const started = line.kind === 'session_meta' ? normalizeTimestamp(p.timestamp) : undefined;
      if (started !== undefined) sink.describe(MAIN, { firstTimestamp: started });
      const at = line.timestamp !== undefined ? { timestamp: line.timestamp } : {};
      if (line.timestamp !== undefined)
        sink.describe(MAIN, { firstTimestamp: line.timestamp, lastTimestamp: line.timestamp });
      if (line.kind === 'session_meta') {
        const git = isRecord(p.git) ? p.git : undefined;
        sink.describe(MAIN, {
          ...(asString(git?.repository_url) !== undefined && {
            gitRemote: asString(git?.repository_url)!,
          }),
          ...(asString(git?.branch) !== undefined && { gitBranch: asString(git?.branch)! }),
          ...(asString(p.id) !== undefined && { sessionId: asString(p.id)! }),
          ...(asString(p.cwd) !== undefined && { workdir: asString(p.cwd)! }),
          ...(asString(p.model) !== undefined && { model: asString(p.model)! }),
          ...(asString(p.cli_version) !== undefined && { version: asString(p.cli_version)! }),
        });
        const instructions = codexInstructions(p);
        if (instructions)
          sink.message(MAIN, {
            role: 'system',
            content: instructions,
            ...(started !== undefined ? { timestamp: started } : at),
          });
        return;
      }
      if (line.kind === 'turn_context') {
        sink.describe(MAIN, {
          ...(asString(p.model) !== undefined && { model: asString(p.model)! }),
          ...(asString(p.cwd) !== undefined && { workdir: asString(p.cwd)! }),
        });
        return;
      }
      if (line.kind === 'compacted') {
        // As the importer: a summaries.jsonl record, then what Codex kept (the summary among it).
        flush();
        state.inModelRun = false;
        const summary = asString(p.message) ?? '';
        const replacement = Array.isArray(p.replacement_history)
          ? p.replacement_history
          : undefined;
        sink.compaction(MAIN, {
          strategy: 'codex-compact',
          summary,
          extra: {
            source_format: 'codex',
            ...(replacement && { replacement_items: replacement.length }),
          },
        });
        let summaryWritten = false;
        for (const item of replacement ?? []) {
          if (!isRecord(item) || item.type !== 'message') continue;
          const text = codexMessageText(item);
          const role =
            item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system';
          const isSummary: boolean = !summaryWritten && summary !== '' && text.includes(summary);
          summaryWritten ||= isSummary;
          sink.message(MAIN, { role, content: text, ...(isSummary && { kind: 'summary' }), ...at });
        }
        if (!summaryWritten)
          sink.message(MAIN, { role: 'user', content: summary, kind: 'summary', ...at });
        return;
      }
      if (line.kind === 'event_msg') {
        const type = asString(p.type);
        if (type === 'user_message' && !state.userItems) {
          flush();
          state.inModelRun = false;
          const text = asString(p.message) ?? '';
          sink.describe(MAIN, { prompt: userRequest(text) });
          sink.message(MAIN, { role: 'user', content: text, ...at });
        } else if (type === 'user_message') {
          sink.describe(MAIN, { prompt: userRequest(asString(p.message) ?? '') });
        } else if (
          type === 'token_count' &&
          isRecord(p.info) &&
          isRecord(p.info.last_token_usage)
        ) {
          state.tokenCounts = true;
          sink.llmCall(MAIN, toUsage(p.info.last_token_usage));
        }
        return;
      }
      const type = asString(p.type) ?? 'unknown';
      if (type === 'message') {
        const role = asString(p.role);
        const text = codexMessageText(p);
        if (role === 'assistant') {
          flush();
          modelItem();
          pending = { text, toolCalls: [], ...at };
        } else {
          flush();
          if (role === 'user') {
            state.userItems = true;
            state.inModelRun = false;
          }
          sink.message(MAIN, { role: role === 'user' ? 'user' : 'system', content: text, ...at });
        }
      } else if (type === 'reasoning') {
        flush();
        modelItem();
        const text = [contentText(p.summary), contentText(p.content)]
          .filter((t) => t !== '')
          .join('\n\n');
        const encrypted = asString(p.encrypted_content);
        sink.message(MAIN, {
          role: 'assistant',
          content:
            text ||
            (encrypted
              ? `[encrypted reasoning, ${encrypted.length} characters]`
              : '[reasoning without text]'),
          name: REASONING_NAME,
          historyOnly: true,
          ...at,
        });
      } else if (
        type === 'function_call' ||
        type === 'custom_tool_call' ||
        type === 'local_shell_call'
      ) {
        modelItem();
        const id = codexCallId(p) ?? `call_line${lineNo}`;
        const name =
          type === 'local_shell_call'
            ? 'local_shell'
            : (asString(p.namespace) ?? '') + (asString(p.name) ?? 'unknown');
        const args =
          type === 'function_call' ? p.arguments : type === 'custom_tool_call' ? p.input : p.action;
        pending ??= { text: null, toolCalls: [], ...at };
        pending.toolCalls.push({
          id,
          type: 'function',
          function: { name, arguments: argumentsString(args) },
        });
        live.set(id, { name, args: argumentsValue(args), ...at });
      } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
        flush();
        state.inModelRun = false;
        const id = codexCallId(p) ?? '';
        const { text, isError } = outputOf(p.output);
        const call = live.get(id) ?? state.calls[id];
        live.delete(id);
        delete state.calls[id];
        sink.message(MAIN, {
          role: 'tool',
          content: text,
          tool_call_id: id,
          ...(call !== undefined && { tool_name: call.name }),
          ...at,
        });
        sink.tool(MAIN, {
          tool: call?.name ?? 'unknown',
          args: call?.args ?? null,
          result: text,
          status: isError ? 'error' : 'success',
          error: isError ? clip(text || 'error', ERROR_CHARS) : null,
          duration_ms: durationBetween(call?.timestamp, line.timestamp),
          tool_call_id: id,
          ...at,
        });
      } else if (type === 'web_search_call') {
        flush();
        modelItem();
        sink.tool(MAIN, {
          tool: 'web_search',
          args: p.action ?? {},
          result: null,
          status: 'success',
          duration_ms: 0,
          ...at,
        });
      }
    },
    end() {
      flush();
      for (const [id, call] of live) {
        const json = JSON.stringify(call.args) ?? '';
        state.calls[id] = {
          ...call,
          args:
            json.length > SAVED_ARGS_CHARS ? { clipped: clip(json, SAVED_ARGS_CHARS) } : call.args,
        };
      }
      live.clear();
    },
    save: () => state,
  };
  return mapper;
};

/** The request itself when an IDE wrapped it (as the importer's scan does). */
function userRequest(prompt: string): string {
  const marker = '## My request for Codex:';
  const at = prompt.indexOf(marker);
  return at === -1 ? prompt : prompt.slice(at + marker.length).trim() || prompt;
}

function toUsage(u: Record<string, unknown>): TokenUsage {
  // OpenAI: input_tokens includes the cached ones.
  const cached = asNumber(u.cached_input_tokens);
  return usageWithTotal({
    input_tokens: Math.max(0, asNumber(u.input_tokens) - cached),
    output_tokens: asNumber(u.output_tokens),
    cache_creation_tokens: 0,
    cache_read_tokens: cached,
  });
}

function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  if (isRecord(output))
    return { text: contentText(output.content ?? ''), isError: output.success === false };
  return { text: contentText(output), isError: false };
}

function isState(value: unknown): value is State {
  return typeof value === 'object' && value !== null && 'calls' in value && 'userItems' in value;
}
