import { StringDecoder } from 'node:string_decoder';
import { Transform } from 'node:stream';
import type { Redactor } from './redaction';

/**
 * A stream that redacts text line by line: a secret never spans a line of a task file (a
 * private key's line breaks are escaped inside its JSON line), and a line is redacted whole
 * however the file was read in pieces. Bytes are decoded as UTF-8 across piece boundaries.
 */
export function redactingLines(redactor: Redactor): Transform {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const text = carry + decoder.write(chunk);
      const end = text.lastIndexOf('\n');
      if (end === -1) {
        carry = text;
        done();
        return;
      }
      carry = text.slice(end + 1);
      done(null, Buffer.from(redactor.redact(text.slice(0, end + 1)), 'utf8'));
    },
    flush(done) {
      const rest = carry + decoder.end();
      done(null, rest === '' ? undefined : Buffer.from(redactor.redact(rest), 'utf8'));
    },
  });
}
