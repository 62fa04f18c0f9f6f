import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { detectFormat } from './detect-format';
import { readJsonDocument } from './json-document';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('goose', '20250612_093015.jsonl');

async function imported(file: string) {
  const store = ContextStore.open(tempDir());
  const result = await importFile(store, file);
  const row = store.requireTask(result.tasks[0]!.uuid);
  const messages = fs
    .readFileSync(path.join(store.taskPath(row), 'messages.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; content: string | null; name?: string });
  store.close();
  return { result, row, messages };
}

describe("Goose's older JSON Lines sessions", () => {
  it('the metadata line titles the task; each message is read as sessions.db rows are', async () => {
    expect(await detectFormat(FILE, readJsonDocument)).toBe('goose');
    const { result, row, messages } = await imported(FILE);
    expect(result.format).toBe('goose');
    expect(row).toMatchObject({
      agent: 'goose',
      task_source: 'goose',
      task_id: '20250612_093015',
      title: 'Fix RSS date parsing',
      workdir: '/home/dev/projects/feeds',
      created_at: '2025-06-12T09:30:15.000Z',
      completed_at: '2025-06-12T09:30:42.000Z',
      llm_call_count: 4,
    });
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    // Goose's shell answers the assistant and the user apart: the model reads one of them.
    expect(messages[2]!.content).toBe(
      "feeds/parse.py:41:    published = datetime.strptime(item['pubDate'], '%a, %d %b %Y %H:%M:%S %z')",
    );
    expect(messages[3]).toMatchObject({ name: 'reasoning', history_only: true });
    // The call Goose could not read is reported; its error answer is kept.
    expect(result.skipped).toEqual([
      expect.objectContaining({
        item: 'line 7',
        error: expect.stringContaining('a tool call Goose could not read'),
      }),
    ]);
    expect(result.ignored).toEqual({ 'goose message without content for the model': 1 });
    expect(messages.at(-1)?.content).toMatch(/^Done: `parse_item` now uses/);
  });

  it('a file without its metadata line, or with a line cut short, still imports what it holds', async () => {
    const lines = fs.readFileSync(FILE, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), '20250613_080000.jsonl');
    fs.writeFileSync(file, [...lines.slice(1, 3), lines[3]!.slice(0, 40)].join('\n') + '\n');
    expect(await detectFormat(file, readJsonDocument)).toBe('goose');
    const { result, row, messages } = await imported(file);
    expect(row).toMatchObject({ task_id: '20250613_080000', workdir: null });
    expect(row.title).toMatch(/^The feed reader drops items/);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(result.skipped).toEqual([expect.objectContaining({ item: 'line 3' })]);
  });
});
