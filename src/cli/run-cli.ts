import { CommanderError } from 'commander';
import { CwbError } from '../core/errors';
import { scrubbingOutput } from './cli-secrets';
import { buildProgram } from './program';
import type { Output } from './output';

export const EXIT = { ok: 0, usage: 1, input: 2, internal: 3 } as const;

/**
 * Runs one command line and returns the exit code: 0 ok, 1 usage error, 2 not found or
 * bad input (one clear line on stderr), 3 an unexpected internal error.
 */
export async function runCli(argv: string[], raw: Output): Promise<number> {
  const output = scrubbingOutput(raw, process.env);
  const program = buildProgram(output);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version end with exitCode 0; commander already printed its message
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CwbError) {
      output.err(`cwb: error: ${err.message}`);
      return err.code === 'usage' ? EXIT.usage : EXIT.input;
    }
    output.err(
      `cwb: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return EXIT.internal;
  }
}
