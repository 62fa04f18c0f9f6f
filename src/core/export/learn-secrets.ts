import fs from 'node:fs';
import type { Redactor } from './redaction';
import { WholeLines } from './redacting-lines';
import { listTaskFiles } from './task-file-list';

/**
 * Reads every text file of a task folder once so that `redactor` knows each secret the task
 * holds before anything is written: a summary may quote a piece of a key (its fact ledger
 * lists identifiers) ahead of the message that holds the whole key, where a single pass
 * would not know it yet. Streamed, whole lines at a time; offset indexes are binary and
 * skipped.
 */
export async function learnTaskSecrets(redactor: Redactor, dir: string): Promise<void> {
  for (const file of listTaskFiles(dir).files) {
    if (file.relative.endsWith('.idx')) continue;
    const lines = new WholeLines();
    for await (const chunk of fs.createReadStream(file.absolute, { highWaterMark: 1 << 20 })) {
      const text = lines.push(chunk as Buffer);
      if (text !== '') redactor.learn(text);
    }
    const rest = lines.end();
    if (rest !== '') redactor.learn(rest);
  }
}
