import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { clineFormat, isClineDocument } from './cline';
import { detectDocument } from './detect-format';
import { importFile } from './import-file';
import { collectEvents } from './session-test-support';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const FILE = realFixture('cline', '1762353105322', 'api_conversation_history.json');

/** An XML-tool task as older Cline and Roo Code write it: results as "[tool for 'x'] Result:" text. */
const XML_TASK = [
  {
    role: 'user',
    content: [
      { type: 'text', text: '<task>\nlist the files\n</task>' },
      {
        type: 'text',
        text: '<environment_details>\n# Current Working Directory (/home/me/proj) Files\n</environment_details>',
      },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'Listing.\n<list_files>\n<path>.</path>\n</list_files>' }],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: "[list_files for '.'] Result:" },
      { type: 'text', text: 'a.txt\nb.txt' },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: '<attempt_completion><result>Two files.</result></attempt_completion>',
      },
    ],
  },
];

describe('Cline tasks', () => {
  it('are Cline documents by name or by their blocks, never OpenAI chat', () => {
    const doc: unknown = JSON.parse(fs.readFileSync(FILE, 'utf8'));
    expect(isClineDocument(doc, 'api_conversation_history.json')).toBe(true);
    expect(isClineDocument(doc, 'renamed.json')).toBe(true);
    expect(detectDocument('/x/renamed.json', doc)).toBe('cline');
    expect(
      detectDocument(
        '/vscode/rooveterinaryinc.roo-cline/tasks/1/api_conversation_history.json',
        doc,
      ),
    ).toBe('roo-code');
  });

  it('answer native tool_use calls with the tool_result blocks of the next user turn', async () => {
    const events = await collectEvents(clineFormat, FILE);
    expect(events[0]).toMatchObject({
      kind: 'session',
      key: '1762353105322',
      meta: {
        agent: 'cline',
        sessionId: '1762353105322',
        firstRequest:
          'The "strips accents" test in src/slugify.test.ts fails. Fix slugify without breaking other tests.',
        cwd: '/home/dana/code/slugkit',
        gitRemote: 'https://github.com/example-user/slugkit.git',
        model: 'claude-sonnet-4-5-20250929',
        // ui_messages.json starts with the task (before the first history entry) and ends
        // with the completion ask (after the last one).
        startedAt: '2025-11-05T14:31:45.322Z',
        endedAt: '2025-11-06T08:01:11.258Z',
      },
    });
    const messages = events.flatMap((e) => (e.kind === 'message' ? [e] : []));
    const first = messages.find((e) => e.key === 'm1')!;
    const result = messages.find((e) => e.key === 'm2/tool:0')!;
    expect(first.message.tool_calls?.[0]?.function.name).toBe('execute_command');
    expect(result.message).toMatchObject({
      role: 'tool',
      tool_call_id: first.message.tool_calls![0]!.id,
      tool_name: 'execute_command',
    });
    expect(result.message.content).toMatch(
      /^\[execute_command for 'npm test'\] Result:\nCommand failed with exit code 1\./,
    );
    expect(first.usage).toEqual({
      input_tokens: 9412,
      output_tokens: 118,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
    });
    // metrics.tokens.prompt includes the cached part (10841 of which 9409 cached).
    expect(messages.find((e) => e.key === 'm3')?.usage).toEqual({
      input_tokens: 10841 - 9409,
      output_tokens: 74,
      cache_read_tokens: 9409,
      cache_creation_tokens: 0,
    });
    // The environment details beside a result stay in the context as a user message.
    expect(messages.find((e) => e.key === 'm2')?.message.content).toMatch(/^<environment_details>/);
    // The resumed turn answers nothing: the question asked before the break has no result.
    expect(messages.some((e) => e.key.startsWith('m8/tool'))).toBe(false);
    expect(messages.find((e) => e.key === 'm8')?.message.content).toMatch(/^\[TASK RESUMPTION\]/);
  });

  it('give XML-tool replies one call per result header, and read ui_messages.json beside the history', async () => {
    const dir = path.join(tempDir(), 'tasks', '1700000000000');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'api_conversation_history.json');
    fs.writeFileSync(file, JSON.stringify(XML_TASK));
    fs.writeFileSync(
      path.join(dir, 'ui_messages.json'),
      JSON.stringify([
        { ts: 1700000000000, type: 'say', say: 'task', text: 'list the files' },
        {
          ts: 1700000001000,
          type: 'say',
          say: 'api_req_started',
          text: JSON.stringify({ tokensIn: 100, tokensOut: 20, cacheWrites: 5, cacheReads: 0 }),
        },
        { ts: 1700000009000, type: 'say', say: 'completion_result', text: 'Two files.' },
      ]),
    );
    const store = ContextStore.open(tempDir());
    try {
      const result = await importFile(store, file);
      expect(result.format).toBe('cline');
      const row = store.requireTask(result.tasks[0]!.uuid);
      expect(row).toMatchObject({
        title: 'list the files',
        total_messages: 4, // user, assistant, tool (header + listing), assistant
        tool_call_count: 1,
        llm_call_count: 2,
        workdir: '/home/me/proj',
        repo: 'proj',
        started_at: '2023-11-14T22:13:20.000Z',
        completed_at: '2023-11-14T22:13:29.000Z',
        input_tokens: 100,
        output_tokens: 20,
        cache_creation_tokens: 5,
      });
      const tools = store.readTask(row.uuid).tools(0, 10).records;
      expect(tools).toMatchObject([{ tool: 'list_files', status: 'success' }]);
    } finally {
      store.close();
    }
  });
});
