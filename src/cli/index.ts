import { runCli } from './run-cli';
import { processOutput } from './output';
import { exitQuietlyOnClosedPipes } from './pipe-closed';

exitQuietlyOnClosedPipes();

// Entry of the `cwb` command (bin/cwb.js loads the built copy of this file).
runCli(process.argv.slice(2), processOutput).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cwb: internal error: ${String(err)}\n`);
    process.exitCode = 3;
  },
);
