import fs from 'node:fs';
import path from 'node:path';
import type { NewMessage } from '../../src/core/store/message-store';
import { ContextStore } from '../../src/core/store/context-store';
import { readLinesSync } from '../../src/core/jsonl/line-reader';
import { TASK_FILES } from '../../src/core/store/contexts-layout';
import type { MessageRecord } from '../../src/shared/task-types';
import { asMessageRecord } from '../../src/core/store/message-shape';
import { parseEntry } from '../../src/core/store/message-window';
import { buildSourcesHome, firstSync } from '../groups/sources-sync';
import { removeTree } from './processes';

/**
 * The messages of the real session fixtures (Claude Code, Codex, Gemini CLI, Cline,
 * OpenHands: what a first sync of them writes), as new messages to append again.
 */
export async function realMessagePool(repoRoot: string, tmp: string): Promise<NewMessage[]> {
  const home = path.join(tmp, 'pool-home');
  const contexts = path.join(tmp, 'pool-contexts');
  buildSourcesHome(repoRoot, home, 1);
  await firstSync(home, contexts);
  const store = ContextStore.open(contexts);
  const pool: NewMessage[] = [];
  try {
    for (const row of store.listTasks({ limit: 10_000 }).rows) {
      const file = path.join(store.taskPath(row), TASK_FILES.messages);
      if (!fs.existsSync(file)) continue;
      for (const entry of readLinesSync(file)) {
        const parsed = parseEntry(entry, file, asMessageRecord);
        if (!parsed.ok) continue;
        const m: MessageRecord = parsed.value;
        pool.push({
          role: m.role,
          content: m.content,
          ...(m.name !== undefined && { name: m.name }),
          ...(m.tool_calls !== undefined && { tool_calls: m.tool_calls }),
          ...(m.tool_call_id !== undefined && { tool_call_id: m.tool_call_id }),
          ...(m.tool_name !== undefined && { tool_name: m.tool_name }),
        });
      }
    }
  } finally {
    store.close();
    removeTree(home);
    removeTree(contexts);
  }
  return pool;
}

export interface CorpusFacts {
  tasks: number;
  messages: number;
  /** messages.jsonl bytes of every task. */
  bytes: number;
  ms: number;
}

/**
 * A contexts folder of `total` messages in tasks of `perTask`, appended through the task
 * API (messages.jsonl, its offset index, current.jsonl, the row's counters) from the pool,
 * each task starting at another place in it. Streams: one task's files open at a time.
 */
export function buildCorpus(
  contexts: string,
  pool: readonly NewMessage[],
  total: number,
  perTask: number,
  log: (message: string) => void,
): CorpusFacts {
  const started = performance.now();
  const store = ContextStore.open(contexts);
  let bytes = 0;
  let messages = 0;
  let tasks = 0;
  try {
    // No index upkeep while the corpus is written: the catch-up is measured on its own.
    while (messages < total) {
      const task = store.createTask({ title: `search bench ${tasks}` });
      const start = (tasks * 7919) % pool.length;
      const n = Math.min(perTask, total - messages);
      for (let i = 0; i < n; i++) task.addMessage(pool[(start + i) % pool.length]!);
      const file = path.join(task.dir, TASK_FILES.messages);
      task.close();
      bytes += fs.statSync(file).size;
      messages += n;
      tasks++;
      if (tasks % 100 === 0) log(`  corpus: ${messages.toLocaleString('en-US')} messages`);
    }
  } finally {
    store.close();
  }
  return { tasks, messages, bytes, ms: performance.now() - started };
}

/**
 * Takes the search index out of a contexts folder's tasks.db (its triggers and its table),
 * as it was before schema v8: the baseline of the upkeep figures.
 */
export function dropSearchIndex(contexts: string): void {
  const store = ContextStore.open(contexts);
  try {
    store.db.exec(`
      DROP TRIGGER messages_search_task_insert;
      DROP TRIGGER messages_search_task_grow;
      DROP TRIGGER messages_search_task_delete;
      DROP TABLE messages_search;
      DELETE FROM messages_search_dirty;
    `);
  } finally {
    store.close();
  }
}

/** Appends `tasks` × `perTask` messages from the pool; the time of the appends alone. */
export function appendTasks(
  contexts: string,
  pool: readonly NewMessage[],
  tasks: number,
  perTask: number,
): number {
  const store = ContextStore.open(contexts);
  try {
    const started = performance.now();
    for (let t = 0; t < tasks; t++) {
      const task = store.createTask({ title: `upkeep ${t}` });
      const start = (t * 7919) % pool.length;
      for (let i = 0; i < perTask; i++) task.addMessage(pool[(start + i) % pool.length]!);
      task.close();
    }
    return performance.now() - started;
  } finally {
    store.close();
  }
}
