/**
 * Errors the user can act on. The code decides the CLI exit code (usage → 1, everything
 * else → 2) and the HTTP status of the web host; the message is one clear line that says
 * what is wrong and where.
 */
export type CwbErrorCode = 'usage' | 'not_found' | 'bad_input' | 'conflict' | 'io';

export class CwbError extends Error {
  constructor(
    readonly code: CwbErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CwbError';
  }
}

export function notFound(message: string): CwbError {
  return new CwbError('not_found', message);
}

export function badInput(message: string): CwbError {
  return new CwbError('bad_input', message);
}
