import fs from 'node:fs';
import path from 'node:path';
import { CwbError } from '../errors';
import { isInside, toDisplay } from './confine-path';
import type { BuiltinTool } from './define-tool';
import { grepTool } from './grep-tool';
import { historyRecallTool } from './history-recall-tool';
import { listDirTool } from './list-dir-tool';
import { fitOutput } from './output-limits';
import { readFileTool } from './read-file-tool';
import { runCommandTool } from './run-command-tool';
import { scrubToolResult } from './tool-secrets';
import { toolOutputCacheGrepTool } from './tool-output-cache-grep-tool';
import { toolOutputCacheTool } from './tool-output-cache-tool';
import type { ToolContext, ToolDefinition, ToolResult } from './tool-types';
import { failure } from './tool-types';
import { updatePlanTool } from './update-plan-tool';
import { writeFileTool } from './write-file-tool';

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  readFileTool,
  listDirTool,
  grepTool,
  writeFileTool,
  runCommandTool,
  updatePlanTool,
  toolOutputCacheTool,
  toolOutputCacheGrepTool,
  historyRecallTool,
];

const BY_NAME = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/**
 * The tools offered to the model. run_command is left out when the config disables it, so
 * the model is not tempted by a tool that would only refuse.
 */
export function builtinToolDefinitions(options: { allowRunCommand: boolean }): ToolDefinition[] {
  return BUILTIN_TOOLS.filter((tool) => options.allowRunCommand || tool !== runCommandTool).map(
    (tool) => tool.definition,
  );
}

/**
 * Runs one tool call. Never throws: bad arguments, refused paths and failures of the file
 * system all come back as an error result the model can read and act on. Results over
 * 50 KiB are saved whole in the tool output cache and replaced by their start and end plus
 * the ref (seed 002 §1.5). The context's secrets are scrubbed from every result (content,
 * error and the saved whole output) before the caller records it.
 */
export async function executeTool(
  name: string,
  argumentsJson: string,
  ctx: ToolContext,
): Promise<ToolResult> {
  return scrubToolResult(await runTool(name, argumentsJson, ctx), ctx);
}

async function runTool(name: string, argumentsJson: string, ctx: ToolContext): Promise<ToolResult> {
  const tool = BY_NAME.get(name);
  if (!tool) {
    const available = builtinToolDefinitions(ctx).map((d) => d.function.name);
    return failure(
      `unknown tool ${JSON.stringify(name)}; available tools: ${available.join(', ')}`,
    );
  }
  if (ctx.signal?.aborted) return failure(`${name} was cancelled before it started`);
  let result: ToolResult;
  try {
    result = await tool.run(argumentsJson, ctx);
  } catch (err) {
    return failure(`${name} failed: ${describeError(err, ctx.workdir)}`);
  }
  if (!tool.spillLargeOutput || result.outputRef) return result;
  const fitted = fitOutput(result.content, ctx, name);
  if (fitted.outputRef === undefined && fitted.text === result.content) return result;
  return {
    ...result,
    content: fitted.text,
    ...(fitted.outputRef ? { outputRef: fitted.outputRef } : {}),
  };
}

/** One line for the model; file system errors name the path relative to the workdir. */
function describeError(err: unknown, workdir: string): string {
  if (err instanceof CwbError) return err.message;
  if (!(err instanceof Error)) return String(err);
  const errno = err as NodeJS.ErrnoException;
  if (typeof errno.code !== 'string') return err.message;
  const where =
    errno.path === undefined ? '' : ` ${JSON.stringify(relativeTo(workdir, errno.path))}`;
  switch (errno.code) {
    case 'ENOENT':
      return `no such file or directory${where}`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied${where}`;
    case 'ENOTDIR':
      return `a part of the path is not a directory${where}`;
    case 'EISDIR':
      return `is a directory${where}`;
    case 'EEXIST':
      return `already exists${where}`;
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return `${errno.code}${where}: ${err.message}`;
  }
}

function relativeTo(workdir: string, file: string): string {
  for (const root of rootsOf(workdir)) {
    if (isInside(root, file)) return toDisplay(path.relative(root, file));
  }
  return file;
}

function rootsOf(workdir: string): string[] {
  const root = path.resolve(workdir);
  try {
    return [root, fs.realpathSync(root)];
  } catch (_err) {
    return [root];
  }
}
