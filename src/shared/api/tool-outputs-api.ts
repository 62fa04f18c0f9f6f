import { z } from 'zod';
import { taskUuidSchema } from './common-schemas';
import { operation } from './operation';
import { MAX_TOOL_OUTPUT_LINES } from './tool-output-limits';

export { MAX_TOOL_OUTPUT_LINES };

export const readToolOutputInput = z.strictObject({
  uuid: taskUuidSchema,
  /** A ToolOutputRef (seed 002): letters, digits, `_` and `-`. */
  ref: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected a tool output ref'),
  /** First line, 0-based. */
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MAX_TOOL_OUTPUT_LINES).default(500),
});

export interface ToolOutputWindow {
  ref: string;
  offset: number;
  lines: string[];
  /** More lines follow the window. */
  more: boolean;
}

export const toolOutputsOperations = {
  readToolOutput: operation(readToolOutputInput).returns<ToolOutputWindow>(),
};
