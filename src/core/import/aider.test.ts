import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aiderFormat } from './aider';
import { collectEvents, messageKeys } from './session-test-support';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('aider', 'aider', '.aider.chat.history.md');

describe('Aider chat history', () => {
  it('splits runs at their headers and reads usage from the Tokens line after a reply', async () => {
    const events = await collectEvents(aiderFormat, FILE);
    const sessions = events.flatMap((e) =>
      e.kind === 'session' ? [e.meta.startedAt ?? null] : [],
    );
    expect(sessions).toEqual([null, '2024-08-05T19:33:32.000Z', '2024-08-05T20:39:59.000Z']);
    const replies = events.flatMap((e) =>
      e.kind === 'message' && e.message.role === 'assistant' ? [e] : [],
    );
    expect(replies.map((r) => [r.usage?.input_tokens, r.usage?.output_tokens, r.model])).toEqual([
      [5244, 604, 'claude-3-5-sonnet-20240620'],
      [12566, 84, 'gpt-4o-mini'],
    ]);
    expect(replies[0]!.message.content).toMatch(
      /^Certainly! I'll modify the `run_install` function/,
    );
    expect(replies[0]!.message.content).toMatch(
      /simplifies the code and makes use of the existing `Spinner` class, which provides a consistent spinner behavior across the application\.$/,
    );
  });

  it('keeps every earlier key when the file grows: keys are byte offsets of an append-only file', async () => {
    const text = fs.readFileSync(FILE, 'utf8');
    const cut = text.indexOf('# aider chat started at 2024-08-05 20:39:59');
    const partial = path.join(tempDir(), '.aider.chat.history.md');
    fs.writeFileSync(partial, text.slice(0, cut));
    const before = messageKeys(await collectEvents(aiderFormat, partial));
    const after = messageKeys(await collectEvents(aiderFormat, FILE));
    expect(before.length).toBeGreaterThan(0);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBe(before.length + 3);
  });
});
