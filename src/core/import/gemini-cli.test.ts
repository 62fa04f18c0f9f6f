import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiCliFormat, isGeminiCliDocument } from './gemini-cli';
import { isOpenAiChatDocument } from './openai-chat';
import { collectEvents, messageKeys } from './session-test-support';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('gemini-cli', 'session-2025-12-30T01-16-3f9ce747.json');

describe('Gemini CLI sessions', () => {
  it('are recognized as Gemini, though they also have a messages list', () => {
    const doc: unknown = JSON.parse(fs.readFileSync(FILE, 'utf8'));
    expect(isGeminiCliDocument(doc)).toBe(true);
    expect(isOpenAiChatDocument(doc)).toBe(true); // why detection asks Gemini first
  });

  it('yield the session, then messages keyed by the agent ids, results after their call', async () => {
    const events = await collectEvents(geminiCliFormat, FILE);
    expect(events[0]).toMatchObject({
      kind: 'session',
      key: expect.any(String),
      meta: {
        agent: 'gemini-cli',
        title: 'Update Gemini CLI via npm',
        firstRequest: 'update Gemini CLI',
      },
    });
    const keys = messageKeys(events);
    expect(new Set(keys).size).toBe(keys.length);
    const cancelled = events.find(
      (e) => e.kind === 'message' && e.message.role === 'tool' && e.message.isError === true,
    );
    expect(cancelled).toMatchObject({ message: { tool_name: 'run_shell_command' } });
    expect(cancelled?.kind === 'message' && cancelled.message.content).toContain(
      'Operation Cancelled',
    );
    // Re-reading the same file gives the same keys: what a sync relies on.
    expect(messageKeys(await collectEvents(geminiCliFormat, FILE))).toEqual(keys);
  });

  it('keeps the keys of earlier messages when the CLI rewrites the file with more', async () => {
    const doc = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { messages: unknown[] };
    const shorter = path.join(tempDir(), 'session-short.json');
    fs.writeFileSync(shorter, JSON.stringify({ ...doc, messages: doc.messages.slice(0, 6) }));
    const before = messageKeys(await collectEvents(geminiCliFormat, shorter));
    const after = messageKeys(await collectEvents(geminiCliFormat, FILE));
    expect(after.slice(0, before.length)).toEqual(before);
  });
});
