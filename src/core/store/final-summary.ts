import fs from 'node:fs';
import path from 'node:path';
import { TASK_FILES } from './contexts-layout';
import { writeFileAtomic } from '../jsonl/atomic-write';

/** Final summaries are short texts; a reader never takes more than this many bytes of one. */
const MAX_READ_BYTES = 1 << 20;

export function writeFinalSummary(taskDir: string, text: string): void {
  writeFileAtomic(
    path.join(taskDir, TASK_FILES.finalSummary),
    text.endsWith('\n') ? text : `${text}\n`,
  );
}

/** The final summary, or undefined when the task has none; bounded read. */
export function readFinalSummary(taskDir: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path.join(taskDir, TASK_FILES.finalSummary), 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const buf = Buffer.alloc(MAX_READ_BYTES);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').trimEnd();
  } finally {
    fs.closeSync(fd);
  }
}
