/**
 * Cline and Roo Code tasks (VS Code global storage `tasks/<id>/`): `api_conversation_history.json`
 * is what the model saw (Anthropic messages: `{role, content: string | blocks, ts?,
 * modelInfo?, metrics?}`), rewritten whole as the task grows; `ui_messages.json` (what the
 * panel showed, with `ts` and per-request `api_req_started` usage) and `task_metadata.json`
 * (models used) beside it add times, usage and model when present.
 *
 * - assistant → text blocks joined as an assistant message (one LLM call; `metrics.tokens`
 *   → usage, `prompt` less `cached` being the uncached input), `thinking`/`reasoning` blocks → a history-only reasoning message first,
 *   `tool_use` blocks → tool calls.
 * - user → `tool_result` blocks (by `tool_use_id`) and `[tool for 'x'] Result:` text blocks
 *   (in order) → tool messages answering the previous assistant's calls, named from that
 *   header, which native-tool Cline also writes inside `tool_result` (XML-tool tasks, which
 *   have no tool_use blocks, get one call per result block, named from its header); the other
 *   blocks (the request, `<environment_details>`, reminders: all of it was in the
 *   context) → one user message.
 * - The agent: Roo Code when the folder is under `rooveterinaryinc.roo-cline` (or the
 *   context names Roo's modes), else Cline. Working directory and git remote come from the
 *   first `<environment_details>` ("Current Working Directory (…)", "associatedRemoteUrls").
 *
 * Keys: `m<index>`, `m<index>/reasoning`, `m<index>/tool:<n>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolCall } from '../../shared/task-types';
import { subagentEvents, subagentRuns } from './cline-subagents';
import { clineSdkEvents, isClineSdkDocument } from './cline-sdk';
import { readJsonDocument } from './json-document';
import type { AgentId, SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import {
  argumentsString,
  asNumber,
  asString,
  contentText,
  isRecord,
  normalizeTimestamp,
} from './text';

const BLOCK_TYPES = new Set([
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'reasoning',
  'document',
]);
const RESULT_HEADER = /^\[([\w-]+)(?: for ([\s\S]*?))?\] Result:/;

function isBlockMessage(m: unknown): m is Record<string, unknown> {
  return (
    isRecord(m) &&
    (m.role === 'user' || m.role === 'assistant') &&
    (typeof m.content === 'string' ||
      (Array.isArray(m.content) &&
        m.content.every((b) => isRecord(b) && BLOCK_TYPES.has(String(b.type)))))
  );
}

/**
 * Claims a list of Anthropic-style messages that only Cline/Roo write: the file's own name,
 * or a message with `ts`/`modelInfo`, a tool_use/tool_result block, or a `<task>` request.
 */
export function isClineDocument(doc: unknown, fileName = ''): boolean {
  if (!Array.isArray(doc) || doc.length === 0 || !doc.every(isBlockMessage)) return false;
  if (fileName === 'api_conversation_history.json') return true;
  return doc.some(
    (m) =>
      isRecord(m) &&
      (typeof m.ts === 'number' ||
        isRecord(m.modelInfo) ||
        (Array.isArray(m.content) &&
          m.content.some(
            (b) =>
              isRecord(b) &&
              (b.type === 'tool_use' ||
                b.type === 'tool_result' ||
                (typeof b.text === 'string' && /^<task>/.test(b.text))),
          ))),
  );
}

export const clineFormat: SessionFormat = {
  agent: 'cline',
  input: 'document',
  sniff: (doc, fileName) => isClineDocument(doc, fileName) || isClineSdkDocument(doc),
  async *parse(file, doc, options) {
    const d = doc ?? (await readJsonDocument(file, options?.maxJsonBytes));
    // Cline since its SDK migration: `<id>.messages.json` under ~/.cline/data/sessions.
    if (isClineSdkDocument(d)) yield* clineSdkEvents(file, d, options?.retryBusy === true);
    else yield* clineEvents(file, Array.isArray(d) ? d : []);
  },
};

export interface UiFacts {
  first?: string;
  last?: string;
  /** Usage of each api_req_started, in order (used when the history has no metrics). */
  requests: Record<string, number>[];
  model?: string;
  /** The use_subagents runs the panel showed (cline-subagents.ts). */
  runs: ReturnType<typeof subagentRuns>;
}

