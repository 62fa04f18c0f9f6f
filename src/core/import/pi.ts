/**
 * Pi (badlogic/pi-mono's coding agent, `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`)
 * and OpenClaw, which runs Pi's agent and keeps the same files
 * (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`). One JSON line per entry
 * (packages/coding-agent/src/core/session-manager.ts):
 *
 * - `session` header: `id`, `cwd`, `timestamp` (v1 also `provider`, `modelId`).
 * - `message`: an AgentMessage. `user` → a user message; `assistant` → its `thinking` blocks
 *   as one history-only reasoning message, then the reply (one LLM call, `usage` input /
 *   output / cacheRead / cacheWrite / totalTokens) whose `toolCall` blocks are tool calls;
 *   `toolResult` → the tool message answering `toolCallId` (`isError`); `bashExecution` (a
 *   command the person ran with `!`), `custom`, `branchSummary`, `compactionSummary` → the
 *   user message Pi puts in the model's context for them.
 * - `model_change` → the model (the first one titles the row); `session_info.name` → the
 *   title; `compaction` → the agent's own compaction record (its summary the new context,
 *   `tokensBefore` the agent's count); `branch_summary` → the summary as the user message Pi sends;
 *   `custom_message` → a user message; `thinking_level_change`, `label`, `custom` →
 *   settings and extension state, counted as ignored.
 */
import path from 'node:path';
import { openClawArchive } from './openclaw-archive';
import type { ToolCall } from '../../shared/task-types';
import type { AgentId } from './session-format';
import type { JsonlSessionAgent, LineEvent } from './jsonl-session';
import { jsonlSessionFormat } from './jsonl-session';
import type { CompactionInput } from './agent-compaction';
import { realRequest } from './session-meta';
import { REASONING_NAME } from './types';
import { argumentsString, asNumber, asString, contentText, isRecord } from './text';

const IGNORED = new Set(['thinking_level_change', 'label', 'custom']);

function piConverter(): JsonlSessionAgent['converter'] {
  return () => ({
    line: (value, lineNo) => piLine(value, lineNo),
    save: () => null,
  });
}

function piLine(value: unknown, lineNo: number): LineEvent[] {
  const key = `L${lineNo}`;
  const where = `line ${lineNo}`;
  if (!isRecord(value)) return [{ kind: 'skip', key, where, reason: 'not an object' }];
  const timestamp = asString(value.timestamp);
  const at = timestamp !== undefined ? { timestamp } : {};
  switch (value.type) {
    case 'session': {
      const model = asString(value.modelId);
      return [
        {
          kind: 'meta',
          meta: {
            ...(typeof value.id === 'string' && { sessionId: value.id }),
            ...(typeof value.cwd === 'string' && value.cwd !== '' && { cwd: value.cwd }),
            ...(model !== undefined && { model }),
            extra: {
              session_version: asNumber(value.version) || 1,
              ...(typeof value.parentSession === 'string' && {
                parent_session: value.parentSession,
              }),
            },
          },
        },
      ];
    }
    case 'message':
      return isRecord(value.message)
        ? piMessage(value.message, key, where, at)
        : [{ kind: 'skip', key, where, reason: 'message entry without a message' }];
    case 'model_change': {
      const model = asString(value.modelId);
      return model !== undefined ? [{ kind: 'meta', meta: { model } }] : [];
    }
    case 'session_info': {
      const name = asString(value.name);
      return name !== undefined && name.trim() !== ''
        ? [{ kind: 'meta', meta: { title: name } }]
        : [{ kind: 'ignore', key, what: 'pi session_info' }];
    }
    case 'compaction':
      return [{ kind: 'compaction', key, compaction: piCompaction(value, at) }];
    case 'branch_summary':
      return [
        {
          kind: 'message',
          key,
          message: { role: 'user', content: asString(value.summary) ?? '', ...at },
        },
      ];
    case 'custom_message':
      return [
        {
          kind: 'message',
          key,
          message: { role: 'user', content: contentText(value.content), ...at },
        },
      ];
    default:
      if (typeof value.type === 'string' && IGNORED.has(value.type))
        return [{ kind: 'ignore', key, what: `pi ${value.type}` }];
      return [
        { kind: 'skip', key, where, reason: `unknown entry type ${JSON.stringify(value.type)}` },
      ];
  }
}

