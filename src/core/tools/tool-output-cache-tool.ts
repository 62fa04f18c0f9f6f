import { z } from 'zod';
import { show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { MAX_INLINE_BYTES, shortenLine } from './output-limits';
import { optional } from './tool-args';
import type { ToolContext } from './tool-types';
import { failure, success } from './tool-types';

export const DEFAULT_CACHE_LINES = 500;
export const MAX_CACHE_LINES = 2000;

/** Reading the cache must itself stay under the inline limit: it is never cached again. */
export const CACHE_OUTPUT_BUDGET_BYTES = MAX_INLINE_BYTES - 1024;

const args = z.object({
  ref_id: z.string().min(1),
  offset: optional(z.number().int().min(1)),
  limit: optional(z.number().int().min(1).max(MAX_CACHE_LINES)),
});

export const toolOutputCacheTool = defineTool({
  definition: functionTool(
    'tool_output_cache',
    [
      'Read back a tool output that was shortened or trimmed from the conversation.',
      'Such outputs end with a note like "[full output: ref=<id>; ...]" or were replaced by "[tool output trimmed; ref=<id>]"; pass that id as ref_id.',
      `Returns lines [offset, offset + limit) numbered from 1, each as "<line number><TAB><text>" (default ${DEFAULT_CACHE_LINES} lines, at most about ${MAX_INLINE_BYTES / 1024} KiB); the last line says which offset continues.`,
      'Use tool_output_cache_grep to find lines first.',
    ].join(' '),
    {
      ref_id: {
        type: 'string',
        description: 'The ref id from the note, e.g. "run_command_1a2b3c4d5e6f".',
      },
      offset: {
        type: 'integer',
        minimum: 1,
        description: 'First line to return, counting from 1. Default 1.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_CACHE_LINES,
        description: `How many lines to return at most. Default ${DEFAULT_CACHE_LINES}.`,
      },
    },
    ['ref_id'],
  ),
  args,
  spillLargeOutput: false,
  execute({ ref_id: ref, offset = 1, limit = DEFAULT_CACHE_LINES }, ctx) {
    const missing = checkRef(ref, ctx);
    if (missing) return failure(missing);
    const { lines, more } = ctx.toolOutputs.readLines(ref, offset - 1, limit);
    if (lines.length === 0) {
      return offset === 1
        ? success(`(output ${ref} is empty)`)
        : failure(`offset ${offset} is past the end of output ${ref}`);
    }
    const shown: string[] = [];
    let bytes = 0;
    for (const [i, text] of lines.entries()) {
      const line = `${String(offset + i).padStart(6)}\t${shortenLine(text)}`;
      const size = Buffer.byteLength(line) + 1;
      if (shown.length > 0 && bytes + size > CACHE_OUTPUT_BUDGET_BYTES) break;
      shown.push(line);
      bytes += size;
    }
    const last = offset + shown.length - 1;
    if (more || shown.length < lines.length) {
      shown.push(
        `[lines ${offset}-${last} of output ${ref} shown; more follow; continue with offset=${last + 1}]`,
      );
    }
    return success(shown.join('\n'));
  },
});

/** An error message for a ref that is malformed or unknown, else undefined. */
export function checkRef(ref: string, ctx: ToolContext): string | undefined {
  let exists: boolean;
  try {
    exists = ctx.toolOutputs.exists(ref);
  } catch (_err) {
    return `${show(ref)} is not a tool output ref (refs look like "run_command_1a2b3c4d5e6f": letters, digits, "_" and "-")`;
  }
  if (!exists) {
    return `unknown ref_id ${show(ref)}: no saved tool output has this id in this task (use the id from a "ref=" note exactly)`;
  }
  return undefined;
}
