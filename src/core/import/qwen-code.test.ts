import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { sniffFile } from './detect-format';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture(
  'qwen-code',
  '-home-dev-src-weather-cli',
  'chats',
  '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36.jsonl',
);

function stored(store: ContextStore, uuid: string, name: string): Record<string, unknown>[] {
  const dir = store.taskPath(store.requireTask(uuid));
  return fs
    .readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Qwen Code chats', () => {
  it('are told from Claude Code sessions, whose records also carry uuid, sessionId and cwd', async () => {
    expect(await sniffFile(FILE)).toEqual({ kind: 'jsonl', format: 'qwen-code' });
  });

  it('import every message, call and result, the compression summary, the custom title and Gemini-style usage', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.skipped).toEqual([]);
    expect(result.ignored).toEqual({ 'qwen ui_telemetry': 1, 'qwen slash_command': 1 });
    const [task] = result.tasks;
    const messages = stored(store, task!.uuid, 'messages.jsonl');
    const roles = messages.map((m) => `${m.role}${m.name === 'reasoning' ? ':reasoning' : ''}`);
    expect(roles).toEqual([
      'user',
      'assistant:reasoning',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user', // the compression: its summary
      'assistant', // and the model's acknowledgement, the new context
      'user',
      'assistant',
    ]);
    const tools = stored(store, task!.uuid, 'tools.jsonl');
    // six calls: five answered (one failed), the last one never answered
    expect(tools).toHaveLength(6);
    expect(tools.filter((t) => t.status === 'error')).toHaveLength(2);
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'qwen-code',
      title: 'Forecast in Celsius with a Fahrenheit flag',
      task_id: '3f6b2d1e-8a4c-4e7f-9b2a-5c1d0e8f7a36',
      model: 'qwen3-coder-plus',
      workdir: '/home/dev/src/weather-cli',
      git_branch: 'main',
      llm_call_count: 6,
      cache_read_tokens: 8960 + 9280 + 9600 + 9760,
      total_summaries: 1,
    });
    const [record] = stored(store, task!.uuid, 'summaries.jsonl');
    expect(record).toMatchObject({
      strategy: 'qwen-compress',
      start_seq: 1,
      end_seq: 12,
      agent_compaction: true,
      agent_tokens_before: 10053,
      agent_tokens_after: 812,
      created_seqs: [13, 14],
      plan: [{ seq: 13 }, { seq: 14 }],
    });
    expect(String(record!.summary)).toMatch(/^<state_snapshot>/);
    expect(messages.slice(0, 12).every((m) => m.history_only === true)).toBe(true);
    expect(messages[12]).toMatchObject({ kind: 'summary' });
    store.close();
  });
});
