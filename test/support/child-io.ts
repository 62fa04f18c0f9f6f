import fs from 'node:fs';

/**
 * Writes one line to stdout with write(2) itself. The fault tests' children report what
 * they have done (acks) this way: process.stdout queues writes in memory when the pipe is
 * full, and a SIGKILL drops that queue, so an ack written with it may never arrive even
 * though the work it acknowledges was done. (These children never touch process.stdout,
 * which would switch fd 1 to non-blocking; EAGAIN is retried anyway.)
 */
export function say(line: string): void {
  const data = Buffer.from(`${line}\n`);
  let written = 0;
  while (written < data.length) {
    try {
      written += fs.writeSync(1, data, written, data.length - written);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}
