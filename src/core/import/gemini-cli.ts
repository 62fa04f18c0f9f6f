/**
 * Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/`; gemini-cli's chatRecordingService).
 * The project folder is a hash of the project's path (older releases) or a slug with a
 * `.project_root` file naming the path (newer: the task's working directory). Two files:
 * the JSON document of releases before 0.38 (`session-*.json`, rewritten whole) and the
 * JSON Lines log newer ones append to (`session-*.jsonl`; a sub-agent's chat is
 * `chats/<parent session id>/<id>.jsonl`, `kind: "subagent"`); gemini-cli-log.ts reads both
 * into one list of what happened. `{sessionId, projectHash, startTime, lastUpdated,
 * summary?, kind?, messages: [...]}`:
 *
 * - `type: "user"` → a user message (`content` is a string or a list of parts).
 * - `type: "gemini"` → its `thoughts` (subject + description) as one history-only reasoning
 *   message, then an assistant message (one LLM call; `tokens` → usage: `input` includes
 *   `cached`, `thoughts` are billed as output) whose `toolCalls` become tool calls, each
 *   answered by one tool message from its `result` (functionResponse output or error;
 *   status error/cancelled → a failed tool execution).
 * - `info`, `error`, `warning` → UI notices, not model context: counted as ignored — except
 *   the notice of a compression ("Context compressed from 68% to 3%."), see below.
 * - `summary` (written by newer CLIs) is the session's title.
 *
 * **Compressions** become the agent's own compaction records (agent-compaction.ts): in the
 * JSON Lines log, the checkpoint that replaced the history by the `<state_snapshot>`
 * summary, the model's acknowledgement and the turns kept (that list is the new context;
 * the notice after it adds the CLI's percentages); in the JSON document, which never held
 * the summary, the notice alone: a record that says so, whose new context is empty, so
 * what left the context still shows. Messages before the last compression are history-only.
 *
 * Keys: `gemini:<message id>`, `gemini:<message id>/thoughts`, `gemini:<message id>/tool:<call id>`,
 * `gemini:compaction:<line>`; a legacy message without an id: `m<index>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolCall } from '../../shared/task-types';
import type { NewMessage } from '../store/message-store';
import type { CompactionInput } from './agent-compaction';
import {
  geminiDocumentLog,
  isGeminiLogHead,
  isSnapshotMessage,
  readGeminiLog,
  type GeminiLog,
  type GeminiRecord,
} from './gemini-cli-log';
import { badInput } from '../errors';
import { readJsonDocument } from './json-document';
import { readJsonl } from '../jsonl/jsonl-reader';
import type { SessionEvent, SessionFormat, SessionMessage, SessionMeta } from './session-format';
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

const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

export function isGeminiCliDocument(doc: unknown): boolean {
  if (!isRecord(doc) || !Array.isArray(doc.messages)) return false;
  if (typeof doc.sessionId !== 'string' && typeof doc.projectHash !== 'string') return false;
  return doc.messages.every((m) => isRecord(m) && MESSAGE_TYPES.has(String(m.type)));
}

export const geminiCliFormat: SessionFormat = {
  agent: 'gemini-cli',
  input: 'document',
  sniff: (doc) => isGeminiCliDocument(doc),
  async *parse(file, doc, options) {
    yield* geminiEvents(
      file,
      await readGemini(file, doc, options?.maxJsonBytes),
      options?.growing === true,
    );
  },
};

/** The JSON Lines log when the file starts like one, else the JSON document. */
async function readGemini(file: string, doc: unknown, maxBytes?: number): Promise<GeminiLog> {
  if (doc === undefined) {
    for await (const first of readJsonl(file)) {
      if (first.ok && isGeminiLogHead(first.value)) return readGeminiLog(file);
      break;
    }
    doc = await readJsonDocument(file, maxBytes);
  }
  if (!isGeminiCliDocument(doc))
    throw badInput(
      `${path.basename(file)} is not a Gemini CLI session (neither its JSON Lines log nor its JSON document)`,
    );
  return geminiDocumentLog(doc as GeminiRecord);
}

/** "Context compressed from 68% to 3%." (newer CLIs) or "Chat history compressed from N to M tokens." */
const NOTICES: { re: RegExp; unit: 'percent' | 'tokens' }[] = [
  { re: /^Context compressed from (\d+)% to (\d+)%/, unit: 'percent' },
  { re: /^Chat history compressed from (\d+) to (\d+) tokens/, unit: 'tokens' },
];

