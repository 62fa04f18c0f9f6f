import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Redactor } from './redaction';
import { listTaskFiles } from './task-file-list';

/**
 * Reads every text file of a task folder once so that `redactor` knows each secret the task
 * holds before anything is written: a summary may quote a piece of a key (its fact ledger
 * lists identifiers) ahead of the message that holds the whole key, where a single pass
 * would not know it yet. Streamed, a line at a time; offset indexes are binary and skipped.
 */
export async function learnTaskSecrets(redactor: Redactor, dir: string): Promise<void> {
  for (const file of listTaskFiles(dir).files) {
    if (file.relative.endsWith('.idx')) continue;
    const decoder = new StringDecoder('utf8');
    let carry = '';
    for await (const chunk of fs.createReadStream(file.absolute, { highWaterMark: 1 << 20 })) {
      const text = carry + decoder.write(chunk as Buffer);
      const end = text.lastIndexOf('\n');
      if (end === -1) {
        carry = text;
        continue;
      }
      redactor.learn(text.slice(0, end));
      carry = text.slice(end + 1);
    }
    const rest = carry + decoder.end();
    if (rest !== '') redactor.learn(rest);
  }
}
