import { Command } from 'commander';
import type { Output } from './output';
import { registerInit } from './commands/init';
import { registerTasks } from './commands/tasks';
import { registerShow } from './commands/show';
import { registerMessages } from './commands/messages';
import { registerContext } from './commands/context';
import { registerCleanup } from './commands/cleanup';
import { registerDoctor } from './commands/doctor';
import { registerIndex } from './commands/index-migrate';
import { registerImport } from './commands/import';
import { registerExport } from './commands/export';
import { registerRun } from './commands/run';
import { registerControl } from './commands/control';
import { registerServe } from './commands/serve';
import { registerSources } from './commands/sources';
import { registerCompaction } from './commands/compaction';
import { registerEvalCompaction } from './commands/eval-compaction';
import { registerHook } from './commands/hook';
import { registerHooks } from './commands/hooks';
import { registerMcp } from './commands/mcp';
import { registerSearch } from './commands/search';
import { registerUsage } from './commands/usage';

import { CLI_VERSION } from './version';

export { CLI_VERSION };

/** The `cwb` command tree. Commands throw CwbError; `runCli` turns errors into exit codes. */
export function buildProgram(output: Output): Command {
  const program = new Command('cwb')
    .description('Context Workbench: run, browse and compact LLM agent task contexts')
    .version(CLI_VERSION)
    .option(
      '--contexts <dir>',
      'contexts folder (default: $CWB_CONTEXTS, the config, or the user data folder)',
    )
    .option('--config <file>', 'config.yaml (default: $CWB_CONFIG or the user config folder)')
    .option(
      '--index <url>',
      'task index: postgres://user@host/db for a fleet of hosts (default: $CWB_INDEX_URL, the config, or tasks.db)',
    )
    .showHelpAfterError('(run cwb --help for usage)')
    .configureOutput({
      writeOut: (s) => output.out(s.trimEnd()),
      writeErr: (s) => output.err(s.trimEnd()),
      outputError: (s, write) => write(`cwb: ${s.replace(/^error: /, 'error: ').trimEnd()}`),
    })
    .exitOverride();
  registerInit(program, output);
  registerTasks(program, output);
  registerShow(program, output);
  registerMessages(program, output);
  registerContext(program, output);
  registerCleanup(program, output);
  registerRun(program, output);
  registerControl(program, output);
  registerCompaction(program, output);
  registerEvalCompaction(program, output);
  registerDoctor(program, output);
  registerIndex(program, output);
  registerImport(program, output);
  registerExport(program, output);
  registerServe(program, output);
  registerSources(program, output);
  registerHook(program, output);
  registerHooks(program, output);
  registerMcp(program, output);
  registerSearch(program, output);
  registerUsage(program, output);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());
  return program;
}
