import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContextStore } from '../../src/core/store/context-store';
import { SCHEMA_VERSION } from '../../src/core/db/schema';
import { backfillSearchIndex, withSearchIndexDeferred } from '../../src/core/db/task-search';
import type { TaskRow, TaskStatus } from '../../src/shared/task-types';

const REPOS = ['acme/parser', 'acme/web', 'globex/billing', 'initech/etl', 'hooli/search'];
const USERS = ['alice', 'bob', 'yuki', 'haruto'];
const MODELS = ['gpt-4o', 'qwen2.5-coder:32b', 'o4-mini'];

/**
 * A contexts root with `n` finished tasks, written straight into tasks.db in one
 * transaction (plus the empty folders recovery expects): 100,000 tasks in seconds.
 * Task i is titled `Generated task #i` and created i minutes after a fixed start, so
 * the newest-first order is known.
 */
export function generateTasks(root: string, n: number): void {
  const store = ContextStore.open(root, { recover: false });
  const start = Date.parse('2025-01-01T00:00:00Z');
  try {
    const folder = path.join(store.root, 'completed');
    fs.mkdirSync(folder, { recursive: true });
    // Indexed for search by the backfill afterwards, as a bulk import is (insertRows).
    withSearchIndexDeferred(store.db, () => {
      for (let i = 0; i < n; i++) {
        const uuid = uuidOf(i);
        const created = new Date(start + i * 60_000).toISOString();
        const ended = new Date(start + i * 60_000 + 95_000).toISOString();
        const status: TaskStatus = i % 17 === 0 ? 'failed' : 'completed';
        const [owner, repo] = REPOS[i % REPOS.length]!.split('/') as [string, string];
        const row: TaskRow = {
          uuid,
          status,
          title: `Generated task #${i}`,
          prompt: `Work item ${i}`,
          workdir: '/tmp/work',
          parent_uuid: null,
          task_source: 'bench',
          owner,
          repo,
          repository: `${owner}/${repo}`,
          task_type: 'issue',
          task_id: String(i),
          user: USERS[i % USERS.length]!,
          created_at: created,
          started_at: created,
          updated_at: ended,
          completed_at: ended,
          process_id: null,
          hostname: null,
          llm_provider: 'openai',
          model: MODELS[i % MODELS.length]!,
          context_length: 128_000,
          llm_call_count: 1 + (i % 30),
          tool_call_count: i % 40,
          input_tokens: 1000 * (i % 50),
          output_tokens: 100,
          cache_creation_tokens: 0,
          cache_read_tokens: 0,
          total_tokens: 1000 * (i % 50) + 100,
          compression_count: i % 4,
          total_messages: 2 + (i % 60),
          total_summaries: i % 4,
          total_tool_calls: i % 40,
          final_token_count: 500,
          final_message_count: 2,
          error_message: status === 'failed' ? 'stopped after 50 turns (max turns reached)' : null,
          metadata: null,
          control: null,
        };
        store.repo.insertRow(row);
        fs.mkdirSync(path.join(folder, uuid));
      }
    });
    while (!backfillSearchIndex(store.db, 60_000));
  } finally {
    store.close();
  }
}

function uuidOf(i: number): string {
  const hex = i.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

/**
 * The same root, generated once per machine and kept in the system's temp folder: on slow
 * disks creating (and deleting) 100,000 folders takes minutes, and the rows never change.
 */
export function cachedGeneratedRoot(n: number): string {
  // Named by schema: a root a newer schema migrated is refused by older code (other branches).
  const base = path.join(os.tmpdir(), `cwb-e2e-generated-${n}-schema${SCHEMA_VERSION}`);
  const root = path.join(base, 'contexts');
  const marker = path.join(base, 'complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(base, { recursive: true, force: true });
  generateTasks(root, n);
  fs.writeFileSync(marker, new Date().toISOString());
  return root;
}
