import type { CurrentMessage } from '../../shared/task-types';
import type { FinalSummarizer, TaskContextManager } from '../store/task-context-manager';
import { basicFinalSummary } from '../store/basic-final-summary';
import { readJsonlSync } from '../jsonl/jsonl-reader';

/** The most of the current context a final-summary prompt carries (characters). */
const MAX_PROMPT_CHARS = 200_000;

const FINAL_SUMMARY_SYSTEM = `You write the final summary of a finished coding-agent task for the person who ran it and for the next run of the same task.
Cover: the goal; what was done (files changed, commands run); problems met and how they were solved; decisions; anything left open.
Be concise and factual. Plain text, no preamble.`;

export interface SummaryModel {
  complete(prompt: string, options?: { system?: string; workDir?: string }): Promise<string>;
}

/**
 * seed 001 §7.4 create_final_summary: the model summarizes the task from its current
 * context (already bounded by the model's window). When the model cannot be reached the
 * offline digest is written instead, so every task ends with a summary.
 */
export function llmFinalSummary(model: SummaryModel): FinalSummarizer {
  return async (task: TaskContextManager) => {
    try {
      const text = (
        await model.complete(formatContext(task), {
          system: FINAL_SUMMARY_SYSTEM,
          workDir: task.dir,
        })
      ).trim();
      return text || basicFinalSummary(task);
    } catch (err) {
      return `${basicFinalSummary(task)}\n\n(The model could not write this summary: ${(err as Error).message})`;
    }
  };
}

/** `[role]: content` lines of current.jsonl (seed 000 §7.2 step 4), streamed, up to the budget. */
function formatContext(task: TaskContextManager): string {
  const parts = ['Summarize this task.\n\n=== Task context ===\n'];
  let size = 0;
  for (const entry of readJsonlSync(task.messages.currentPath)) {
    if (!entry.ok) continue;
    const m = entry.value as CurrentMessage;
    const calls = callList(m, MAX_PROMPT_CHARS - size);
    const line = `[${m.role}${m.tool_name ? ` ${m.tool_name}` : ''}]: ${m.content ?? ''}${calls}\n`;
    if (size + line.length > MAX_PROMPT_CHARS) {
      parts.push('[... the rest of the context is left out for length]\n');
      break;
    }
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

/**
 * ` -> name(arguments)` for each tool call of `m`, built only as far as `budget` characters
 * (one more call shows it is over): an answer asking for thousands of calls must not become a
 * string the prompt has no room for (issue #17: the end of a 1 GB task peaked here). ASCII
 * marks, here and for the cut: one character outside Latin-1 makes V8 store the whole prompt
 * at two bytes per character.
 */
function callList(m: CurrentMessage, budget: number): string {
  let text = '';
  for (const call of m.tool_calls ?? []) {
    if (text.length > budget) break;
    text += ` -> ${call.function.name}(${call.function.arguments})`;
  }
  return text;
}