function compressionNotice(m: GeminiRecord): Record<string, unknown> | undefined {
  if (m.type !== 'info') return undefined;
  const text = contentText(m.content).trim();
  for (const { re, unit } of NOTICES) {
    const found = re.exec(text);
    if (found)
      return {
        notice: text,
        ...(unit === 'percent'
          ? { context_percent_before: Number(found[1]), context_percent_after: Number(found[2]) }
          : { notice_tokens_before: Number(found[1]), notice_tokens_after: Number(found[2]) }),
      };
  }
  return undefined;
}

type Step =
  | { kind: 'message'; m: GeminiRecord; key: string; index: number }
  | { kind: 'checkpoint'; line: number; list: GeminiRecord[]; notice?: Record<string, unknown> }
  | { kind: 'notice'; m: GeminiRecord; key: string; notice: Record<string, unknown> }
  | { kind: 'pass'; event: SessionEvent };

/** The log's items in order, compression notices joined to the checkpoint they follow. */
function stepsOf(log: GeminiLog): Step[] {
  const steps: Step[] = [];
  let lastCheckpoint: Extract<Step, { kind: 'checkpoint' }> | undefined;
  for (const item of log.items) {
    if (item.type === 'checkpoint') {
      lastCheckpoint = { kind: 'checkpoint', line: item.line, list: item.list };
      steps.push(lastCheckpoint);
    } else if (item.type === 'ignore')
      steps.push({ kind: 'pass', event: { kind: 'ignore', key: 'ignore', what: item.what } });
    else if (item.type === 'skip')
      steps.push({ kind: 'pass', event: { kind: 'skip', key: 'skip', ...item } });
    else {
      const m = log.latest.get(item.id)!;
      const key = item.id.startsWith('#') ? `m${item.index}` : `gemini:${item.id}`;
      const notice = compressionNotice(m);
      if (notice && lastCheckpoint && !lastCheckpoint.notice) {
        lastCheckpoint.notice = notice;
        steps.push({
          kind: 'pass',
          event: { kind: 'ignore', key, what: 'gemini compression notice' },
        });
      } else if (notice) steps.push({ kind: 'notice', m, key, notice });
      else {
        steps.push({ kind: 'message', m, key, index: item.index });
        if (m.type === 'user' || m.type === 'gemini') lastCheckpoint = undefined;
      }
    }
  }
  return steps;
}

const DONE = new Set(['success', 'error', 'cancelled']);

/** A reply whose tool calls are still running, or an empty one its calls are still to join. */
function unfinished(m: GeminiRecord): boolean {
  const calls = Array.isArray(m.toolCalls) ? m.toolCalls : [];
  if (calls.length === 0) return contentText(m.content).trim() === '';
  return calls.some((c) => !isRecord(c) || !DONE.has(String(c.status)));
}

/** The project's path, from the `.project_root` file of newer (slug) project folders. */
function projectRoot(file: string, subagent: boolean): string | undefined {
  const chats = subagent ? path.dirname(path.dirname(file)) : path.dirname(file);
  try {
    const marker = path.join(path.dirname(chats), '.project_root');
    if (fs.statSync(marker).size > 4096) return undefined;
    const root = fs.readFileSync(marker, 'utf8').trim();
    return root !== '' ? root : undefined;
  } catch {
    return undefined;
  }
}

function sessionMeta(file: string, log: GeminiLog, steps: Step[]): SessionMeta {
  const head = log.head;
  const firstUser = steps.find(
    (s) => s.kind === 'message' && s.m.type === 'user' && realRequest(contentText(s.m.content)),
  );
  const model = steps
    .map((s) => (s.kind === 'message' ? asString(s.m.model) : undefined))
    .find(Boolean);
  const subagent = head.kind === 'subagent';
  const cwd = projectRoot(file, subagent);
  return {
    agent: 'gemini-cli',
    ...(typeof head.sessionId === 'string' && { sessionId: head.sessionId }),
    ...(typeof head.summary === 'string' && head.summary.trim() !== '' && { title: head.summary }),
    ...(firstUser?.kind === 'message' && {
      firstRequest: realRequest(contentText(firstUser.m.content))!,
    }),
    ...(model !== undefined && { model }),
    ...(cwd !== undefined && { cwd }),
    ...(typeof head.startTime === 'string' && { startedAt: head.startTime }),
    ...(typeof head.lastUpdated === 'string' && { updatedAt: head.lastUpdated }),
    // A sub-agent's chat sits in a folder named after its parent's session id.
    ...(subagent && { parentSessionId: path.basename(path.dirname(file)) }),
    extra: {
      project_hash: asString(head.projectHash) ?? null,
      ...(subagent && { kind: 'subagent' }),
    },
  };
}

