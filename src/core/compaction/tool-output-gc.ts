import path from 'node:path';
import type { MessageRecord } from '../../shared/task-types';
import type { ToolOutputStore } from '../store/tool-output-store';
import { readJsonlSync } from '../jsonl/jsonl-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { activeRecords } from './compaction-record';
import { collectUnreferencedRefs, refsInText } from './tool-output-trim';

/**
 * seed 002 §1.9: full tool outputs no longer referenced are collected. A ref is in use when
 * a message of the history names it (its output_ref, or a placeholder in its content) or a
 * compaction still in effect shows it. Undone compactions cannot come back, so their refs
 * do not count. Streams messages.jsonl; returns the refs removed (or that would be).
 */
export function collectToolOutputs(
  taskDir: string,
  toolOutputs: ToolOutputStore,
  options: { dryRun: boolean },
): string[] {
  const inUse = new Set<string>();
  for (const entry of readJsonlSync(path.join(taskDir, TASK_FILES.messages))) {
    if (!entry.ok) continue;
    const m = entry.value as MessageRecord;
    if (m.output_ref) inUse.add(m.output_ref);
    if (typeof m.content === 'string') for (const ref of refsInText(m.content)) inUse.add(ref);
  }
  for (const record of activeRecords(taskDir).records) {
    for (const item of record.plan) {
      const text = 'inline' in item ? item.inline.content : item.content;
      if (text) for (const ref of refsInText(text)) inUse.add(ref);
    }
  }
  const unused = collectUnreferencedRefs(inUse, toolOutputs);
  if (!options.dryRun) for (const ref of unused) toolOutputs.remove(ref);
  return unused;
}
