import fs from 'node:fs';
import path from 'node:path';
import type { ToolCallRow } from '../../shared/api/task-view-api';
import type { MessageRecord } from '../../shared/task-types';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import { readLinesSync } from '../jsonl/line-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { contextUsage } from '../usage/context-usage';
import { contextBreakdown } from '../usage/context-breakdown';
import { ownToolDefinitions } from '../usage/own-tool-definitions';
import { UsageFiguresCache } from '../usage/usage-cache';
import { taskContextWindow } from './task-context-window';
import type { ServiceContext } from './service-context';

/** What the task view reads besides messages: the usage series, planning and tool records. */
export function taskViewHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'contextUsage' | 'contextBreakdown' | 'listPlanning' | 'listToolCalls'> {
  // Kept for the host's life: reopening a long task's chart reads only what was appended.
  const usageFigures = new UsageFiguresCache();
  return {
    contextUsage: async ({ uuid, maxPoints }) => {
      const reader = ctx.store.readTask(uuid);
      const { config } = ctx.loadConfig();
      const contextWindow = taskContextWindow(reader.row, config);
      return contextUsage(
        reader.dir,
        {
          contextWindow,
          thresholdRatio: config.storage.compression_threshold,
          thresholdTokens: config.storage.token_threshold,
        },
        maxPoints,
        usageFigures,
      );
    },

    contextBreakdown: async ({ uuid, at, top }) => {
      const reader = ctx.store.readTask(uuid);
      return contextBreakdown(reader.dir, {
        ...(at !== undefined && { at }),
        top,
        toolDefinitions: ownToolDefinitions(reader.row, () => ctx.loadConfig().config),
      });
    },

    listPlanning: async ({ uuid, offset, limit }) =>
      ctx.store.readTask(uuid).planning(offset, limit),

    listToolCalls: async ({ uuid, offset, limit }) => {
      const reader = ctx.store.readTask(uuid);
      const { records, bad } = reader.tools(offset, limit);
      const seqs = callSeqs(
        reader.dir,
        new Set(records.flatMap((r) => (r.tool_call_id ? [r.tool_call_id] : []))),
      );
      const rows: ToolCallRow[] = records.map((r) => ({
        ...r,
        message_seq: (r.tool_call_id && seqs.get(r.tool_call_id)) || null,
      }));
      return { records: rows, bad };
    },
  };
}

/**
 * The seq of the assistant message that made each wanted tool call, found by streaming
 * messages.jsonl once; a line is parsed only when it names one of the ids, and only the
 * wanted ids are held.
 */
function callSeqs(taskDir: string, wanted: Set<string>): Map<string, number> {
  const found = new Map<string, number>();
  const file = path.join(taskDir, TASK_FILES.messages);
  if (wanted.size === 0 || !fs.existsSync(file)) return found;
  for (const entry of readLinesSync(file)) {
    if (entry.partial) break;
    if ('tooLong' in entry || !entry.text.includes('"tool_calls"')) continue;
    let message: MessageRecord;
    try {
      const checked = asMessageRecord(JSON.parse(entry.text));
      if (!checked.ok) continue;
      message = checked.value;
    } catch {
      continue;
    }
    for (const call of message.tool_calls ?? []) {
      if (wanted.has(call.id) && !found.has(call.id)) found.set(call.id, message.seq);
    }
    if (found.size === wanted.size) break;
  }
  return found;
}
