/**
 * Amp threads (`~/.local/share/amp/threads/T-<id>.json`, one JSON document Amp rewrites
 * whole on every change): `{v, id, created, title?, env.initial.trees[{uri, repository}],
 * messages[]}`, each message `{role, messageId, content[], meta?.sentAt, usage?}` with
 * Anthropic-style blocks.
 *
 * - `user`: its `tool_result` blocks (`toolUseID`, `run.status` done / error / cancelled /
 *   rejected-by-user, `run.result` or `run.error`) → tool messages, its text → a user message.
 * - `assistant`: `thinking` → a history-only reasoning message; the reply → one LLM call
 *   (`usage` inputTokens, outputTokens, cacheCreationInputTokens, cacheReadInputTokens,
 *   `model`) whose `tool_use` blocks are tool calls.
 * - `info`: a `summary` block (Amp's compaction) → the agent's own compaction record, the
 *   summary its new context (agent-compaction.ts); other info messages → counted as ignored.
 *
 * Keys: `amp:<messageId>`, `…/thinking`, `…/result:<toolUseID>`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCall } from '../../shared/task-types';
import { isoTimestamp } from '../iso-timestamp';
import { readJsonDocument } from './json-document';
import type { SessionEvent, SessionFormat } from './session-format';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, contentText, isRecord } from './text';

export function isAmpThread(doc: unknown): boolean {
  return (
    isRecord(doc) &&
    typeof doc.id === 'string' &&
    doc.id.startsWith('T-') &&
    Array.isArray(doc.messages) &&
    doc.messages.every((m) => isRecord(m) && typeof m.role === 'string')
  );
}

export const ampFormat: SessionFormat = {
  agent: 'amp',
  input: 'document',
  sniff: (doc) => isAmpThread(doc),
  async *parse(file, doc, options) {
    yield* ampEvents(file, doc ?? (await readJsonDocument(file, options?.maxJsonBytes)));
  },
};

function blocksOf(m: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(m.content) ? m.content.filter(isRecord) : [];
}

function textOf(blocks: Record<string, unknown>[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => asString(b.text) ?? '')
    .join('\n');
}

function msTime(value: unknown): string | undefined {
  const ms = asNumber(value);
  return ms > 0 ? isoTimestamp(new Date(ms)) : undefined;
}

function* ampEvents(file: string, doc: unknown): Generator<SessionEvent> {
  if (!isRecord(doc) || !Array.isArray(doc.messages)) {
    yield { kind: 'skip', key: 'document', where: 'document', reason: 'no messages list' };
    return;
  }
  const env = isRecord(doc.env) && isRecord(doc.env.initial) ? doc.env.initial : {};
  const tree = Array.isArray(env.trees) ? env.trees.find(isRecord) : undefined;
  const uri = asString(tree?.uri);
  const cwd = uri?.startsWith('file://') ? fileURLToPath(uri) : uri;
  const repository = isRecord(tree?.repository) ? tree.repository : undefined;
  const firstUser = doc.messages.find(
    (m) => isRecord(m) && m.role === 'user' && realRequest(textOf(blocksOf(m))),
  );
  const model = doc.messages
    .map((m) => (isRecord(m) && isRecord(m.usage) ? asString(m.usage.model) : undefined))
    .find(Boolean);
  const started = msTime(doc.created);
  yield {
    kind: 'session',
    key: asString(doc.id) ?? path.basename(file),
    meta: {
      agent: 'amp',
      ...(typeof doc.id === 'string' && { sessionId: doc.id }),
      ...(typeof doc.title === 'string' && doc.title.trim() !== '' && { title: doc.title }),
      ...(isRecord(firstUser) && { firstRequest: realRequest(textOf(blocksOf(firstUser)))! }),
      ...(cwd !== undefined && { cwd }),
      ...(typeof repository?.url === 'string' && { gitRemote: repository.url }),
      ...(typeof repository?.ref === 'string' && {
        gitBranch: repository.ref.replace(/^refs\/heads\//, ''),
      }),
      ...(model !== undefined && { model }),
      ...(started !== undefined && { startedAt: started }),
      extra: { agent_mode: asString(doc.agentMode) ?? null },
    },
  };
  // Info messages carry no time: they take the one before them (each store would stamp
  // them when it writes them otherwise).
  let lastAt = started;
  for (let i = 0; i < doc.messages.length; i++) {
    const m = doc.messages[i];
    if (!isRecord(m)) {
      yield { kind: 'skip', key: `m${i}`, where: `message ${i + 1}`, reason: 'not an object' };
      continue;
    }
    const key = typeof m.messageId === 'number' ? `amp:${m.messageId}` : `m${i}`;
    const usage = isRecord(m.usage) ? m.usage : undefined;
    const timestamp =
      msTime(isRecord(m.meta) ? m.meta.sentAt : undefined) ?? asString(usage?.timestamp) ?? lastAt;
    lastAt = timestamp;
    const at = timestamp !== undefined ? { timestamp } : {};
    if (m.role === 'user') yield* ampUser(blocksOf(m), key, at);
    else if (m.role === 'assistant') yield* ampReply(blocksOf(m), usage, key, at);
    else if (m.role === 'info') {
      const summary = blocksOf(m).find((b) => b.type === 'summary' && isRecord(b.summary));
      const text = isRecord(summary?.summary) ? asString(summary.summary.summary) : undefined;
      if (text !== undefined)
        yield {
          kind: 'compaction',
          key,
          compaction: {
            strategy: 'amp-compact',
            summary: text,
            messages: [{ role: 'user', content: text, kind: 'summary', ...at }],
            ...(at.timestamp !== undefined && { at: at.timestamp }),
            extra: { source_format: 'amp' },
          },
        };
      else yield { kind: 'ignore', key, what: 'amp info message' };
    } else
      yield {
        kind: 'skip',
        key,
        where: `message ${i + 1}`,
        reason: `unknown role ${JSON.stringify(m.role)}`,
      };
  }
}

function* ampUser(
  blocks: Record<string, unknown>[],
  key: string,
  at: { timestamp?: string },
): Generator<SessionEvent> {
  for (const b of blocks) {
    if (b.type !== 'tool_result') continue;
    const id = asString(b.toolUseID) ?? asString(b.tool_use_id) ?? '';
    const run = isRecord(b.run) ? b.run : {};
    const status = asString(run.status) ?? '';
    const out = run.result ?? run.error ?? run.progress ?? (status !== '' ? `[${status}]` : null);
    yield {
      kind: 'message',
      key: `${key}/result:${id}`,
      message: {
        role: 'tool',
        content: typeof out === 'string' ? out : out === null ? null : contentOrJson(out),
        tool_call_id: id,
        isError: status !== 'done',
        ...at,
      },
    };
  }
  const text = textOf(blocks);
  if (text.trim() !== '' || !blocks.some((b) => b.type === 'tool_result'))
    yield { kind: 'message', key, message: { role: 'user', content: text, ...at } };
}

function contentOrJson(value: unknown): string {
  const text = contentText(value);
  return text !== '' ? text : JSON.stringify(value);
}

function* ampReply(
  blocks: Record<string, unknown>[],
  usage: Record<string, unknown> | undefined,
  key: string,
  at: { timestamp?: string },
): Generator<SessionEvent> {
  const thinking = blocks
    .filter((b) => b.type === 'thinking')
    .map((b) => asString(b.thinking) ?? '')
    .filter((t) => t.trim() !== '');
  if (thinking.length > 0)
    yield {
      kind: 'message',
      key: `${key}/thinking`,
      message: {
        role: 'assistant',
        content: thinking.join('\n\n'),
        name: REASONING_NAME,
        historyOnly: true,
        ...at,
      },
    };
  const toolCalls: ToolCall[] = blocks
    .filter((b) => b.type === 'tool_use' && typeof b.name === 'string')
    .map((b, j) => ({
      id: asString(b.id) ?? `${key}-call-${j + 1}`,
      type: 'function',
      function: { name: b.name as string, arguments: argumentsString(b.input ?? {}) },
    }));
  const model = asString(usage?.model);
  yield {
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: textOf(blocks),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    llmCall: true,
    ...(model !== undefined && { model }),
    ...(usage && {
      usage: {
        input_tokens: asNumber(usage.inputTokens),
        output_tokens: asNumber(usage.outputTokens),
        cache_creation_tokens: asNumber(usage.cacheCreationInputTokens),
        cache_read_tokens: asNumber(usage.cacheReadInputTokens),
      },
    }),
  };
}
