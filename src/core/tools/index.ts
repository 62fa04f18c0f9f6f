/**
 * The built-in tools of the coding agent (DESIGN.md §6): read_file, list_dir, grep,
 * write_file, run_command, update_plan, tool_output_cache and tool_output_cache_grep, all
 * confined to the task's working directory, and history_recall, which searches and reads
 * the task's own history (messages.jsonl, compacted spans included).
 */
export { builtinToolDefinitions, executeTool } from './tool-registry';
export type { ToolContext, ToolDefinition, ToolResult } from './tool-types';
export { confinePath } from './confine-path';
export type { ConfinedPath } from './confine-path';
export { commandEnv, isSecretEnvName } from './command-env';
export { MAX_INLINE_BYTES, MAX_LINE_CHARS } from './output-limits';
