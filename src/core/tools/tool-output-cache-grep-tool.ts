import { z } from 'zod';
import { show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { cutToChars } from './output-limits';
import { CACHE_OUTPUT_BUDGET_BYTES, checkRef } from './tool-output-cache-tool';
import { failure, success } from './tool-types';

export const MAX_CACHE_GREP_MATCHES = 200;

/** A matching line is shown up to this many characters; tool_output_cache shows all of it. */
const MATCH_LINE_CHARS = 500;

const args = z.object({ ref_id: z.string().min(1), pattern: z.string().min(1) });

export const toolOutputCacheGrepTool = defineTool({
  definition: functionTool(
    'tool_output_cache_grep',
    [
      'Search a saved tool output (see tool_output_cache) with a JavaScript regular expression.',
      `Prints each matching line as "<line number>: <text>", at most ${MAX_CACHE_GREP_MATCHES} matches; read around a match with tool_output_cache and its offset.`,
    ].join(' '),
    {
      ref_id: {
        type: 'string',
        description: 'The ref id from the note, e.g. "run_command_1a2b3c4d5e6f".',
      },
      pattern: {
        type: 'string',
        description: 'JavaScript RegExp source, without slashes or flags, e.g. "error|FAIL".',
      },
    },
    ['ref_id', 'pattern'],
  ),
  args,
  spillLargeOutput: false,
  execute({ ref_id: ref, pattern }, ctx) {
    try {
      new RegExp(pattern);
    } catch (err) {
      return failure(`invalid regular expression ${show(pattern)}: ${(err as Error).message}`);
    }
    const missing = checkRef(ref, ctx);
    if (missing) return failure(missing);
    // One more than shown, to know whether the cap cut anything.
    const hits = ctx.toolOutputs.grep(ref, pattern, MAX_CACHE_GREP_MATCHES + 1);
    if (hits.length === 0) return success(`no matches for ${show(pattern)} in output ${ref}`);
    const shown: string[] = [];
    let bytes = 0;
    for (const hit of hits.slice(0, MAX_CACHE_GREP_MATCHES)) {
      const line = `${hit.lineNo}: ${cutToChars(hit.text, MATCH_LINE_CHARS)}`;
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > CACHE_OUTPUT_BUDGET_BYTES) break;
      shown.push(line);
      bytes += size;
    }
    if (shown.length < hits.length) {
      shown.push(`[stopped after ${shown.length} matches; there are more: narrow the pattern]`);
    } else {
      shown.push(`[${hits.length} match${hits.length === 1 ? '' : 'es'}]`);
    }
    return success(shown.join('\n'));
  },
});
