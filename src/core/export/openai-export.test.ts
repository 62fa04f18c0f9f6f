import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { writeOpenAi } from './openai-export';
import { importFile } from '../import/import-file';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('writeOpenAi', () => {
  it('writes {"messages": [...]} with OpenAI fields only, the history or the current context, and imports back as one task', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const task = store.createTask({ title: 'chat' });
    task.addMessage({ role: 'system', content: 'sys' });
    task.addMessage({ role: 'user', content: 'old', historyOnly: true });
    task.addMessage({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    task.addMessage({ role: 'tool', content: 'r', tool_name: 'f', tool_call_id: 'c1' });
    await task.complete();
    const parts: string[] = [];
    const sink = { write: async (t: string) => void parts.push(t) };

    const history = await writeOpenAi(store, task.uuid, sink);
    const doc = JSON.parse(parts.join('')) as { messages: Record<string, unknown>[] };
    expect(history.messages).toBe(4);
    expect(doc.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'old' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', content: 'r', tool_call_id: 'c1' },
    ]);
    expect(parts.join('').split('\n')).toHaveLength(7); // opening, one line per message, closing, final newline

    parts.length = 0;
    await writeOpenAi(store, task.uuid, sink, { current: true });
    const current = JSON.parse(parts.join('')) as { messages: unknown[] };
    expect(current.messages).toHaveLength(3);

    const file = path.join(tempDir(), 'chat.json');
    fs.writeFileSync(file, parts.join(''));
    const back = await importFile(store, file);
    expect(back.tasks[0]).toMatchObject({ messages: 3, tool_calls: 1, llm_calls: 1 });

    parts.length = 0;
    const empty = store.createTask();
    await empty.complete();
    await writeOpenAi(store, empty.uuid, sink);
    expect(JSON.parse(parts.join(''))).toEqual({ messages: [] });
    store.close();
  });
});
