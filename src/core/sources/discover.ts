import fs from 'node:fs';
import path from 'node:path';
import type { SourceKind } from './source-kinds';

/** How long the walk lists folders before it lets the event loop run. */
const TURN_MS = 20;

/**
 * Session files of a kind under one folder, at most `kind.depth` levels down. Files nearer
 * the top come first, so a session is synced before the subagent files kept beside it
 * (Claude Code's `<session>/subagents/agent-*.jsonl`) and those find their parent task. A
 * kind's events folders (one file per event) are listed once each, as the folder.
 */
export async function discoverFiles(kind: SourceKind, folder: string): Promise<string[]> {
  const found: { file: string; depth: number }[] = [];
  const units = new Set<string>();
  let turn = performance.now();
  const walk = async (dir: string, depth: number): Promise<void> => {
    // Listed synchronously (a thread pool round trip per folder cost a sync more than the
    // listing), the event loop given its turn every TURN_MS as the sync's reading does.
    if (performance.now() - turn >= TURN_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // a folder that is gone or unreadable has no sessions
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < kind.depth) await walk(full, depth + 1);
      } else if (entry.isFile()) {
        const rel = relative(folder, full);
        const unit = kind.events?.unitOf(rel);
        if (kind.matches(rel)) found.push({ file: full, depth });
        else if (unit !== undefined && !units.has(unit)) {
          units.add(unit);
          found.push({ file: path.join(folder, ...unit.split('/')), depth: depth - 1 });
        }
      }
    }
  };
  await walk(folder, 0);
  return found.sort((a, b) => a.depth - b.depth || a.file.localeCompare(b.file)).map((f) => f.file);
}

/** A path below `folder` with '/' separators, as SourceKind.matches expects. */
export function relative(folder: string, file: string): string {
  return path.relative(folder, file).split(path.sep).join('/');
}

/** Whether `file` lies inside `folder` (not the folder itself, not beside it). */
export function isInside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
