import type { z } from 'zod';
import { parseArguments } from './tool-args';
import type { ToolContext, ToolDefinition, ToolResult, ToolSpec } from './tool-types';
import { failure } from './tool-types';

/** A tool as the registry holds it: the argument type is sealed inside `run`. */
export interface BuiltinTool {
  definition: ToolDefinition;
  name: string;
  /** The argument schema, kept for tests that hold it against the JSON Schema. */
  args: z.ZodType;
  spillLargeOutput: boolean;
  /** Parses and validates `argumentsJson`, then runs the tool. May throw; the registry catches. */
  run(argumentsJson: string, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<A>(spec: ToolSpec<A>): BuiltinTool {
  const name = spec.definition.function.name;
  return {
    definition: spec.definition,
    name,
    args: spec.args,
    spillLargeOutput: spec.spillLargeOutput ?? true,
    async run(argumentsJson, ctx) {
      const parsed = parseArguments(name, spec.args, argumentsJson);
      if (!parsed.ok) return failure(parsed.message);
      return spec.execute(parsed.value, ctx);
    },
  };
}

/** Shorthand for the definitions: an OpenAI function tool with an object schema. */
export function functionTool(
  name: string,
  description: string,
  properties: Record<string, object>,
  required: string[],
): ToolDefinition {
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties, required, additionalProperties: false },
    },
  };
}
