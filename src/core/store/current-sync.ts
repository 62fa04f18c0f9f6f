import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { CurrentMessage, MessageRecord } from '../../shared/task-types';
import { AppendLog } from '../jsonl/append-log';
import { writeFileAtomicChunks } from '../jsonl/atomic-write';
import { lineChunks } from '../jsonl/line-chunks';
import { currentLines } from '../compaction/materialize';
import { OffsetIndex } from '../jsonl/offset-index';
import { readLastLine } from '../jsonl/tail';
import { activeRecords } from '../compaction/compaction-record';
import { LineAtOffset } from '../compaction/line-at-offset';
import { planEntries, readView } from '../compaction/read-view';
import { TASK_FILES } from './contexts-layout';
import { asCurrentMessage, asMessageRecord } from './message-shape';
import { toCurrent } from './message-store';
import { ownerAlive } from './recovery';

/** `.<name>.tmp-<pid>-<hex>`: the temp file of an atomic rewrite (writeFileAtomic). */
const TEMP_FILE = /^\.(.+)\.tmp-(\d+)-[0-9a-f]+$/;

/**
 * How far back from the end of messages.jsonl the last messages in the context are looked
 * for. Messages kept out of the context by themselves (compaction-made, history-only) sit
 * between them; past this many, the check is left to the next compaction.
 */
const MAX_LOOKBACK = 10_000;

export type CurrentSync = 'in-sync' | 'appended' | 'rebuilt' | 'unchecked';

/**
 * Brings current.jsonl up to date with the history before a task is written to again. Only
 * the task's writer may call this (openTask, resumeTask, openForMaintenance), after torn
 * tails were set aside.
 *
 * Two interruptions leave current.jsonl behind the source of truth (messages.jsonl plus the
 * compaction records in effect):
 * - a kill between a message's messages.jsonl line and its current.jsonl line: the context
 *   misses that message. Found by comparing the end of both files; the missing line is
 *   appended.
 * - a kill during an atomic rewrite of current.jsonl (compaction, undo, rewind): its temp
 *   file stays behind and current.jsonl is the old version although the record is in
 *   effect. Temp files of dead processes are removed, and current.jsonl is rebuilt from the
 *   view when one of them was its own.
 * Any other disagreement at the end is rebuilt from the view too.
 */
export function syncCurrent(dir: string, options: { fsync?: boolean } = {}): CurrentSync {
  const removed = removeDeadTempFiles(dir);
  if (removed.some((name) => TEMP_FILE.exec(name)?.[1] === TASK_FILES.current)) {
    rebuildCurrent(dir);
    return 'rebuilt';
  }
  const expected = viewTail(dir);
  if (expected === undefined) return 'unchecked';
  const currentPath = path.join(dir, TASK_FILES.current);
  const last = lastCurrentMessage(currentPath);
  const wanted = expected.at(-1);
  if (wanted === undefined ? last === undefined : sameMessage(last, wanted)) return 'in-sync';
  const before = expected.at(-2);
  const oneBehind =
    wanted !== undefined && (before === undefined ? last === undefined : sameMessage(last, before));
  if (oneBehind) {
    const log = new AppendLog(currentPath, { fsync: options.fsync ?? false });
    try {
      log.append(JSON.stringify(wanted));
    } finally {
      log.close();
    }
    return 'appended';
  }
  rebuildCurrent(dir);
  return 'rebuilt';
}

/** Removes temp files of atomic rewrites whose process is gone; returns their names. */
export function removeDeadTempFiles(dir: string): string[] {
  const removed: string[] = [];
  for (const folder of [dir, path.join(dir, TASK_FILES.toolOutputs)]) {
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_FILE.exec(name);
      if (!match || ownerAlive(Number(match[2]), null)) continue;
      fs.rmSync(path.join(folder, name), { force: true });
      if (folder === dir) removed.push(name);
    }
  }
  return removed;
}

/** current.jsonl rewritten atomically from the view (what the next compaction would start from). */
function rebuildCurrent(dir: string): void {
  const { view } = readView(dir, { readonly: false });
  // Line by line: a long task's context can be larger than one string may be.
  writeFileAtomicChunks(path.join(dir, TASK_FILES.current), lineChunks(currentLines(view)));
}

/**
 * The last two messages of the view (fewer when it has fewer), read from the end: the
 * messages after the compaction in effect, then the end of its plan. Undefined when they
 * could not be found within MAX_LOOKBACK lines.
 */
function viewTail(dir: string): CurrentMessage[] | undefined {
  const file = path.join(dir, TASK_FILES.messages);
  if (!fs.existsSync(file)) return [];
  const index = OffsetIndex.open(file, path.join(dir, TASK_FILES.messagesIndex));
  try {
    const latest = activeRecords(dir).records.at(-1);
    const tail: CurrentMessage[] = [];
    const stop = latest?.through_seq ?? 0;
    const reader = index.count > stop ? new LineAtOffset(file) : undefined;
    try {
      for (let seq = index.count; seq > stop && tail.length < 2; seq--) {
        if (index.count - seq >= MAX_LOOKBACK) return undefined;
        const record = parseRecord(reader!.read(index.offsetOf(seq)));
        if (record && record.compaction_id === undefined && !record.history_only)
          tail.unshift(toCurrent(record));
      }
    } finally {
      reader?.close();
    }
    if (tail.length < 2 && latest) {
      const fromPlan = planEntries(file, index, latest.plan.slice(-(2 - tail.length)));
      tail.unshift(...fromPlan.map((entry) => entry.message));
    }
    return tail;
  } finally {
    index.close();
  }
}

function parseRecord(text: string): MessageRecord | undefined {
  try {
    const checked = asMessageRecord(JSON.parse(text));
    return checked.ok ? checked.value : undefined;
  } catch {
    return undefined;
  }
}

/** The last complete line of current.jsonl as a message; null for a line that is not one. */
function lastCurrentMessage(file: string): CurrentMessage | null | undefined {
  if (!fs.existsSync(file)) return undefined;
  const line = readLastLine(file);
  if (line === undefined) return undefined;
  try {
    const checked = asCurrentMessage(JSON.parse(line));
    return checked.ok ? checked.value : null;
  } catch {
    return null;
  }
}

function sameMessage(line: CurrentMessage | null | undefined, message: CurrentMessage): boolean {
  return line !== null && line !== undefined && isDeepStrictEqual(line, message);
}
