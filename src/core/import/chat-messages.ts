import { z } from 'zod';
import type { MessageRole, ToolCall } from '../../shared/task-types';
import type { ImportReport } from './import-report';
import type { TranscriptWriter } from './transcript-writer';
import { argumentsString, argumentsValue, contentText } from './text';

/**
 * OpenAI chat messages (as tau-bench, SWE-agent and our own `openai` export write them)
 * validated loosely: only what a message is made of must hold; unknown fields are kept
 * out, not rejected.
 */
const ToolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

export const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.null(), z.array(z.unknown())]).optional(),
  name: z.string().optional().catch(undefined),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  function_call: z
    .looseObject({ name: z.string(), arguments: z.unknown().optional() })
    .nullable()
    .optional(),
  tool_call_id: z.string().optional(),
  /** SWE-agent writes the ids a tool message answers as a list. */
  tool_call_ids: z.array(z.string()).optional().catch(undefined),
});

export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export interface ChatWriteOptions {
  /** Pair tool calls with tool messages into tools.jsonl (off when tool runs are recorded elsewhere). */
  recordTools: boolean;
  /** Names the list in skip reports, e.g. "run 3". */
  label: string;
}

/**
 * Writes an OpenAI chat message list into a task, one message per entry:
 * `developer` → system, legacy `function` → tool, a legacy `function_call` → one tool
 * call. Tool calls keep their ids (missing ids get `call_<n>`); each tool message is
 * paired with its call. Every assistant message counts as one LLM call. Entries that are
 * not chat messages are reported and skipped. Returns the number of messages written.
 */
export function writeChatMessages(
  writer: TranscriptWriter,
  messages: readonly unknown[],
  report: ImportReport,
  options: ChatWriteOptions,
): number {
  let written = 0;
  let lastFunctionCallId: string | undefined;
  // Tool names by call id when tools.jsonl is written elsewhere (the list is in memory anyway).
  const names = new Map<string, string>();
  messages.forEach((raw, i) => {
    const parsed = ChatMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      report.skipItem(
        `${options.label} message ${i + 1}`,
        `not a chat message (${issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'unexpected shape'})`,
      );
      return;
    }
    const m = parsed.data;
    const content = m.content === null || m.content === undefined ? null : contentText(m.content);
    if (m.role === 'assistant') {
      writer.countLlmCall();
      const toolCalls: ToolCall[] = (m.tool_calls ?? []).map((c, j) => ({
        id: c.id ?? `call_${i + 1}_${j + 1}`,
        type: 'function',
        function: { name: c.function.name, arguments: argumentsString(c.function.arguments) },
      }));
      if (m.function_call) {
        lastFunctionCallId = `function_call_${i + 1}`;
        toolCalls.push({
          id: lastFunctionCallId,
          type: 'function',
          function: {
            name: m.function_call.name,
            arguments: argumentsString(m.function_call.arguments),
          },
        });
      }
      for (const c of toolCalls) {
        if (!options.recordTools) names.set(c.id, c.function.name);
        else
          writer.startToolCall({
            id: c.id,
            name: c.function.name,
            args: argumentsValue(c.function.arguments),
          });
      }
      writer.append({
        role: 'assistant',
        content,
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        ...(m.name !== undefined && { name: m.name }),
      });
    } else if (m.role === 'tool' || m.role === 'function') {
      const id =
        m.tool_call_id ??
        m.tool_call_ids?.[0] ??
        (m.role === 'function' ? lastFunctionCallId : undefined) ??
        '';
      const name = options.recordTools ? writer.finishToolCall({ id, content }) : names.get(id);
      const toolName = name ?? m.name;
      writer.append({
        role: 'tool',
        content,
        tool_call_id: id,
        ...(toolName !== undefined && { tool_name: toolName }),
        ...(m.name !== undefined && { name: m.name }),
      });
    } else {
      const role: MessageRole = m.role === 'developer' ? 'system' : m.role;
      writer.append({ role, content, ...(m.name !== undefined && { name: m.name }) });
    }
    written++;
  });
  return written;
}
