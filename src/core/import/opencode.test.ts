import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importFile } from './import-file';
import { detectFormat } from './detect-format';
import { readJsonDocument } from './json-document';
import { opencodeStorageFormat } from './opencode-storage';
import { DATABASE_FORMATS } from './database-formats';
import { collectEvents, messageKeys } from './session-test-support';
import type { SessionEvent } from './session-format';
import { opencodeEvents } from './opencode';
import { realFixture } from '../../../test/support/real-fixtures';
import { opencodeDbFrom } from '../../../test/support/opencode-db';
import { useTempDir } from '../../../test/support/temp-dir';
import { allRecords } from '../compaction/compaction-record';

const tempDir = useTempDir();
const STORAGE = realFixture('opencode', 'storage');
const PROJECT = '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750';
const MAIN = path.join(STORAGE, 'session', PROJECT, 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN.json');

const SESSION = 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN';

/**
 * The fixture's storage with a compaction after its last reply, as opencode writes one
 * (session/compaction.ts): the request (a user message with a `compaction` part), the
 * summary (an assistant message of the compaction agent marked `summary`), opencode's
 * "continue" prompt and the next reply.
 */
function storageWithCompaction(): string {
  const root = path.join(tempDir(), 'storage');
  fs.cpSync(STORAGE, root, { recursive: true });
  const write = (file: string, value: object): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
  };
  const message = (id: string, info: object, parts: object[]): void => {
    write(path.join(root, 'message', SESSION, `${id}.json`), { id, sessionID: SESSION, ...info });
    parts.forEach((part, i) =>
      write(path.join(root, 'part', id, `prt_${id.slice(4)}${i}.json`), {
        id: `prt_${id.slice(4)}${i}`,
        sessionID: SESSION,
        messageID: id,
        ...part,
      }),
    );
  };
  const assistant = { role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic' };
  message('msg_ac3b11a08008AaBbCcDdEeFf08', { role: 'user', time: { created: 1763118100000 } }, [
    { type: 'compaction', auto: true },
  ]);
  message(
    'msg_ac3b11b09009AaBbCcDdEeFf09',
    {
      ...assistant,
      parentID: 'msg_ac3b11a08008AaBbCcDdEeFf08',
      mode: 'compaction',
      agent: 'compaction',
      summary: true,
      time: { created: 1763118101000, completed: 1763118110000 },
      tokens: { input: 30120, output: 640, reasoning: 0, cache: { read: 0, write: 0 } },
      finish: 'stop',
    },
    [
      { type: 'step-start' },
      {
        type: 'text',
        text: 'Fixed the leap-year check in parseDate (src/date.ts); npm test passes. Next: the other date helpers.',
      },
      {
        type: 'step-finish',
        tokens: { input: 30120, output: 640, reasoning: 0, cache: { read: 0, write: 0 } },
      },
    ],
  );
  message('msg_ac3b11c0a010AaBbCcDdEeFf10', { role: 'user', time: { created: 1763118111000 } }, [
    { type: 'text', text: 'Continue if you have next steps', synthetic: true },
  ]);
  message(
    'msg_ac3b11d0b011AaBbCcDdEeFf11',
    { ...assistant, time: { created: 1763118112000, completed: 1763118115000 }, finish: 'stop' },
    [
      { type: 'step-start' },
      { type: 'text', text: 'Nothing else is left to do.' },
      {
        type: 'step-finish',
        tokens: { input: 900, output: 12, reasoning: 0, cache: { read: 0, write: 0 } },
      },
    ],
  );
  return path.join(root, 'session', PROJECT, `${SESSION}.json`);
}

const messages = (events: SessionEvent[]) =>
  events.flatMap((e) => (e.kind === 'message' ? [e] : []));

describe('opencode sessions', () => {
  it('map each step of a reply to one LLM call with its usage, results after their calls', async () => {
    const events = await collectEvents(opencodeStorageFormat, MAIN);
    expect(events[0]).toMatchObject({
      kind: 'session',
      meta: {
        agent: 'opencode',
        sessionId: 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN',
        title: 'Fix leap-year bug in parseDate',
        cwd: '/home/dev/projects/dateparse',
        model: 'claude-sonnet-4-5',
      },
    });
    const ms = messages(events);
    const calls = ms.filter((m) => m.llmCall);
    // msg 2: three steps, msg 4: two, msg 7: one still running
    expect(calls).toHaveLength(6);
    expect(calls[0]!.usage).toEqual({
      input_tokens: 9120,
      output_tokens: 274,
      cache_read_tokens: 0,
      cache_creation_tokens: 9120,
      total_tokens: 18514,
    });
    const toolCalls = ms.flatMap((m) => m.message.tool_calls ?? []);
    const results = ms.filter((m) => m.message.role === 'tool');
    expect(toolCalls.map((c) => c.function.name)).toEqual([
      'read',
      'grep',
      'bash',
      'edit',
      'bash',
      'task',
      'edit',
    ]);
    // every call but the running one has its result, the failed one marked so
    expect(results.map((r) => r.message.tool_call_id)).toEqual(
      toolCalls.slice(0, 6).map((c) => c.id),
    );
    expect(results.find((r) => r.message.isError)?.message.content).toContain('exit code 1');
    expect(ms.find((m) => m.message.name === 'reasoning')?.message.historyOnly).toBe(true);
    // the user message keeps its file attachment and the synthetic read
    expect(ms[0]!.message.content).toContain('[file: src/date.ts (text/plain)]');
    // the failed model call and the patch are accounted for
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'skip', reason: expect.stringContaining('Overloaded') }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'ignore', what: 'opencode patch part' }),
    );
    const keys = messageKeys(events);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('read the same from opencode.db as from the JSON storage, and import every session in it', async () => {
    const db = opencodeDbFrom(STORAGE, path.join(tempDir(), 'opencode.db'));
    expect(await detectFormat(db, readJsonDocument)).toBe('opencode');
    const fromDb = await collectEvents(DATABASE_FORMATS.opencode, db);
    const json = await collectEvents(opencodeStorageFormat, MAIN);
    const sessionOf = (events: SessionEvent[], id: string) => {
      const start = events.findIndex((e) => e.kind === 'session' && e.key === id);
      const end = events.findIndex((e, i) => i > start && e.kind === 'session');
      return events.slice(start, end < 0 ? undefined : end);
    };
    expect(sessionOf(fromDb, 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN')).toEqual(json);

    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, db);
      expect(result.format).toBe('opencode');
      expect(result.tasks.map((t) => t.title).sort()).toEqual([
        'Fix leap-year bug in parseDate',
        'Subagent: Find other date helpers',
      ]);
      const main = store.requireTask(result.tasks.find((t) => t.title?.startsWith('Fix'))!.uuid);
      // The `task` tool's child session is a sub-agent task under it.
      const child = store.requireTask(
        result.tasks.find((t) => t.title?.startsWith('Subagent'))!.uuid,
      );
      expect(child).toMatchObject({
        parent_uuid: main.uuid,
        task_type: 'subagent',
        task_id: 'ses_53c4e8b21ffeT7wRj3kD9aHqZe',
      });
      expect(main).toMatchObject({
        agent: 'opencode',
        task_source: 'opencode',
        task_id: 'ses_53c4f1a0dffeYmQ2pL8sV1xKcN',
        workdir: '/home/dev/projects/dateparse',
        model: 'claude-sonnet-4-5',
        llm_call_count: 6,
        tool_call_count: 7,
      });
      expect(result.skipped.map((s) => s.error)).toEqual([
        expect.stringContaining('the model call failed (APIError: Overloaded)'),
      ]);
    } finally {
      store.close();
    }
  });

  it("a compaction is the agent's own record: its summary the new context, its call on the record", async () => {
    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, storageWithCompaction());
      const row = store.requireTask(result.tasks.find((t) => t.title?.startsWith('Fix'))!.uuid);
      const [record, ...more] = allRecords(store.taskPath(row));
      expect(more).toEqual([]);
      const task = store.readTask(row.uuid);
      const all = task.messages(1, 1000).messages;
      const summary = all.find((m) => m.kind === 'summary')!;
      expect(summary).toMatchObject({
        role: 'assistant',
        content: expect.stringContaining('parseDate'),
      });
      expect(record).toMatchObject({
        strategy: 'opencode-compact',
        start_seq: 1,
        end_seq: summary.seq - 1,
        // The session's own time (the summary's), not the import's.
        timestamp: '2025-11-14T11:01:41.000Z',
        agent_compaction: true,
        trigger: 'auto',
        // The last reply before it was given 11,600 + 21,540 + 1,200 tokens.
        agent_tokens_before: 34340,
        model: 'claude-sonnet-4-5',
        llm_usage: { input_tokens: 30120, output_tokens: 640 },
        plan: [{ seq: summary.seq }],
        created_seqs: [summary.seq],
      });
      // What came before the summary left the context; the next turn follows it.
      expect(all.filter((m) => m.seq < summary.seq).every((m) => m.history_only)).toBe(true);
      expect(all.at(-1)).toMatchObject({
        role: 'assistant',
        content: 'Nothing else is left to do.',
      });
      expect(all.filter((m) => m.seq > summary.seq).some((m) => m.history_only)).toBe(false);
    } finally {
      store.close();
    }
  });

  it('a kilo.db is Kilo CLI’s', async () => {
    const db = opencodeDbFrom(STORAGE, path.join(tempDir(), 'kilo.db'));
    expect(await detectFormat(db, readJsonDocument)).toBe('kilo');
    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, db);
      expect(result.tasks).toHaveLength(2);
      expect(store.requireTask(result.tasks[0]!.uuid).agent).toBe('kilo');
    } finally {
      store.close();
    }
  });

  it('a call interrupted while it ran keeps the output the model was given', () => {
    const step = (id: string, type: string, more: object = {}) => ({ id, type, ...more });
    const events = [
      ...opencodeEvents('opencode', { id: 'ses_x' }, [
        {
          id: 'msg_1',
          info: { role: 'assistant', time: { created: 1, completed: 2 }, modelID: 'm' },
          parts: [
            step('prt_1', 'step-start'),
            step('prt_2', 'tool', {
              callID: 'call_1',
              tool: 'bash',
              state: {
                status: 'error',
                input: { command: 'npm test' },
                error: 'Tool execution aborted',
                metadata: { interrupted: true, output: 'PASS date.test.ts\n' },
                time: { start: 1, end: 2 },
              },
            }),
            step('prt_3', 'step-finish', { tokens: { input: 5, output: 2 } }),
          ],
        },
      ]),
    ];
    const result = messages(events).find((m) => m.message.role === 'tool')!;
    expect(result.message).toMatchObject({
      content: 'PASS date.test.ts\n',
      tool_call_id: 'call_1',
      isError: true,
    });
  });
});
