import { z } from 'zod';
import { show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { readHistory } from './history-read';
import { searchHistory } from './history-search';
import { withHistory } from './history-source';
import { MAX_INLINE_BYTES } from './output-limits';
import { optional } from './tool-args';
import type { ToolContext, ToolResult } from './tool-types';
import { failure } from './tool-types';

/** Compaction summaries name this tool to tell the model that what they replaced is recallable. */
export const RECALL_TOOL_NAME = 'history_recall';

export const DEFAULT_RECALL_MATCHES = 50;
export const MAX_RECALL_MATCHES = 200;

/** The output stays under the inline limit by itself: recalled history is never cached again. */
export const RECALL_OUTPUT_BUDGET_BYTES = MAX_INLINE_BYTES - 1024;

const ROLES = ['user', 'assistant', 'tool', 'system'] as const;

/** Arguments that only mean something to a search. */
const SEARCH_ONLY = ['role', 'max_matches', 'case_sensitive'] as const;

const args = z.object({
  pattern: optional(z.string().min(1).max(1000)),
  from_seq: optional(z.number().int().min(1)),
  to_seq: optional(z.number().int().min(1)),
  role: optional(z.enum(ROLES)),
  max_matches: optional(z.number().int().min(1).max(MAX_RECALL_MATCHES)),
  case_sensitive: optional(z.boolean()),
});

type RecallArgs = z.output<typeof args>;

export const historyRecallTool = defineTool({
  definition: functionTool(
    RECALL_TOOL_NAME,
    [
      "Search or read this task's whole message history, numbered by seq from 1, including every message that compaction removed from your context: nothing is lost.",
      `Search: give pattern (a JavaScript regular expression, case-insensitive unless case_sensitive), optionally from_seq/to_seq and role. Prints each matching line of message content and tool-call arguments as "#<seq> <role> (<tool>) line <n>: <text>" (or "call: name(args)"), newest message first, at most max_matches (default ${DEFAULT_RECALL_MATCHES}); the last line counts the matches and says which to_seq reaches older ones.`,
      `Read: give from_seq (and to_seq) without pattern. Prints those messages in order, each under a "#<seq> <role> (<tool>)" header, tool calls as "→ name(args)", at most about ${Math.floor(RECALL_OUTPUT_BUDGET_BYTES / 1024)} KiB; the last line says which from_seq continues.`,
      'Messages tagged "not an original message" were written by a compaction (summaries, markers): trust the originals over them. Earlier history_recall calls and results are not searched.',
    ].join(' '),
    {
      pattern: {
        type: 'string',
        description:
          'Search: JavaScript RegExp source, without slashes or flags, e.g. "npm (test|run)|FAIL". Leave out to read.',
      },
      from_seq: {
        type: 'integer',
        minimum: 1,
        description: 'First seq to search or read. Required to read; default 1 for a search.',
      },
      to_seq: {
        type: 'integer',
        minimum: 1,
        description: 'Last seq to search or read (inclusive). Default: the newest message.',
      },
      role: {
        type: 'string',
        enum: [...ROLES],
        description: 'Search only messages of this role.',
      },
      max_matches: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_RECALL_MATCHES,
        description: `Search: how many matching lines to show at most. Default ${DEFAULT_RECALL_MATCHES}.`,
      },
      case_sensitive: {
        type: 'boolean',
        description: 'Search: match case exactly. Default false.',
      },
    },
    [],
  ),
  args,
  spillLargeOutput: false,
  execute: recall,
});

async function recall(a: RecallArgs, ctx: ToolContext): Promise<ToolResult> {
  const mixed = argumentProblem(a);
  if (mixed) return failure(mixed);
  let regex: RegExp | undefined;
  if (a.pattern !== undefined) {
    try {
      regex = new RegExp(a.pattern, a.case_sensitive ? 'gm' : 'gim');
    } catch (err) {
      return failure(`invalid regular expression ${show(a.pattern)}: ${(err as Error).message}`);
    }
  }
  return withHistory(ctx.messages, async (history) => {
    const fromSeq = a.from_seq ?? 1;
    if (fromSeq > history.count) return failure(pastTheEnd(fromSeq, history.count));
    const toSeq = Math.min(a.to_seq ?? history.count, history.count);
    const common = { fromSeq, toSeq, budgetBytes: RECALL_OUTPUT_BUDGET_BYTES, signal: ctx.signal };
    if (a.pattern !== undefined && regex !== undefined) {
      return searchHistory(history, {
        ...common,
        pattern: a.pattern,
        regex,
        role: a.role,
        maxMatches: a.max_matches ?? DEFAULT_RECALL_MATCHES,
        skipTool: RECALL_TOOL_NAME,
      });
    }
    return readHistory(history, { ...common, askedToSeq: a.to_seq });
  });
}

/** Which mode the arguments ask for is decided by `pattern`; this refuses what fits neither. */
function argumentProblem(a: RecallArgs): string | undefined {
  if (a.from_seq !== undefined && a.to_seq !== undefined && a.from_seq > a.to_seq) {
    return `from_seq ${a.from_seq} is after to_seq ${a.to_seq}: give from_seq <= to_seq`;
  }
  if (a.pattern !== undefined) return undefined;
  const searchOnly = SEARCH_ONLY.filter((name) => a[name] !== undefined);
  if (searchOnly.length > 0) {
    const names = searchOnly.map((name) => `"${name}"`).join(', ');
    return `${names} only apply to a search: give "pattern" too to search, or leave ${searchOnly.length === 1 ? 'it' : 'them'} out to read messages from_seq..to_seq`;
  }
  if (a.from_seq === undefined) {
    return a.to_seq === undefined
      ? 'give "pattern" to search the history or "from_seq" (and "to_seq") to read messages'
      : 'reading needs "from_seq" as well as "to_seq" (or give "pattern" to search)';
  }
  return undefined;
}

function pastTheEnd(seq: number, count: number): string {
  if (count === 0) return `seq ${seq} does not exist: the history has no messages yet`;
  return `from_seq ${seq} is past the end of the history: it holds messages #1-#${count}`;
}
