import type { Command } from 'commander';
import type { Output } from '../output';
import { hookMain } from '../hook-main';
import { HOOK_DEFAULTS } from '../../core/hooks/compaction-hook';

/**
 * `cwb hook <agent>` in the command tree, for `cwb --help`; bin/cwb.js runs the lean entry
 * (src/cli/hook-entry.ts) itself, so this runs only when the CLI is loaded another way.
 */
export function registerHook(program: Command, _output: Output): void {
  program
    .command('hook')
    .description(
      "run by claude-code or codex after a compaction (installed by `cwb hooks install`): reads the hook's JSON on stdin and prints the evidence the agent's summary dropped",
    )
    .argument('<agent>', 'claude-code or codex')
    .option('--max-tokens <n>', `budget of the injected text (default ${HOOK_DEFAULTS.maxTokens})`)
    .option('--timeout-ms <n>', `give up after this long (default ${HOOK_DEFAULTS.timeoutMs})`)
    .allowUnknownOption()
    .action((agent: string, opts: { maxTokens?: string; timeoutMs?: string }) => {
      const argv = [agent];
      if (opts.maxTokens) argv.push('--max-tokens', opts.maxTokens);
      if (opts.timeoutMs) argv.push('--timeout-ms', opts.timeoutMs);
      hookMain(argv);
    });
}