function* geminiEvents(file: string, log: GeminiLog, growing: boolean): Generator<SessionEvent> {
  const steps = stepsOf(log);
  if (growing) {
    // The CLI rewrites its last reply as its tool calls run: one still waiting for its
    // calls or their results is read once the file is still.
    const last = steps.findLastIndex((s) => s.kind === 'message' && s.m.type === 'gemini');
    const step = steps[last];
    if (step?.kind === 'message' && unfinished(step.m)) steps.length = last;
  }
  const meta = sessionMeta(file, log, steps);
  yield { kind: 'session', key: meta.sessionId ?? path.basename(file), meta };
  const lastCompaction = steps.findLastIndex((s) => s.kind === 'checkpoint' || s.kind === 'notice');
  let promptTokens: number | undefined;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const history = i < lastCompaction;
    if (step.kind === 'pass') yield step.event;
    else if (step.kind === 'checkpoint')
      yield {
        kind: 'compaction',
        key: `gemini:compaction:${step.line}`,
        compaction: compression(step, history, promptTokens),
      };
    else if (step.kind === 'notice')
      yield { kind: 'compaction', key: step.key, compaction: noticeOnly(step, promptTokens) };
    else {
      const m = step.m;
      if (m.type === 'gemini' && isRecord(m.tokens))
        promptTokens = asNumber(m.tokens.input) || promptTokens;
      yield* geminiMessage(m, step.key, step.index, history);
    }
  }
}

function* geminiMessage(
  m: GeminiRecord,
  key: string,
  i: number,
  history: boolean,
): Generator<SessionEvent> {
  const timestamp = normalizeTimestamp(m.timestamp);
  const at = {
    ...(timestamp !== undefined && { timestamp }),
    ...(history && { historyOnly: true as const }),
  };
  if (m.type === 'user') {
    yield {
      kind: 'message',
      key,
      message: { role: 'user', content: contentText(m.content), ...at },
    };
  } else if (m.type === 'gemini') {
    yield* geminiReply(m, key, i, at);
  } else if (typeof m.type === 'string' && MESSAGE_TYPES.has(m.type)) {
    yield { kind: 'ignore', key, what: `gemini ${m.type} notice` };
  } else {
    yield {
      kind: 'skip',
      key,
      where: `message ${i + 1}`,
      reason: `unknown message type ${JSON.stringify(m.type)}`,
    };
  }
}

/** A compression the log holds: its new history is the new context. */
function compression(
  step: Extract<Step, { kind: 'checkpoint' }>,
  history: boolean,
  promptTokens: number | undefined,
): CompactionInput {
  const snapshot = step.list.find(isSnapshotMessage);
  const messages: NewMessage[] = step.list.map((m) => {
    const timestamp = normalizeTimestamp(m.timestamp);
    return {
      role: m.type === 'gemini' ? 'assistant' : 'user',
      content: partsText(m.content),
      ...(m === snapshot && { kind: 'summary' as const }),
      ...(history && { historyOnly: true }),
      ...(timestamp !== undefined && { timestamp }),
    };
  });
  const at = normalizeTimestamp(snapshot?.timestamp);
  return {
    strategy: 'gemini-compress',
    summary: snapshot ? contentText(snapshot.content) : '',
    messages,
    ...(at !== undefined && { at }),
    ...(promptTokens !== undefined && { agentTokensBefore: promptTokens }),
    extra: {
      source_format: 'gemini-cli',
      kept_messages: Math.max(0, step.list.length - 2),
      ...step.notice,
    },
  };
}

/** A compression known only by its notice (the JSON document never held the summary). */
function noticeOnly(
  step: Extract<Step, { kind: 'notice' }>,
  promptTokens: number | undefined,
): CompactionInput {
  const at = normalizeTimestamp(step.m.timestamp);
  return {
    strategy: 'gemini-compress',
    summary: '',
    messages: [],
    ...(at !== undefined && { at }),
    ...(promptTokens !== undefined && { agentTokensBefore: promptTokens }),
    extra: {
      source_format: 'gemini-cli',
      ...step.notice,
      note: "Gemini CLI's file holds no summary of this compression, only its notice: the new context it built (its summary and the turns it kept) is not known",
    },
  };
}

