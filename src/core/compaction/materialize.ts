import { writeFileAtomicFrom } from '../jsonl/atomic-write';
import type { ViewEntry } from './view';

/**
 * Rewrites current.jsonl from a view: a temp file, fsync, rename (DESIGN.md §4), so a
 * reader or a crash sees the old context or the new one, never a mix.
 */
export async function writeCurrent(currentPath: string, view: readonly ViewEntry[]): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    for (const entry of view) yield `${JSON.stringify(entry.message)}\n`;
  }
  await writeFileAtomicFrom(currentPath, lines());
}
