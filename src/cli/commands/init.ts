import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXAMPLE_CONFIG_YAML } from '../../core/config/example-config';
import { defaultConfigPath } from '../../core/config/config-path';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';

export function registerInit(program: Command, output: Output): void {
  program
    .command('init')
    .description(
      'create the contexts folder (tasks.db, running/, paused/, completed/) and an example config.yaml if there is none',
    )
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const configFile = globals.config ?? defaultConfigPath(process.env);
      let wroteConfig = false;
      if (!fs.existsSync(configFile)) {
        fs.mkdirSync(path.dirname(configFile), { recursive: true });
        fs.writeFileSync(configFile, EXAMPLE_CONFIG_YAML, { flag: 'wx' });
        wroteConfig = true;
      }
      const ctx = resolveContext({ ...globals, config: configFile });
      await withStore(ctx, () => undefined);
      if (opts.json) {
        printJson(output, { contexts: ctx.root, config: configFile, wrote_config: wroteConfig });
        return;
      }
      output.out(`Contexts folder: ${ctx.root}`);
      output.out(
        `Config file:     ${configFile}${wroteConfig ? ' (written with commented defaults)' : ' (kept as it was)'}`,
      );
    });
}
