import type { CurrentMessage } from '../../shared/task-types';
import type { TaskContextManager } from '../store/task-context-manager';
import { readLastLines } from '../jsonl/tail';

/** How far back a resumed task looks for an unanswered tool call. */
const LOOKBACK_LINES = 64;

/**
 * A task process that died between a model's tool calls and their results leaves calls
 * without results; providers reject such a context. Before the loop continues, every
 * unanswered call of the last assistant message gets a result saying what happened.
 */
export function repairDanglingToolCalls(task: TaskContextManager, why: string): number {
  const tail = readLastLines(task.messages.currentPath, LOOKBACK_LINES).flatMap((line) => {
    try {
      return [JSON.parse(line) as CurrentMessage];
    } catch {
      return [];
    }
  });
  let lastAssistant = -1;
  for (let i = tail.length - 1; i >= 0; i--) {
    if (tail[i]!.role === 'assistant' && tail[i]!.tool_calls?.length) {
      lastAssistant = i;
      break;
    }
    if (tail[i]!.role !== 'tool') break;
  }
  if (lastAssistant < 0) return 0;
  const answered = new Set(tail.slice(lastAssistant + 1).map((m) => m.tool_call_id));
  let added = 0;
  for (const call of tail[lastAssistant]!.tool_calls!) {
    if (answered.has(call.id)) continue;
    task.addMessage({
      role: 'tool',
      content: `Tool call ${call.function.name} was ${why}; it has no result.`,
      tool_call_id: call.id,
      tool_name: call.function.name,
    });
    added++;
  }
  return added;
}