/** History parts as text: Gemini's function calls and responses written out. */
function partsText(content: unknown): string {
  if (!Array.isArray(content)) return contentText(content);
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (!isRecord(part)) continue;
    else if (typeof part.text === 'string') texts.push(part.text);
    else if (isRecord(part.functionCall))
      texts.push(
        `[call ${asString(part.functionCall.name) ?? 'tool'}(${argumentsString(part.functionCall.args)})]`,
      );
    else if (isRecord(part.functionResponse)) {
      const out = toolOutput([part]);
      texts.push(`[${asString(part.functionResponse.name) ?? 'tool'} result] ${out ?? ''}`.trim());
    } else if (isRecord(part.inlineData) || isRecord(part.fileData)) texts.push('[file]');
  }
  return texts.join('\n');
}

function* geminiReply(
  m: Record<string, unknown>,
  key: string,
  i: number,
  at: { timestamp?: string; historyOnly?: true },
): Generator<SessionEvent> {
  const thoughts = Array.isArray(m.thoughts) ? m.thoughts.filter(isRecord) : [];
  if (thoughts.length > 0) {
    const text = thoughts
      .map((t) =>
        [asString(t.subject) && `**${asString(t.subject)}**`, asString(t.description)]
          .filter(Boolean)
          .join('\n'),
      )
      .join('\n\n');
    yield {
      kind: 'message',
      key: `${key}/thoughts`,
      message: { role: 'assistant', content: text, name: REASONING_NAME, historyOnly: true, ...at },
    };
  }
  const calls = Array.isArray(m.toolCalls) ? m.toolCalls : [];
  const toolCalls: ToolCall[] = [];
  const results: { key: string; message: SessionMessage }[] = [];
  calls.forEach((c, j) => {
    if (!isRecord(c) || typeof c.name !== 'string') return;
    const id = asString(c.id) ?? `${key}-call-${j + 1}`;
    toolCalls.push({
      id,
      type: 'function',
      function: { name: c.name, arguments: argumentsString(c.args) },
    });
    const status = asString(c.status);
    const output = toolOutput(c.result) ?? asString(c.resultDisplay) ?? null;
    const when = normalizeTimestamp(c.timestamp);
    results.push({
      key: `${key}/tool:${id}`,
      message: {
        role: 'tool',
        content: output,
        tool_call_id: id,
        tool_name: c.name,
        isError: status === 'error' || status === 'cancelled',
        ...at,
        ...(when !== undefined && { timestamp: when }),
      },
    });
  });
  const dropped = calls.length - toolCalls.length;
  for (let j = 0; j < dropped; j++)
    yield {
      kind: 'skip',
      key: `${key}/call`,
      where: `message ${i + 1}`,
      reason: 'tool call without a name',
    };
  const tokens = isRecord(m.tokens) ? m.tokens : undefined;
  const cached = asNumber(tokens?.cached);
  yield {
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: contentText(m.content),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    llmCall: true,
    ...(typeof m.model === 'string' && { model: m.model }),
    ...(tokens && {
      usage: {
        input_tokens: Math.max(0, asNumber(tokens.input) - cached),
        cache_read_tokens: cached,
        cache_creation_tokens: 0,
        output_tokens: asNumber(tokens.output) + asNumber(tokens.thoughts),
        total_tokens: asNumber(tokens.input) + asNumber(tokens.output) + asNumber(tokens.thoughts),
      },
    }),
  };
  for (const r of results) yield { kind: 'message', ...r };
}

/** `result` is a list of parts with functionResponse.response {output | error}, or text. */
function toolOutput(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (!Array.isArray(result)) return undefined;
  const texts: string[] = [];
  for (const part of result) {
    if (!isRecord(part)) continue;
    const fr = isRecord(part.functionResponse) ? part.functionResponse : undefined;
    const response = fr && isRecord(fr.response) ? fr.response : undefined;
    if (response) {
      const out = response.output ?? response.error ?? response.content;
      texts.push(typeof out === 'string' ? out : JSON.stringify(out ?? response));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}