function readSibling(file: string, name: string): unknown {
  try {
    const p = path.join(path.dirname(file), name);
    // Sibling files are small next to the history; refuse anything unreasonable.
    if (fs.statSync(p).size > 256 * 1024 * 1024) return undefined;
    return JSON.parse(fs.readFileSync(p, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function uiFacts(file: string): UiFacts {
  const ui = readSibling(file, 'ui_messages.json');
  const facts: UiFacts = { requests: [], runs: subagentRuns(ui) };
  if (Array.isArray(ui)) {
    for (const m of ui) {
      if (!isRecord(m)) continue;
      const ts = normalizeTimestamp(m.ts);
      if (ts) {
        facts.first ??= ts;
        facts.last = ts;
      }
      if (m.say === 'api_req_started' && typeof m.text === 'string') {
        try {
          const info: unknown = JSON.parse(m.text);
          if (isRecord(info))
            facts.requests.push({
              input_tokens: asNumber(info.tokensIn),
              output_tokens: asNumber(info.tokensOut),
              cache_creation_tokens: asNumber(info.cacheWrites),
              cache_read_tokens: asNumber(info.cacheReads),
            });
        } catch {
          // a partial request line: no usage
        }
      }
      const info = isRecord(m.modelInfo) ? m.modelInfo : undefined;
      if (info && typeof info.modelId === 'string') facts.model ??= info.modelId;
    }
  }
  const meta = readSibling(file, 'task_metadata.json');
  const usage = isRecord(meta) && Array.isArray(meta.model_usage) ? meta.model_usage : [];
  const lastModel = usage
    .filter(isRecord)
    .map((u) => asString(u.model_id))
    .filter(Boolean)
    .pop();
  if (lastModel) facts.model ??= lastModel;
  return facts;
}

function agentOf(file: string, messages: unknown[]): AgentId {
  if (/roo-cline|roo-code|roocode/i.test(path.resolve(file))) return 'roo-code';
  const first = messages[0];
  const text = isRecord(first) ? contentText(first.content) : '';
  return /<slug>(code|architect|ask|debug|orchestrator)<\/slug>/.test(text) ? 'roo-code' : 'cline';
}

function environment(messages: unknown[]): Partial<SessionMeta> {
  for (const m of messages.slice(0, 4)) {
    if (!isRecord(m) || m.role !== 'user') continue;
    const text = contentText(m.content);
    const cwd = /# Current Working Directory \(([^)\n]+)\)/.exec(text)?.[1];
    const remote = /"(?:origin: )?((?:https?:\/\/|git@)[^"\s]+)"/.exec(
      /associatedRemoteUrls[\s\S]{0,400}/.exec(text)?.[0] ?? '',
    )?.[1];
    if (cwd || remote) return { ...(cwd && { cwd }), ...(remote && { gitRemote: remote }) };
  }
  return {};
}

function* clineEvents(file: string, messages: unknown[]): Generator<SessionEvent> {
  const ui = uiFacts(file);
  const firstUser = messages.find((m) => isRecord(m) && m.role === 'user');
  const request = isRecord(firstUser) ? firstRequest(firstUser.content) : undefined;
  const stamps = messages
    .map((m) => (isRecord(m) ? normalizeTimestamp(m.ts) : undefined))
    .filter(Boolean) as string[];
  const historyModel = messages
    .map((m) => (isRecord(m) && isRecord(m.modelInfo) ? asString(m.modelInfo.modelId) : undefined))
    .find(Boolean);
  const model = historyModel ?? ui.model;
  const taskId = path.basename(path.dirname(path.resolve(file)));
  const started = [ui.first, stamps[0]].filter(Boolean).sort()[0];
  const ended = [ui.last, stamps[stamps.length - 1]].filter(Boolean).sort().pop();
  const meta: SessionMeta = {
    agent: agentOf(file, messages),
    ...(/^\d{10,}$/.test(taskId) && { sessionId: taskId }),
    ...(request !== undefined && { firstRequest: request }),
    ...(model !== undefined && { model }),
    ...(started !== undefined && { startedAt: started }),
    ...(ended !== undefined && { endedAt: ended }),
    ...environment(messages),
  };
  yield { kind: 'session', key: taskId, meta };
  yield* conversationEvents(messages, ui);
  // Its subagents: sessions of their own, after the task's messages (their keys are stable).
  yield* subagentEvents({ ...meta, sessionId: meta.sessionId ?? taskId }, ui.runs);
}

export function* conversationEvents(messages: unknown[], ui: UiFacts): Generator<SessionEvent> {
  let pending: string[] = [];
  /** Names of the last reply's calls: a result names its call's tool ("[subagents] Result:" answers use_subagents). */
  let names = new Map<string, string>();
  let requestIndex = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const key = `m${i}`;
    if (!isBlockMessage(m)) {
      yield {
        kind: 'skip',
        key,
        where: `message ${i + 1}`,
        reason: 'not a Cline message (role user/assistant with text or content blocks)',
      };
      continue;
    }
    const ts = normalizeTimestamp(m.ts);
    const at = ts !== undefined ? { timestamp: ts } : {};
    const blocks: Record<string, unknown>[] =
      typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : (m.content as Record<string, unknown>[]);
    if (m.role === 'assistant') {
      const reasoning = blocks
        .filter((b) => b.type === 'thinking' || b.type === 'reasoning')
        .map((b) => asString(b.thinking) ?? asString(b.text) ?? '')
        .filter((t) => t !== '');
      if (reasoning.length > 0)
        yield {
          kind: 'message',
          key: `${key}/reasoning`,
          message: {
            role: 'assistant',
            content: reasoning.join('\n\n'),
            name: REASONING_NAME,
            historyOnly: true,
            ...at,
          },
        };
      const calls: ToolCall[] = blocks
        .filter((b) => b.type === 'tool_use' && typeof b.name === 'string')
        .map((b, j) => ({
          id: asString(b.id) ?? `${key}-call-${j + 1}`,
          type: 'function' as const,
          function: { name: String(b.name), arguments: argumentsString(b.input) },
        }));
      // XML-tool tasks: the calls are in the text; the next user turn's result headers name them.
      if (calls.length === 0) calls.push(...xmlCalls(key, messages[i + 1]));
      pending = calls.map((c) => c.id);
      names = new Map(calls.map((c) => [c.id, c.function.name]));
      const text = blocks
        .filter((b) => b.type === 'text')
        .map((b) => asString(b.text) ?? '')
        .join('\n');
      const metrics =
        isRecord(m.metrics) && isRecord(m.metrics.tokens) ? m.metrics.tokens : undefined;
      // Cline's `prompt` counts the cached input too; input_tokens is the uncached part.
      const cached = metrics ? Math.min(asNumber(metrics.cached), asNumber(metrics.prompt)) : 0;
      const usage = metrics
        ? {
            input_tokens: asNumber(metrics.prompt) - cached,
            output_tokens: asNumber(metrics.completion),
            cache_read_tokens: cached,
            // Only the SDK's messages record cache writes (cline-sdk.ts passes them here).
            cache_creation_tokens: asNumber(metrics.cacheWrites),
          }
        : ui.requests[requestIndex];
      requestIndex++;
      const modelId = isRecord(m.modelInfo) ? asString(m.modelInfo.modelId) : undefined;
      yield {
        kind: 'message',
        key,
        message: {
          role: 'assistant',
          content: text,
          ...(calls.length > 0 && { tool_calls: calls }),
          ...at,
        },
        llmCall: true,
        ...(usage && { usage }),
        ...(modelId !== undefined && { model: modelId }),
      };
      continue;
    }
    const rest: string[] = [];
    let n = 0;
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j]!;
      const text = asString(b.text);
      const header = text !== undefined ? RESULT_HEADER.exec(text) : null;
      if (b.type === 'tool_result' || header) {
        const id = asString(b.tool_use_id) ?? pending.shift() ?? `${key}-result-${n + 1}`;
        if (b.type === 'tool_result') pending = pending.filter((p) => p !== id);
        // Older Cline writes the header alone and the output in the blocks after it.
        const parts = [b.type === 'tool_result' ? contentText(b.content) : (text ?? '')];
        // Native-tool Cline puts the same "[name for 'x'] Result:" header inside tool_result.
        const name = names.get(id) ?? header?.[1] ?? RESULT_HEADER.exec(parts[0]!)?.[1];
        while (header && j + 1 < blocks.length && continuesResult(blocks[j + 1]!)) {
          const next = blocks[++j]!;
          parts.push(
            next.type === 'image' ? '[image]' : (asString(next.text) ?? contentText(next)),
          );
        }
        yield {
          kind: 'message',
          key: `${key}/tool:${n++}`,
          message: {
            role: 'tool',
            content: parts.join('\n'),
            tool_call_id: id,
            ...(name !== undefined && { tool_name: name }),
            isError: b.is_error === true,
            ...at,
          },
        };
      } else if (b.type === 'image') rest.push('[image]');
      else rest.push(text ?? contentText(b));
    }
    const userText = rest.filter((t) => t.trim() !== '').join('\n');
    if (userText !== '' || n === 0)
      yield { kind: 'message', key, message: { role: 'user', content: userText, ...at } };
  }
}

