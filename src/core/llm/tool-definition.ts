/**
 * A tool the model may call, in OpenAI's function-tool shape. Ollama's /api/chat takes the
 * same shape, so one definition serves every provider and is written into request.json as is.
 */

/**
 * A JSON Schema object describing the arguments. Typed as a plain `object` so schemas of
 * any origin fit (hand-written interfaces, generated from zod) without index signatures.
 */
export type JsonSchema = object;

export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters: JsonSchema;
    /** OpenAI structured-outputs mode; other providers ignore it. */
    strict?: boolean;
  };
}
