import type { Readable } from 'node:stream';
import { hostMessageSchema, type HostMessage } from '../shared/worker-protocol';
import { CwbError } from '../core/errors';

/** A start message is a spec and a few variables; anything this big is not one. */
const MAX_START_BYTES = 16 * 1024 * 1024;

/**
 * The `start` message of a detached task process (`cwb run --detach`), read from stdin up
 * to its end; stdin is closed then, so nothing else can be fed to the process that way.
 */
export async function readStartFromStdin(
  stdin: Readable,
): Promise<Extract<HostMessage, { type: 'start' }>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buffer.length;
      if (size > MAX_START_BYTES)
        throw new CwbError(
          'bad_input',
          `the start message on stdin is over ${MAX_START_BYTES} bytes`,
        );
      chunks.push(buffer);
    }
  } finally {
    stdin.destroy();
  }
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new CwbError('bad_input', 'the start message on stdin is not JSON');
  }
  const parsed = hostMessageSchema.safeParse(raw);
  if (!parsed.success || parsed.data.type !== 'start')
    throw new CwbError('bad_input', 'stdin did not hold a start message');
  return parsed.data;
}
