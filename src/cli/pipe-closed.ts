/**
 * `cwb … | head` closes the pipe after a few lines: the next write fails with EPIPE, which
 * Node reports as an 'error' event on stdout (a crash with a stack trace if unhandled). A
 * reader that went away is not an error of ours: end quietly with status 0, as Unix tools
 * do. Output to a closed stderr is dropped for the same reason.
 */
export function exitQuietlyOnClosedPipes(
  proc: Pick<NodeJS.Process, 'stdout' | 'stderr' | 'exit'> = process,
): void {
  proc.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    proc.exit(0);
  });
  proc.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
