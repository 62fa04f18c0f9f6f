import fs from 'node:fs';

/**
 * A small JSON Lines file a test wrote or a task holds (messages.jsonl, tools.jsonl, …),
 * every line parsed; none when the file is not there (a task writes some of its files only
 * at their first record). Tests only: the app streams these files.
 */
export function jsonlLines(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
