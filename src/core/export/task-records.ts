import fs from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../jsonl/jsonl-reader';

export type RecordLine =
  | { ok: true; value: unknown; lineNo: number }
  | { ok: false; file: string; lineNo: number; error: string };

/**
 * The lines of one task file, streamed. A missing file has no lines; a last line without
 * its '\n' (a running task mid-write) is not returned; malformed and over-long lines come
 * back as errors with their line number, so an export can mark them and go on.
 */
export async function* taskRecords(file: string): AsyncGenerator<RecordLine> {
  try {
    await fs.promises.access(file);
  } catch {
    return;
  }
  const name = path.basename(file);
  for await (const line of readJsonl(file)) {
    if (line.partial) continue;
    if (line.ok) yield { ok: true, value: line.value, lineNo: line.lineNo };
    else {
      // The reader's message names the file and line; they are fields here already.
      const prefix = `${name} line ${line.lineNo}: `;
      const error = line.error.startsWith(prefix) ? line.error.slice(prefix.length) : line.error;
      yield { ok: false, file: name, lineNo: line.lineNo, error };
    }
  }
}
