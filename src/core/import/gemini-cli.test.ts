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

const LOG_DIR = realFixture('gemini-cli-jsonl', 'acme-parser', 'chats');
const LOG = path.join(LOG_DIR, 'session-2026-11-20T09-00-7d3a1c52.jsonl');
const PARENT_ID = '7d3a1c52-9e4b-4f1a-8c2d-5b6e7f809a1b';
const SUBAGENT = path.join(LOG_DIR, PARENT_ID, 'codebase_investigator-3f9a2b.jsonl');

describe('Gemini CLI JSON Lines chats (0.38 and later)', () => {
  it('read each message once in its last version; the project comes from .project_root', async () => {
    const events = await collectEvents(geminiCliFormat, LOG);
    expect(events[0]).toMatchObject({
      kind: 'session',
      meta: {
        sessionId: PARENT_ID,
        title: 'Fix CSV parser dropping the last row',
        cwd: '/home/dev/src/acme-parser',
        model: 'gemini-3-pro-preview',
      },
    });
    const keys = messageKeys(events);
    expect(new Set(keys).size).toBe(keys.length);
    // Every message record of the log, each rewritten several times: 2 user prompts, 8
    // replies (3 with thoughts), 6 tool calls each answered once (one failed).
    const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(2);
    expect(messages.filter((m) => m.role === 'assistant' && m.name === undefined)).toHaveLength(8);
    expect(messages.filter((m) => m.name === 'reasoning')).toHaveLength(3);
    const results = messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(6);
    expect(results.every((r) => r.content !== null && r.content !== '')).toBe(true);
    expect(results.filter((r) => r.isError)).toHaveLength(1);
    const calls = messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls.map((c) => c.id).sort()).toEqual(results.map((r) => r.tool_call_id).sort());
    // The new history the CLI appended for its compression is not the conversation.
    expect(messages.some((m) => m.content?.includes('<state_snapshot>'))).toBe(false);
    expect(messages.some((m) => m.content?.includes('Got it. Thanks'))).toBe(false);
  });

  it('a compression is a compaction: the snapshot, the acknowledgement and the kept turn are its new context', async () => {
    const events = await collectEvents(geminiCliFormat, LOG);
    const compactions = events.filter((e) => e.kind === 'compaction');
    expect(compactions).toHaveLength(1);
    const c = compactions[0]!.kind === 'compaction' ? compactions[0]!.compaction : undefined;
    expect(c).toMatchObject({
      strategy: 'gemini-compress',
      at: '2026-11-20T09:02:02.000Z',
      // The prompt tokens of the last reply before it: the CLI's own count of its context.
      agentTokensBefore: 9571,
      extra: {
        source_format: 'gemini-cli',
        kept_messages: 1,
        notice: 'Context compressed from 71% to 4%.',
        context_percent_before: 71,
        context_percent_after: 4,
      },
    });
    expect(c!.summary).toMatch(/^<state_snapshot>[\s\S]*<\/state_snapshot>$/);
    expect(c!.messages!.map((m) => [m.role, m.kind])).toEqual([
      ['user', 'summary'],
      ['assistant', undefined],
      ['assistant', undefined],
    ]);
    // What came before it left the context; what came after did not.
    const at = events.indexOf(compactions[0]!);
    const before = events.slice(0, at).filter((e) => e.kind === 'message');
    const after = events.slice(at).filter((e) => e.kind === 'message');
    expect(before.every((e) => e.kind === 'message' && e.message.historyOnly)).toBe(true);
    expect(
      after.filter((e) => e.kind === 'message' && e.message.name === undefined),
    ).not.toHaveLength(0);
    expect(
      after.every(
        (e) => e.kind === 'message' && (e.message.name === 'reasoning' || !e.message.historyOnly),
      ),
    ).toBe(true);
  });

  it('a sub-agent chat names its parent session (its folder)', async () => {
    const events = await collectEvents(geminiCliFormat, SUBAGENT);
    expect(events[0]).toMatchObject({
      kind: 'session',
      meta: {
        sessionId: 'codebase_investigator-3f9a2b',
        parentSessionId: PARENT_ID,
        cwd: '/home/dev/src/acme-parser',
        extra: { kind: 'subagent' },
      },
    });
    expect(messageKeys(events)).toHaveLength(1 + 3 + 1 + 4);
  });

  it('a line still being written is left for the next read; a broken line is reported', async () => {
    const text = fs.readFileSync(LOG, 'utf8');
    const file = path.join(tempDir(), 'session-cut.jsonl');
    fs.writeFileSync(file, `${text.slice(0, 2000)}\nnot json\n${text.slice(2000, 2100)}`);
    const events = await collectEvents(geminiCliFormat, file);
    expect(events.filter((e) => e.kind === 'skip')).toEqual([
      expect.objectContaining({ where: expect.stringMatching(/^line \d+$/) }),
      expect.objectContaining({ where: expect.stringMatching(/^line \d+$/) }),
    ]);
  });

  it('the JSON document never held the summary: its notice is a compaction that says so', async () => {
    const doc = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { messages: unknown[] };
    const notice = {
      id: 'notice-1',
      timestamp: '2025-12-30T01:20:00.000Z',
      type: 'info',
      content: 'Context compressed from 68% to 3%.',
    };
    const file = path.join(tempDir(), 'session-compressed.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...doc,
        messages: [...doc.messages.slice(0, 6), notice, ...doc.messages.slice(6)],
      }),
    );
    const events = await collectEvents(geminiCliFormat, file);
    const compaction = events.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({
      key: 'gemini:notice-1',
      compaction: {
        summary: '',
        messages: [],
        at: '2025-12-30T01:20:00.000Z',
        extra: {
          context_percent_before: 68,
          context_percent_after: 3,
          note: expect.stringContaining('holds no summary'),
        },
      },
    });
    // Still every message of the file, the notice aside.
    expect(messageKeys(events)).toEqual(messageKeys(await collectEvents(geminiCliFormat, FILE)));
  });
});
