import { z } from 'zod';
import { commandEnv } from './command-env';
import { confinePath } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { MAX_INLINE_BYTES, fitOutput } from './output-limits';
import { MAX_CAPTURE_BYTES, runShell } from './shell-process';
import type { ShellOutcome } from './shell-process';
import { optional } from './tool-args';
import { scrubCutTail, scrubToolText } from './tool-secrets';
import type { ToolContext, ToolResult } from './tool-types';
import { failure } from './tool-types';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 10 * 60_000;

const args = z.object({
  command: z.string().min(1),
  timeout_ms: optional(z.number().int().min(1).max(MAX_TIMEOUT_MS)),
});

const shell = process.platform === 'win32' ? 'cmd.exe' : '/bin/sh';

export const runCommandTool = defineTool({
  definition: functionTool(
    'run_command',
    [
      `Run a shell command (${shell}) in the working directory and return its output, stdout and stderr interleaved, followed by "exit code N".`,
      `Stdin is empty; do not start interactive programs. The command is killed with everything it started after timeout_ms (default ${DEFAULT_TIMEOUT_MS / 1000} s, at most ${MAX_TIMEOUT_MS / 60_000} min).`,
      `Output over ${MAX_INLINE_BYTES / 1024} KiB is shortened to its start and end; the whole output is kept and can be read with tool_output_cache using the ref given.`,
      'API keys and tokens are not in its environment.',
    ].join(' '),
    {
      command: {
        type: 'string',
        description: 'The command line, e.g. "npm test 2>&1 | tail -n 50" or "ls -la src".',
      },
      timeout_ms: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        description: `Milliseconds before the command is killed. Default ${DEFAULT_TIMEOUT_MS}.`,
      },
    },
    ['command'],
  ),
  args,
  async execute({ command, timeout_ms: timeoutMs }, ctx) {
    if (!ctx.allowRunCommand) {
      return failure(
        'run_command is disabled by the configuration (tools.run_command is false); use the other tools, or ask the user to enable it',
      );
    }
    if (ctx.signal?.aborted) return failure('run_command was cancelled before it started');
    const workdir = confinePath(ctx.workdir, '.').absolute;
    const timeout = timeoutMs ?? clampTimeout(ctx.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    const outcome = await runShell(command, {
      cwd: workdir,
      env: ctx.childEnv ?? commandEnv(process.env, { secretValues: ctx.secretValues }),
      timeoutMs: timeout,
      signal: ctx.signal,
    });
    return toResult(outcome, timeout, ctx);
  },
});

function clampTimeout(ms: number): number {
  return Math.min(Math.max(1, Math.floor(ms)), MAX_TIMEOUT_MS);
}

function toResult(outcome: ShellOutcome, timeoutMs: number, ctx: ToolContext): ToolResult {
  // Output stopped at the capture limit may end in the first part of a key.
  const cut = outcome.outputBytes > Buffer.byteLength(outcome.output);
  const output = cut ? scrubCutTail(scrubToolText(outcome.output, ctx), ctx) : outcome.output;
  const fitted = fitOutput(output, ctx, 'run_command');
  const parts: string[] = [];
  if (outcome.outputBytes === 0) parts.push('(no output)');
  else parts.push(fitted.text.endsWith('\n') ? fitted.text.slice(0, -1) : fitted.text);
  const status = statusLine(outcome, timeoutMs);
  parts.push(status);
  const content = parts.join('\n');
  const ok = outcome.ended === 'exit' && outcome.exitCode === 0;
  const result: ToolResult = ok
    ? { content, status: 'success' }
    : { content, status: 'error', error: status };
  if (fitted.outputRef) result.outputRef = fitted.outputRef;
  return result;
}

function statusLine(outcome: ShellOutcome, timeoutMs: number): string {
  switch (outcome.ended) {
    case 'timeout':
      return `killed by timeout after ${timeoutMs} ms`;
    case 'aborted':
      return 'killed: the task was cancelled';
    case 'output_limit':
      return `killed: output exceeded ${MAX_CAPTURE_BYTES / 1024 / 1024} MiB`;
    case 'exit':
      if (outcome.exitCode !== null) return `exit code ${outcome.exitCode}`;
      return `killed by signal ${outcome.exitSignal ?? 'unknown'}`;
  }
}
