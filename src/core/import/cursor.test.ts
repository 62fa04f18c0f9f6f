import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { sniffFile } from './detect-format';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const ID = 'b2e8c4f0-5d1a-4c39-8e7b-0a6f3d9c1e52';
const FILE = realFixture(
  'cursor',
  'home-dev-src-notes-app',
  'agent-transcripts',
  ID,
  `${ID}.jsonl`,
);

describe('Cursor agent transcripts', () => {
  it('import every message; calls without ids are paired with their results by tool', async () => {
    expect(await sniffFile(FILE)).toEqual({ kind: 'jsonl', format: 'cursor' });
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.skipped).toEqual([]);
    const [task] = result.tasks;
    // 2 requests, 7 replies (+1 reasoning), 6 results
    expect(task).toMatchObject({ messages: 16, tool_calls: 7, llm_calls: 7 });
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'cursor',
      title: 'Add a search box above the notes list that filters notes by title as you type.',
      prompt: 'Add a search box above the notes list that filters notes by title as you type.',
      task_id: ID,
      workdir: '/home/dev/src/notes-app',
      repo: 'notes-app',
    });
    const tools = fs
      .readFileSync(path.join(store.taskPath(row), 'tools.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { tool: string; status: string; tool_call_id: string });
    // The StrReplace without an id got its result; the last call never got one.
    expect(tools.find((t) => t.tool_call_id.startsWith('L6-'))).toMatchObject({
      status: 'success',
    });
    expect(tools.filter((t) => t.status === 'error')).toHaveLength(2);
    store.close();
  });

  it('a plain-text transcript (<id>.txt): the same messages, calls and results as its JSON Lines kind', async () => {
    const TEXT_ID = '9d3f6a28-41c7-4b5e-a0d2-7e8c1b3f5a94';
    const file = realFixture(
      'cursor',
      'home-dev-src-notes-app',
      'agent-transcripts',
      `${TEXT_ID}.txt`,
    );
    expect(await sniffFile(file)).toEqual({ kind: 'text', format: 'cursor' });
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, file);
    expect(result.skipped).toEqual([]);
    const [task] = result.tasks;
    // 2 requests, 1 reasoning, 7 replies, 5 results; the last call never answered
    expect(task).toMatchObject({ messages: 15, tool_calls: 6, llm_calls: 7 });
    const row = store.requireTask(task!.uuid);
    expect(row).toMatchObject({
      agent: 'cursor',
      title:
        'Notes with an empty title crash the list view. Make the list show "Untitled" instead.',
      task_id: TEXT_ID,
      workdir: '/home/dev/src/notes-app',
    });
    const dir = store.taskPath(row);
    const read = (name: string): Record<string, unknown>[] =>
      fs
        .readFileSync(path.join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const tools = read('tools.jsonl');
    expect(tools.map((t) => [t.tool, t.status])).toEqual([
      ['Grep', 'success'],
      ['ReadFile', 'success'],
      ['EditFile', 'success'],
      ['Shell', 'success'],
      ['Shell', 'success'],
      ['ReadFile', expect.not.stringMatching(/^success$/)],
    ]);
    expect(tools[0]).toMatchObject({ args: { pattern: 'title.trim', path: 'src' } });
    const messages = read('messages.jsonl');
    expect(messages[1]).toMatchObject({ role: 'assistant', name: 'reasoning' });
    expect(messages.find((m) => m.role === 'tool')!.content).toBe(
      'src/components/NoteList.tsx:14:  const label = note.title.trim();',
    );
    expect(
      messages.filter((m) => m.role === 'assistant' && m.name !== 'reasoning').at(-2),
    ).toMatchObject({
      content: expect.stringMatching(/^Fixed: `NoteRow` now shows/),
    });
    store.close();
  });
});