function piMessage(
  m: Record<string, unknown>,
  key: string,
  where: string,
  at: { timestamp?: string },
): LineEvent[] {
  switch (m.role) {
    case 'user': {
      const content = contentText(m.content);
      const request = realRequest(content);
      return [
        ...(request !== undefined
          ? [{ kind: 'meta' as const, meta: { firstRequest: request } }]
          : []),
        { kind: 'message', key, message: { role: 'user', content, ...at } },
      ];
    }
    case 'assistant':
      return piReply(m, key, at);
    case 'toolResult':
      return [
        {
          kind: 'message',
          key,
          message: {
            role: 'tool',
            content: contentText(m.content),
            tool_call_id: asString(m.toolCallId) ?? '',
            ...(typeof m.toolName === 'string' && { tool_name: m.toolName }),
            isError: m.isError === true,
            ...at,
          },
        },
      ];
    case 'bashExecution': {
      const text = `Ran \`${asString(m.command) ?? ''}\`\n${asString(m.output) ?? ''}`.trim();
      return [{ kind: 'message', key, message: { role: 'user', content: text, ...at } }];
    }
    case 'custom':
    case 'branchSummary':
    case 'compactionSummary': {
      const content = m.role === 'custom' ? contentText(m.content) : (asString(m.summary) ?? '');
      return [{ kind: 'message', key, message: { role: 'user', content, ...at } }];
    }
    default:
      return [
        { kind: 'skip', key, where, reason: `unknown message role ${JSON.stringify(m.role)}` },
      ];
  }
}

function piReply(m: Record<string, unknown>, key: string, at: { timestamp?: string }): LineEvent[] {
  const blocks = Array.isArray(m.content) ? m.content.filter(isRecord) : [];
  const events: LineEvent[] = [];
  const model = asString(m.model);
  if (model !== undefined) events.push({ kind: 'meta', meta: { model } });
  const thinking = blocks
    .filter((b) => b.type === 'thinking')
    .map((b) => asString(b.thinking) ?? '')
    .filter((t) => t.trim() !== '');
  if (thinking.length > 0)
    events.push({
      kind: 'message',
      key: `${key}/thinking`,
      message: {
        role: 'assistant',
        content: thinking.join('\n\n'),
        name: REASONING_NAME,
        historyOnly: true,
        ...at,
      },
    });
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => asString(b.text) ?? '')
    .join('\n');
  const toolCalls: ToolCall[] = blocks
    .filter((b) => b.type === 'toolCall' && typeof b.name === 'string')
    .map((b, i) => ({
      id: asString(b.id) ?? `${key}-call-${i + 1}`,
      type: 'function',
      function: { name: b.name as string, arguments: argumentsString(b.arguments) },
    }));
  const error = asString(m.errorMessage);
  const usage = isRecord(m.usage) ? m.usage : undefined;
  events.push({
    kind: 'message',
    key,
    message: {
      role: 'assistant',
      content: text !== '' ? text : (error ?? null),
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      ...at,
    },
    llmCall: true,
    ...(usage && {
      usage: {
        input_tokens: asNumber(usage.input),
        output_tokens: asNumber(usage.output),
        cache_read_tokens: asNumber(usage.cacheRead),
        cache_creation_tokens: asNumber(usage.cacheWrite),
        total_tokens: asNumber(usage.totalTokens),
      },
    }),
  });
  return events;
}

function piAgent(agent: AgentId): JsonlSessionAgent {
  return {
    agent,
    sniffLine: (v) =>
      v.type === 'session' &&
      typeof v.id === 'string' &&
      typeof v.timestamp === 'string' &&
      'cwd' in v,
    converter: piConverter(),
    // <time>_<session id>.jsonl (Pi), <session id>.jsonl (OpenClaw), and OpenClaw's archive
    // of a session it reset or deleted: <session id>.jsonl.reset.<time> (openclaw-archive.ts)
    metaOf: (file) => {
      const archived = openClawArchive(file);
      const name = archived ? path.basename(archived.original) : path.basename(file);
      return {
        sessionId: path.basename(name, '.jsonl').replace(/^[^_]*_/, ''),
        ...(archived && {
          extra: { openclaw_archived: archived.reason, archived_at: archived.at },
        }),
      };
    },
  };
}

export const piAgentFormat = piAgent('pi');
export const openClawAgentFormat = piAgent('openclaw');
export const piFormat = jsonlSessionFormat(piAgentFormat);
export const openClawFormat = jsonlSessionFormat(openClawAgentFormat);

/**
 * Pi's compaction entry: its `summary` replaces the entries before `firstKeptEntryId`, which
 * stay in the context from there on; `tokensBefore` is Pi's count of the context it compacted.
 */
function piCompaction(value: Record<string, unknown>, at: { timestamp?: string }): CompactionInput {
  const summary = asString(value.summary) ?? '';
  const kept = asString(value.firstKeptEntryId);
  const notes = [
    ...(summary.trim() === '' ? ['Pi recorded no summary for this compaction'] : []),
    ...(kept !== undefined
      ? [
          `Pi kept the entries from ${kept} on beside the summary; they are shown before it, as history`,
        ]
      : []),
  ];
  return {
    strategy: 'pi-compact',
    summary,
    messages: [{ role: 'user', content: summary, kind: 'summary', ...at }],
    ...(at.timestamp !== undefined && { at: at.timestamp }),
    ...(typeof value.tokensBefore === 'number' && { agentTokensBefore: value.tokensBefore }),
    extra: {
      source_format: 'pi',
      ...(kept !== undefined && { first_kept_entry_id: kept }),
      ...(value.fromHook === true && { from_hook: true }),
      ...(notes.length > 0 && { note: notes.join('; ') }),
    },
  };
}
