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
  'pi',
  '--Users-badlogic-workspaces-pi-mono--',
  '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl',
);

function lines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Pi sessions', () => {
  it('are detected as Pi, and as OpenClaw below ~/.openclaw', async () => {
    expect(await sniffFile(FILE)).toEqual({ kind: 'jsonl', format: 'pi' });
    const claw = path.join(tempDir(), '.openclaw', 'agents', 'main', 'sessions', 'x.jsonl');
    fs.mkdirSync(path.dirname(claw), { recursive: true });
    fs.copyFileSync(FILE, claw);
    expect(await sniffFile(claw)).toEqual({ kind: 'jsonl', format: 'openclaw' });
  });

  it('import every message, tool call and result, with the model, usage and first real request', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'store'));
    const result = await importFile(store, FILE);
    expect(result.format).toBe('pi');
    expect(result.skipped).toEqual([]);
    const [task] = result.tasks;
    const entries = lines(FILE).filter((l) => l.type === 'message');
    const roles = entries.map((e) => (e.message as { role: string }).role);
    const calls = entries.flatMap((e) => {
      const content = (e.message as { content: unknown }).content;
      return Array.isArray(content)
        ? content.filter((b: { type?: string }) => b.type === 'toolCall')
        : [];
    });
    expect(calls.length).toBeGreaterThan(20);
    expect(task).toMatchObject({
      messages: roles.length,
      tool_calls: calls.length,
      llm_calls: roles.filter((r) => r === 'assistant').length,
    });
    const row = store.requireTask(task!.uuid);
    // "/mode" comes first: a slash command is no request.
    expect(row.title).toMatch(/^read packages\/coding-agent\/docs\/theme\.md in full/);
    expect(row).toMatchObject({
      agent: 'pi',
      task_id: 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617',
      model: 'claude-sonnet-4-5',
      workdir: '/Users/badlogic/workspaces/pi-mono',
    });
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.cache_read_tokens).toBeGreaterThan(0);
    const tools = fs
      .readFileSync(path.join(store.taskPath(row), 'tools.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(tools).toHaveLength(calls.length);
    store.close();
  });
});
