import type { Command } from 'commander';
import { createWorkbenchService } from '../../core/api';
import { CwbError } from '../../core/errors';
import { nodeForkWorker } from '../../core/supervisor/node-fork';
import { isLoopback, resolveRendererRoot, startWebHost, type WebHost } from '../../core/web';
import { resolveContext, type GlobalOptions } from '../cli-context';
import { rememberSecrets } from '../cli-secrets';
import type { Output } from '../output';
import { parseCount } from '../parse-args';
import { defaultExportDir } from '../serve/export-dir';
import { openBrowser } from '../serve/open-browser';

interface ServeOptions {
  port?: string;
  host: string;
  open?: boolean;
}

/** Tried in turn when no --port is given, like Jupyter's 8888, 8889, ... */
const DEFAULT_PORT = 4780;
const PORT_TRIES = 10;

export function registerServe(program: Command, output: Output): void {
  program
    .command('serve')
    .description(
      'serve the workbench UI and API in the browser (loopback only by default; the printed URL carries an access token)',
    )
    .option(
      '--port <port>',
      `port to listen on (default: ${DEFAULT_PORT} or the next free one; 0 = any)`,
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--open', 'open the URL in the default browser')
    .action(async (opts: ServeOptions, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const service = createWorkbenchService({
        contextsRoot: ctx.root,
        configFile: cmd.optsWithGlobals<GlobalOptions>().config ?? null,
        fork: nodeForkWorker(),
        host: { kind: 'serve', version: cmd.parent?.version() ?? '0.0.0', versions: {} },
        exportDir: defaultExportDir(),
        fsync: ctx.config.storage.durability === 'fsync',
        watchSources: true,
        onUnexpectedError: (name, err) =>
          output.err(
            `cwb serve: ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          ),
      });
      let host: WebHost;
      try {
        host = await listen(service, opts);
      } catch (err) {
        await service.close();
        throw err;
      }
      // Printed once on stdout below, never in an error line.
      rememberSecrets([host.token]);
      if (!isLoopback(opts.host)) {
        output.err(
          `cwb serve: listening on ${opts.host}, reachable from other machines; anyone with the URL can use the workbench`,
        );
      }
      output.out(`Context Workbench is serving ${service.root} on ${host.origin}/`);
      output.out('Open this URL in a browser (it carries the access token):');
      output.out(`    ${host.url}`);
      output.out('Press Ctrl-C to stop; running tasks are paused first.');
      if (opts.open) openBrowser(host.url, (message) => output.err(`cwb serve: ${message}`));
      service.sourcesReady.then(
        () => output.out('Sources synced; watching them for new sessions and messages.'),
        (err: unknown) =>
          output.err(
            `cwb serve: sources not watched: ${err instanceof Error ? err.message : String(err)}`,
          ),
      );
      await untilSignal();
      output.out('stopping: pausing running tasks…');
      await host.close();
      await service.close();
    });
}

async function listen(
  service: Parameters<typeof startWebHost>[0]['service'],
  opts: ServeOptions,
): Promise<WebHost> {
  const rendererRoot = resolveRendererRoot();
  const explicit = opts.port !== undefined;
  const first = explicit ? parseCount('--port', opts.port!, 0, 65_535) : DEFAULT_PORT;
  for (let i = 0; ; i++) {
    try {
      return await startWebHost({ service, rendererRoot, host: opts.host, port: first + i });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && !explicit && i + 1 < PORT_TRIES) continue;
      if (code === 'EADDRINUSE')
        throw new CwbError(
          'io',
          `port ${first + i} is in use: pass --port with a free port (0 = any)`,
        );
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
        throw new CwbError('usage', `--host ${opts.host}: not an address of this machine`);
      throw err;
    }
  }
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
