import { writeFileAtomicFrom } from '../jsonl/atomic-write';
import { lineChunks } from '../jsonl/line-chunks';
import type { ViewEntry } from './view';

/**
 * Rewrites current.jsonl from a view: a temp file, fsync, rename (DESIGN.md §4), so a
 * reader or a crash sees the old context or the new one, never a mix.
 */
export async function writeCurrent(currentPath: string, view: readonly ViewEntry[]): Promise<void> {
  await writeFileAtomicFrom(currentPath, lineChunks(currentLines(view)));
}

export function* currentLines(view: readonly ViewEntry[]): Generator<string> {
  for (const entry of view) yield `${JSON.stringify(entry.message)}\n`;
}
