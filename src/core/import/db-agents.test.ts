import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { detectFormat } from './detect-format';
import { readJsonDocument } from './json-document';
import { crushDb, gooseDb, zedDb } from '../../../test/support/agent-dbs';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

async function imported(file: string) {
  const store = ContextStore.open(tempDir());
  const result = await importFile(store, file);
  const row = store.requireTask(result.tasks[0]!.uuid);
  const messages = fs
    .readFileSync(path.join(store.taskPath(row), 'messages.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as {
          role: string;
          content: string | null;
          name?: string;
          tool_name?: string;
        },
    );
  store.close();
  return { result, row, messages };
}

describe('Goose, Crush and Zed session databases', () => {
  it('Goose sessions.db: calls and results paired, failed calls and notices accounted for', async () => {
    const file = gooseDb(path.join(tempDir(), 'sessions.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('goose');
    const { result, row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'goose',
      task_id: '20251120_3',
      title: 'Add retry to the webhook sender',
      workdir: '/home/dev/projects/hooks',
      llm_call_count: 4,
      tool_call_count: 3,
    });
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_name)).toEqual([
      'developer__shell',
      'developer__text_editor',
      'developer__shell',
    ]);
    expect(result.skipped.map((s) => s.error)).toEqual([
      expect.stringContaining('a tool call Goose could not read: Could not interpret'),
    ]);
    expect(result.ignored).toMatchObject({ 'goose systemNotification': 1 });
    expect(messages.find((m) => m.name === 'reasoning')?.content).toBe('Find the sender first.');
  });

  it('Crush crush.db: plain and zstd-compressed parts, the project as working directory', async () => {
    const file = crushDb(path.join(tempDir(), 'api', '.crush', 'crush.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('crush');
    const { row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'crush',
      title: 'CI lint failure',
      workdir: path.dirname(path.dirname(file)),
      model: 'gpt-5',
      llm_call_count: 3,
      tool_call_count: 2,
    });
    expect(messages.at(-1)?.content).toMatch(/^CI installs golangci-lint v2/);
    expect(
      messages.find((m) => m.role === 'tool' && m.content?.includes('not found')),
    ).toBeTruthy();
  });

  it('Zed threads.db: a zstd thread, usage per request, the resume marker ignored', async () => {
    const file = zedDb(path.join(tempDir(), 'threads.db'));
    expect(await detectFormat(file, readJsonDocument)).toBe('zed');
    const { result, row, messages } = await imported(file);
    expect(row).toMatchObject({
      agent: 'zed',
      title: 'Explain the borrow error in parser.rs',
      workdir: '/home/dev/projects/calc',
      model: 'claude-sonnet-4-5',
      llm_call_count: 3,
      tool_call_count: 2,
      input_tokens: 9120,
      output_tokens: 620,
    });
    expect(result.ignored).toMatchObject({ 'zed resume marker': 1 });
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      expect.stringContaining('cannot borrow'),
      'Make peek return by value.\n[src/parser.rs]',
    ]);
  });
});
