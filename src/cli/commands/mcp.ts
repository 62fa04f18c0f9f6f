import fs from 'node:fs';
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createWorkbenchService, type WorkbenchService } from '../../core/api';
import { processSecrets } from '../../core/llm/process-secrets';
import { createMcpServer } from '../../core/mcp/mcp-server';
import { ToolFailure, type Invoke } from '../../core/mcp/session-tools';
import { nodeForkWorker } from '../../core/supervisor/node-fork';
import { resolveContext, type GlobalOptions } from '../cli-context';
import { defaultExportDir } from '../serve/export-dir';
import type { Output } from '../output';

/**
 * `cwb mcp`: the workbench as a stdio MCP server (docs/agent-integration.md). A third
 * transport beside IPC and HTTP: the tools call the same service `cwb serve` and the app
 * use. The service is opened on the first tool call, after one sync of the configured
 * sources, so what the agent asks about includes its own latest messages; a contexts folder
 * that is not there is a tool error, not a crash. Nothing but the protocol goes to stdout.
 */
export function registerMcp(program: Command, _output: Output): void {
  program
    .command('mcp')
    .description(
      'serve the synced sessions to agents as a stdio MCP server (read-only tools: recall, search_sessions, read_session, list_sessions)',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const ctx = resolveContext(globals);
      let service: WorkbenchService | undefined;
      let synced: Promise<unknown> | undefined;
      const invoke = (): Invoke => {
        if (!service) {
          if (!fs.existsSync(ctx.root)) {
            throw new ToolFailure(
              `the contexts folder ${ctx.root} does not exist: run "cwb init", then "cwb sources sync" (or start the app or "cwb serve") so there are sessions to read`,
            );
          }
          service = createWorkbenchService({
            contextsRoot: ctx.root,
            configFile: globals.config ?? null,
            fork: nodeForkWorker(),
            host: { kind: 'serve', version: cmd.parent?.version() ?? '0.0.0', versions: {} },
            exportDir: defaultExportDir(),
          });
        }
        const open = service;
        synced ??= open.invoke('syncSources', {});
        return async (name, input) => {
          await synced;
          return open.invoke(name, input);
        };
      };
      const server = createMcpServer({
        invoke,
        secrets: processSecrets(ctx.config, process.env),
        cwd: process.cwd(),
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.on('end', () => resolve());
      });
      await server.connect(transport);
      await closed;
      await server.close();
      await service?.close();
    });
}
