import { StringDecoder } from 'node:string_decoder';
import { Transform } from 'node:stream';
import type { Redactor } from './redaction';

/**
 * Text read in pieces, handed on a run of whole lines at a time: bytes are decoded as UTF-8
 * across piece boundaries and a line is never split, so a secret (which never spans a line
 * of a task file: a private key's line breaks are escaped inside its JSON line) is always
 * seen whole. Used to redact a file on its way into an archive and to read a task's files
 * for the secrets they hold.
 */
export class WholeLines {
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';

  /** The complete lines this piece ends (with their '\n'), or '' when it ends none. */
  push(chunk: Buffer): string {
    const text = this.carry + this.decoder.write(chunk);
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      this.carry = text;
      return '';
    }
    this.carry = text.slice(end + 1);
    return text.slice(0, end + 1);
  }

  /** What is left after the last '\n' (a last line without one). */
  end(): string {
    const rest = this.carry + this.decoder.end();
    this.carry = '';
    return rest;
  }
}

/** A stream that redacts text line by line (see WholeLines). */
export function redactingLines(redactor: Redactor): Transform {
  const lines = new WholeLines();
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const text = lines.push(chunk);
      done(null, text === '' ? undefined : Buffer.from(redactor.redact(text), 'utf8'));
    },
    flush(done) {
      const rest = lines.end();
      done(null, rest === '' ? undefined : Buffer.from(redactor.redact(rest), 'utf8'));
    },
  });
}
