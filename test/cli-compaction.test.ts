import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();

/** A paused task with a realistic history: reads, a failed command, a write. */
async function seedTask(root: string): Promise<string> {
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'Fix the date parser' });
  task.addMessage({ role: 'system', content: 'You are a coding agent.' });
  task.addMessage({
    role: 'user',
    content: 'Fix the date parser in src/date.ts so that 2024-02-30 is rejected.',
  });
  let call = 0;
  const tool = (name: string, args: object, result: string): void => {
    call++;
    task.addMessage({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `c${call}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
      ],
    });
    task.addMessage({ role: 'tool', content: result, tool_call_id: `c${call}`, tool_name: name });
  };
  tool(
    'read_file',
    { path: 'src/date.ts' },
    'export function parse(s: string) {\n  return new Date(s);\n}\n'.repeat(40),
  );
  tool(
    'run_command',
    { command: 'npm test' },
    'FAIL src/date.test.ts\nError: expected invalid date\nexit code 1',
  );
  tool('write_file', { path: 'src/date.ts' }, 'wrote 812 bytes to src/date.ts');
  tool('run_command', { command: 'npm test' }, 'PASS src/date.test.ts\nexit code 0');
  task.addMessage({
    role: 'assistant',
    content: 'The parser now rejects impossible dates; tests pass.',
  });
  await task.stop();
  store.close();
  return task.uuid;
}

describe('cwb compact, compactions, undo, rewind', () => {
  it('previews, runs offline, lists, undoes and rewinds', async () => {
    const root = path.join(tempDir(), 'contexts');
    const uuid = await seedTask(root);
    const cwb = (...args: string[]): ReturnType<typeof runCwb> =>
      runCwb(['--contexts', root, ...args]);

    const dry = cwb('compact', uuid, '--strategy', 'extractive', '--dry-run', '--json');
    expect(dry.stderr).toBe('');
    const preview = JSON.parse(dry.stdout) as {
      dryRun: boolean;
      steps: { strategy: string; applied: boolean; replacedSeqs: number[] }[];
    };
    expect(preview).toMatchObject({
      dryRun: true,
      steps: [{ strategy: 'extractive', applied: true }],
    });
    expect(JSON.parse(cwb('compactions', uuid, '--json').stdout)).toMatchObject({
      compactions: [],
    });

    const ran = cwb('compact', uuid, '--strategy', 'extractive');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(
      /^Compacted: \S+ → \S+ tokens\n {2}extractive \[compaction 1\]: \d+ messages replaced, 1 added/,
    );
    const current = JSON.parse(cwb('messages', uuid, '--current', '--json').stdout) as {
      messages: { role: string; content: string }[];
    };
    expect(current.messages[0]!.role).toBe('system');
    expect(current.messages[1]!.content).toMatch(
      /^Summary of earlier work \(extractive digest, no LLM\):/,
    );
    expect(current.messages[1]!.content).toContain('src/date.ts');
    expect(current.messages[1]!.content).toContain('npm test');

    const listed = cwb('compactions', uuid);
    expect(listed.stdout).toMatch(/^ID\s+STRATEGY/);
    expect(listed.stdout).toMatch(/\n1\s+extractive\s+.*in effect/);

    const undo = cwb('undo', uuid, '1');
    expect(undo.stdout).toMatch(/^Undid compaction 1: context/);
    expect(
      (JSON.parse(cwb('messages', uuid, '--current', '--json').stdout) as { messages: unknown[] })
        .messages,
    ).toHaveLength(11);
    expect(cwb('undo', uuid, '1').status).toBe(2);

    const rewind = cwb('rewind', uuid, '--to-seq', '4');
    expect(rewind.status).toBe(0);
    expect(rewind.stdout).toMatch(
      /^Rewound to message 4 \(record 2\): 7 later messages left the context/,
    );
    expect(
      (JSON.parse(cwb('messages', uuid, '--current', '--json').stdout) as { messages: unknown[] })
        .messages,
    ).toHaveLength(4);
    expect(cwb('gc', uuid, '--dry-run').stdout.trim()).toBe('No unreferenced tool outputs.');
    // the full history is untouched
    expect(
      (JSON.parse(cwb('messages', uuid, '--json', '--limit', '100').stdout) as { total: number })
        .total,
    ).toBe(12);
  });

  it('refuses unknown strategies and bad ids with clear errors', async () => {
    const root = path.join(tempDir(), 'contexts');
    const uuid = await seedTask(root);
    const bad = runCwb(['--contexts', root, 'compact', uuid, '--strategy', 'magic']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--strategy: "magic" is not a strategy/);
    expect(runCwb(['--contexts', root, 'undo', uuid, 'x']).status).toBe(1);
    expect(runCwb(['--contexts', root, 'rewind', uuid, '--to-seq', '99']).stderr).toMatch(
      /seq 99 is not a message/,
    );
    expect(runCwb(['--contexts', root, 'compact', '../x']).status).toBe(2);
  });
});
