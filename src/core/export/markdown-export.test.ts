import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { writeMarkdown } from './markdown-export';
import { fenceFor, fenced, messageBlock } from './markdown-format';
import { useTempDir } from '../../../test/support/temp-dir';
import fs from 'node:fs';

const tempDir = useTempDir();

function collect(): {
  sink: { write(t: string): Promise<void> };
  text: () => string;
  writes: () => number;
} {
  const parts: string[] = [];
  return {
    sink: { write: async (t) => void parts.push(t) },
    text: () => parts.join(''),
    writes: () => parts.length,
  };
}

async function seeded(): Promise<{ store: ContextStore; uuid: string }> {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({
    title: 'Fix the build',
    model: 'gpt-4o',
    llm_provider: 'openai',
  });
  task.addMessage({
    role: 'system',
    content: 'You are an agent.\n# not a heading of the transcript',
  });
  task.addMessage({ role: 'user', content: 'Build fails with ```weird``` fences' });
  task.addMessage({ role: 'assistant', content: 'Hmm.', name: 'reasoning', historyOnly: true });
  task.addMessage({
    role: 'assistant',
    content: 'Checking.',
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'run_command', arguments: '{"cmd":"npm test"}' },
      },
    ],
  });
  task.addMessage({
    role: 'tool',
    content: 'FAIL ```\nline',
    tool_name: 'run_command',
    tool_call_id: 'call_1',
  });
  task.recordToolCall({
    tool: 'run_command',
    args: { cmd: 'npm test' },
    result: 'FAIL',
    status: 'error',
    error: 'exit 1',
    duration_ms: 1200,
  });
  task.recordSummary({
    strategy: 'summarize',
    start_seq: 1,
    end_seq: 5,
    summary: 'The build failed.',
    original_tokens: 50,
    summary_tokens: 5,
    compressed_message_count: 5,
  });
  task.addMessage({ role: 'user', content: 'The build failed.', kind: 'summary' });
  task.addMessage({ role: 'user', content: '[2 messages hidden]', kind: 'truncation-marker' });
  task.planning.add('initial', 'fix it');
  await task.complete();
  // a damaged line in the history is marked, not fatal
  fs.appendFileSync(
    path.join(store.taskPath(store.requireTask(task.uuid)), 'messages.jsonl'),
    '{oops\n',
  );
  return { store, uuid: task.uuid };
}

describe('writeMarkdown', () => {
  it('writes a readable transcript with summaries, markers, reasoning and tool calls clearly marked', async () => {
    const { store, uuid } = await seeded();
    const out = collect();
    const result = await writeMarkdown(store, uuid, out.sink);
    const md = out.text();
    expect(result.messages).toBe(7);
    expect(result.bad).toEqual([expect.objectContaining({ file: 'messages.jsonl', line: 8 })]);
    expect(md).toMatch(/^# Fix the build\n/);
    expect(md).toContain('- **Model** openai / gpt-4o');
    expect(md).toContain('## Messages (full history, messages.jsonl)');
    expect(md).toContain('> # not a heading of the transcript');
    expect(md).toMatch(/### #3 · assistant · ⟪REASONING⟫/);
    expect(md).toContain('**⟪TOOL CALL⟫ `run_command`** id `call_1`');
    expect(md).toContain('```json\n{\n  "cmd": "npm test"\n}\n```');
    expect(md).toMatch(/### #5 · tool · ⟪TOOL RESULT⟫ `run_command` for `call_1`/);
    expect(md).toContain('````text\nFAIL ```\nline\n````');
    expect(md).toMatch(/### #6 · user · ⟪SUMMARY⟫ compaction summary/);
    expect(md).toMatch(/### #7 · user · ⟪TRUNCATION MARKER⟫/);
    expect(md).toContain('> ⚠ messages.jsonl line 8 could not be read and is left out');
    expect(md).toMatch(/### ⟪COMPACTION⟫ 1 · summarize · messages #1–#5 · ~50 → ~5 tokens/);
    expect(md).toContain(
      '| 1 | run_command | **error**: exit 1 | 1,200 ms | `{"cmd":"npm test"}` |',
    );
    expect(md).toContain('## Plan (planning.jsonl)');
    expect(md).toContain('## Final summary (final_summary.txt)');
    // streamed: one write per block, not one string
    expect(out.writes()).toBeGreaterThan(10);
    store.close();
  });

  it('with current, the context the model sees now (no history-only messages)', async () => {
    const { store, uuid } = await seeded();
    const out = collect();
    const result = await writeMarkdown(store, uuid, out.sink, { current: true });
    expect(result.messages).toBe(6);
    expect(out.text()).toContain(
      '## Messages (current context, current.jsonl: what the model sees now)',
    );
    expect(out.text()).not.toContain('REASONING');
    expect(out.text()).toContain('### [1] · system');
    store.close();
  });

  it('fences survive backticks in the content', () => {
    expect(fenceFor('no ticks')).toBe('```');
    expect(fenceFor('a ```` b')).toBe('`````');
    expect(fenced('x')).toBe('```\nx\n```');
    expect(messageBlock({ role: 'user', content: null }, '[1]')).toBe('### [1] · user\n\n');
  });
});