/** A block after a result header that is still that result: not another result, not injected context. */
function continuesResult(b: Record<string, unknown>): boolean {
  if (b.type === 'image') return true;
  if (b.type !== 'text') return false;
  const text = asString(b.text) ?? '';
  return !RESULT_HEADER.test(text) && !/^\s*(<[a-z_]+>|#\s|\[TASK RESUMPTION\])/i.test(text);
}

/** One call per `[name for 'x'] Result:` block of the user turn after an XML-tool reply. */
function xmlCalls(key: string, next: unknown): ToolCall[] {
  if (!isRecord(next) || next.role !== 'user' || !Array.isArray(next.content)) return [];
  const calls: ToolCall[] = [];
  for (const b of next.content) {
    const text = isRecord(b) ? asString(b.text) : undefined;
    const header = text !== undefined ? RESULT_HEADER.exec(text) : null;
    if (!header) continue;
    calls.push({
      id: `${key}-call-${calls.length + 1}`,
      type: 'function',
      function: {
        name: header[1]!,
        arguments: JSON.stringify(header[2] ? { target: header[2] } : {}),
      },
    });
  }
  return calls;
}

export function firstRequest(content: unknown): string | undefined {
  if (typeof content === 'string') return realRequest(content);
  if (!Array.isArray(content)) return undefined;
  for (const b of content) {
    const text = isRecord(b) ? asString(b.text) : undefined;
    const r = realRequest(text);
    if (r && !RESULT_HEADER.test(r)) return r;
  }
  return undefined;
}
