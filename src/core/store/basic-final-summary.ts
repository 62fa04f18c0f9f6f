import path from 'node:path';
import { readJsonlSync } from '../jsonl/jsonl-reader';
import { TASK_FILES } from './contexts-layout';
import { asMessageRecord } from './message-shape';
import type { TaskContextManager } from './task-context-manager';

const GOAL_CHARS = 600;
const OUTCOME_CHARS = 1200;

/**
 * The final summary written when no LLM summarizer is configured: the goal (first user
 * message), what happened (message and tool counts by name) and the outcome (last
 * assistant text), streamed from messages.jsonl in one pass.
 */
export function basicFinalSummary(task: TaskContextManager): string {
  let goal: string | undefined;
  let outcome: string | undefined;
  const roles = new Map<string, number>();
  const toolNames = new Map<string, number>();
  for (const entry of readJsonlSync(path.join(task.dir, TASK_FILES.messages))) {
    if (!entry.ok) continue;
    const checked = asMessageRecord(entry.value);
    if (!checked.ok) continue;
    const m = checked.value;
    roles.set(m.role, (roles.get(m.role) ?? 0) + 1);
    if (m.role === 'user' && goal === undefined && m.content) goal = clip(m.content, GOAL_CHARS);
    if (m.role === 'assistant' && m.content) outcome = clip(m.content, OUTCOME_CHARS);
    for (const call of m.tool_calls ?? [])
      toolNames.set(call.function.name, (toolNames.get(call.function.name) ?? 0) + 1);
  }
  const row = task.row();
  const lines = [
    `Task ${task.uuid}${row.title ? `: ${row.title}` : ''}`,
    '',
    `Goal: ${goal ?? row.prompt ?? '(no user message)'}`,
    '',
    `Messages: ${[...roles].map(([role, n]) => `${n} ${role}`).join(', ') || 'none'}`,
    `Tool calls: ${[...toolNames].map(([name, n]) => `${name} ×${n}`).join(', ') || 'none'}`,
    `Compactions: ${row.compression_count}`,
    '',
    `Outcome: ${outcome ?? '(no assistant reply)'}`,
  ];
  return lines.join('\n');
}

function clip(text: string, max: number): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
