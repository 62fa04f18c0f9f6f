import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { runCompaction } from '../compaction/compaction-engine';
import type { Strategy, Summarizer } from '../compaction/strategy';
import { TRUNCATE_DEFAULTS, truncate } from '../compaction/truncate';
import { ContextStore } from '../store/context-store';
import type { NewMessage } from '../store/message-store';
import { MAX_INLINE_BYTES } from './output-limits';
import { RECALL_TOOL_NAME } from './history-recall-tool';
import { useToolFixture } from './test-support/tool-context';

const tempDir = useTempDir('cwb-recall-');

/** Truncation needs no model; a summarizer is still part of the engine's contract. */
const noSummarizer: Summarizer = {
  kind: 'extractive',
  summarize: () => Promise.reject(new Error('truncation does not summarize')),
};

function call(id: string, name: string, args: object): NewMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}

function result(id: string, name: string, content: string): NewMessage {
  return { role: 'tool', content, tool_call_id: id, tool_name: name };
}

describe('history_recall', () => {
  const fixture = useToolFixture();

  /** Appends messages to the fixture's history; returns their seqs. */
  function history(...messages: NewMessage[]): number[] {
    return messages.map((m) => fixture().ctx.messages.append(m).seq);
  }

  async function recall(args: object): Promise<{ content: string; error?: string }> {
    return fixture().call(RECALL_TOOL_NAME, args);
  }

  it('keeps its exported name', () => {
    expect(RECALL_TOOL_NAME).toBe('history_recall');
  });

  it('finds a message that a compaction took out of current.jsonl, and marks the marker as not original', async () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    try {
      const task = store.createTask({ title: 'recall' });
      task.addMessage({ role: 'system', content: 'You are an agent.' });
      task.addMessage({ role: 'user', content: 'Fix the parser.' });
      for (let i = 1; i <= 6; i++) {
        task.addMessage(call(`c${i}`, 'run_command', { command: `make step${i}` }));
        task.addMessage(
          result(`c${i}`, 'run_command', `step ${i} output\nsecret number ${1000 + i}`),
        );
      }
      task.addMessage({ role: 'assistant', content: 'Done.' });
      const run = await runCompaction(task, {
        steps: [{ strategy: truncate as Strategy<never>, params: TRUNCATE_DEFAULTS }],
        reason: 'manual',
        dryRun: false,
        summarizer: noSummarizer,
        contextWindow: 100_000,
        maxOutputTokens: 1000,
      });
      expect(run.steps[0]).toMatchObject({ applied: true });
      const current = fs.readFileSync(task.messages.currentPath, 'utf8');
      expect(current).not.toContain('secret number 1001');
      expect(current).toContain('earlier messages hidden');

      const tools = { messages: task.messages };
      const found = await fixture().call(
        RECALL_TOOL_NAME,
        { pattern: 'secret number 1001' },
        tools,
      );
      expect(found.content).toBe(
        [
          '#4 tool (run_command) line 2: secret number 1001',
          '[1 matching line in 1 message (messages #1-#16), newest first]',
        ].join('\n'),
      );
      const marker = await fixture().call(RECALL_TOOL_NAME, { pattern: 'hidden' }, tools);
      expect(marker.content.split('\n')[0]).toMatch(
        /^#16 user \[truncation marker written by compaction 1, not an original message\] line 1: \[\d+ earlier messages hidden/,
      );
    } finally {
      store.close();
    }
  });

  it('searches tool-call arguments, newest message first, lines of one message in order', async () => {
    history(
      { role: 'user', content: 'Please run the tests.' },
      call('a', 'run_command', { command: 'npm test -- --grep parser' }),
      result('a', 'run_command', 'FAIL parser.test.ts\nok lexer\nFAIL parser.spec.ts'),
      call('b', 'run_command', { command: 'npm run build' }),
    );
    const found = await recall({ pattern: 'npm (test|run)|^FAIL' });
    expect(found.content).toBe(
      [
        '#4 assistant call: run_command({"command":"npm run build"})',
        '#3 tool (run_command) line 1: FAIL parser.test.ts',
        '#3 tool (run_command) line 3: FAIL parser.spec.ts',
        '#2 assistant call: run_command({"command":"npm test -- --grep parser"})',
        '[4 matching lines in 3 messages (messages #1-#4), newest first]',
      ].join('\n'),
    );
  });

  it('is case-insensitive unless asked, and filters by role and seq range', async () => {
    history(
      { role: 'user', content: 'Parser broke' },
      { role: 'assistant', content: 'the parser is fixed' },
      { role: 'user', content: 'PARSER again' },
    );
    expect((await recall({ pattern: 'parser', case_sensitive: true })).content).toBe(
      '#2 assistant line 1: the parser is fixed\n[1 matching line in 1 message (messages #1-#3), newest first]',
    );
    expect((await recall({ pattern: 'parser', role: 'user' })).content).toBe(
      [
        '#3 user line 1: PARSER again',
        '#1 user line 1: Parser broke',
        '[2 matching lines in 2 messages (messages #1-#3, user messages only), newest first]',
      ].join('\n'),
    );
    expect((await recall({ pattern: 'parser', from_seq: 2, to_seq: 2 })).content).toBe(
      '#2 assistant line 1: the parser is fixed\n[1 matching line in 1 message (messages #2-#2), newest first]',
    );
    expect((await recall({ pattern: 'lexer' })).content).toBe(
      'no matches for "lexer" in messages #1-#3',
    );
  });

  it('leaves its own earlier calls and results out of a search', async () => {
    history(
      { role: 'user', content: 'where is the needle' },
      call('r', RECALL_TOOL_NAME, { pattern: 'needle' }),
      result('r', RECALL_TOOL_NAME, '#1 user line 1: where is the needle'),
    );
    expect((await recall({ pattern: 'needle' })).content).toBe(
      '#1 user line 1: where is the needle\n[1 matching line in 1 message (messages #1-#3), newest first]',
    );
  });

  it('caps matches at max_matches and says how to reach the older ones', async () => {
    history(
      ...Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `row ${i + 1}` })),
    );
    const lines = (await recall({ pattern: 'row', max_matches: 5 })).content.split('\n');
    expect(lines).toEqual([
      '#30 user line 1: row 30',
      '#29 user line 1: row 29',
      '#28 user line 1: row 28',
      '#27 user line 1: row 27',
      '#26 user line 1: row 26',
      '[30 matching lines in 30 messages (messages #1-#30); 5 shown, newest first; 25 older not shown: narrow the pattern or search again with to_seq=25]',
    ]);
    const older = (await recall({ pattern: 'row', max_matches: 5, to_seq: 25 })).content;
    expect(older.split('\n')[0]).toBe('#25 user line 1: row 25');
  });

  it('points to_seq at a message whose matches were only partly shown', async () => {
    history(
      { role: 'user', content: 'hit in an old message' },
      { role: 'tool', tool_name: 'grep', content: 'hit 1\nhit 2\nhit 3\nhit 4' },
    );
    const lines = (await recall({ pattern: 'hit', max_matches: 2 })).content.split('\n');
    expect(lines).toEqual([
      '#2 tool (grep) line 3: hit 3',
      '#2 tool (grep) line 4: hit 4',
      '[5 matching lines in 2 messages (messages #1-#2); 2 shown, newest first; 3 older not shown: message #2 has more matching lines (read it with from_seq=2, to_seq=2, or narrow the pattern); for older messages search again with to_seq=1]',
    ]);
  });

  it('keeps a search under the output limit however wide the matching lines are', async () => {
    const wide = Array.from(
      { length: 400 },
      (_, i) => `${'界'.repeat(150)} mark ${i} ${'界'.repeat(400)}`,
    );
    history({ role: 'tool', tool_name: 'read_file', content: wide.join('\n') });
    const found = await recall({ pattern: 'mark', max_matches: 200 });
    expect(Buffer.byteLength(found.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    const lines = found.content.split('\n');
    // The newest matches that fit, in the order of the message's lines, up to its last one.
    expect(lines[0]).toMatch(/^#1 tool \(read_file\) line (\d+): …界{99} mark \d+ 界+…$/);
    expect(lines.at(-2)).toMatch(/^#1 tool \(read_file\) line 400: …界{99} mark 399 界+…$/);
    expect(lines.at(-1)).toMatch(
      /^\[400 matching lines in 1 message \(messages #1-#1\); \d+ shown, newest first; \d+ older not shown: message #1 has more matching lines \(read it with from_seq=1, to_seq=1, or narrow the pattern\)\]$/,
    );
  });

  it('reads a seq range in order, with headers and compact tool calls', async () => {
    history(
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'List the files.' },
      call('l', 'list_dir', { path: '.' }),
      result('l', 'list_dir', 'a.ts\nb.ts'),
      { role: 'assistant', content: 'Two files.' },
    );
    expect((await recall({ from_seq: 2, to_seq: 4 })).content).toBe(
      [
        '#2 user',
        'List the files.',
        '',
        '#3 assistant',
        '→ list_dir({"path":"."})',
        '',
        '#4 tool (list_dir)',
        'a.ts',
        'b.ts',
      ].join('\n'),
    );
    expect((await recall({ from_seq: 5, to_seq: 99 })).content).toBe(
      '#5 assistant\nTwo files.\n[the history ends at #5]',
    );
  });

  it('reads as much as fits and says which seq continues', async () => {
    const line = `${'x'.repeat(1000)}\n`;
    history(
      ...Array.from({ length: 20 }, () => ({ role: 'user' as const, content: line.repeat(5) })),
    );
    const first = await recall({ from_seq: 1 });
    expect(Buffer.byteLength(first.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    const footer = first.content.split('\n').at(-1)!;
    const next = Number(/continue with from_seq=(\d+)\]$/.exec(footer)?.[1]);
    expect(footer).toBe(
      `[messages #1-#${next - 1} shown; more follow: continue with from_seq=${next}]`,
    );
    expect(next).toBeGreaterThan(5);
    const second = await recall({ from_seq: next });
    expect(second.content.startsWith(`#${next} user\n`)).toBe(true);
  });

  it('shows a 5 MB tool output shortened, within the output limit, in both modes', async () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => `log line ${i} ${'.'.repeat(40)}`).join(
      '\n',
    );
    expect(huge.length).toBeGreaterThan(5_000_000);
    history(
      call('h', 'run_command', { command: 'make all' }),
      { ...result('h', 'run_command', huge), output_ref: 'run_command_0123456789ab' },
      { role: 'assistant', content: 'Built.' },
    );
    const read = await recall({ from_seq: 2 });
    expect(Buffer.byteLength(read.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    expect(read.content.startsWith('#2 tool (run_command)\nlog line 0 ')).toBe(true);
    expect(read.content).toMatch(/\n\[… \d+ lines omitted …\]\n/);
    expect(read.content).toContain('log line 99999 ');
    expect(read.content).toMatch(
      /\[message #2 is too long to show whole: \d+ lines in its middle are left out; find lines in it with pattern and from_seq=2, to_seq=2; the whole output is also saved: tool_output_cache with ref_id=run_command_0123456789ab\]\n\[messages #2-#2 shown; more follow: continue with from_seq=3\]$/,
    );
    // Coming after another message, it waits for the next call rather than being cut.
    expect((await recall({ from_seq: 1 })).content).toMatch(
      /^#1 assistant\n→ run_command\(\{"command":"make all"\}\)\n\[messages #1-#1 shown; more follow: continue with from_seq=2\]$/,
    );

    const search = await recall({ pattern: 'log line 7777\\b' });
    expect(search.content).toBe(
      `#2 tool (run_command) line 7778: log line 7777 ${'.'.repeat(40)}\n[1 matching line in 1 message (messages #1-#3), newest first]`,
    );
    const all = await recall({ pattern: 'log line', max_matches: 200 });
    expect(Buffer.byteLength(all.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    expect(all.content.split('\n').at(-1)).toContain('100000 matching lines in 1 message');
  });

  it('survives binary-ish content and lines that are not UTF-8 or not JSON', async () => {
    const { ctx } = fixture();
    history({
      role: 'tool',
      tool_name: 'read_file',
      content: 'PNG\u0000\u0001\u0002\uFFFD\uD800 needle \uDFFF\u001b[31m',
    });
    // Raw bytes appended behind the store's back: invalid UTF-8 inside JSON, then not JSON.
    const bad = Buffer.concat([
      Buffer.from('{"seq":2,"role":"user","content":"needle '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}\n'),
      Buffer.from([0x00, 0x9f, 0x92, 0x0a]),
    ]);
    fs.appendFileSync(ctx.messages.messagesPath, bad);
    const found = await recall({ pattern: 'needle' });
    expect(found.content.split('\n')).toEqual([
      '#2 user line 1: needle \uFFFD\uFFFD\uFFFD',
      // Lone surrogates come out as replacement characters; control characters stay.
      '#1 tool (read_file) line 1: PNG\u0000\u0001\u0002\uFFFD\uFFFD needle \uFFFD\u001b[31m',
      '[2 matching lines in 2 messages (messages #1-#3), newest first]',
      '[1 line of the history could not be read and was skipped: #3]',
    ]);
    const read = await recall({ from_seq: 1 });
    expect(read.content).toContain('#3 [this line of the history cannot be read: malformed JSON');
  });

  it('never reads messages.jsonl whole', async () => {
    history(...Array.from({ length: 50 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
    const whole = [vi.spyOn(fs, 'readFileSync'), vi.spyOn(fs.promises, 'readFile')];
    try {
      expect((await recall({ pattern: 'm4\\d' })).content).toContain('10 matching lines');
      expect((await recall({ from_seq: 1 })).content).toContain('#50 user');
      for (const spy of whole) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of whole) spy.mockRestore();
    }
  });

  it('reads what is there while the task appends: a half-written line waits for the next call', async () => {
    const { ctx } = fixture();
    history({ role: 'user', content: 'first' });
    fs.appendFileSync(ctx.messages.messagesPath, '{"seq":2,"role":"assistant","content":"hal');
    expect((await recall({ from_seq: 1 })).content).toBe('#1 user\nfirst');
    expect((await recall({ pattern: 'hal' })).content).toBe(
      'no matches for "hal" in messages #1-#1',
    );
    expect((await recall({ from_seq: 2 })).error).toBe(
      'from_seq 2 is past the end of the history: it holds messages #1-#1',
    );
  });

  it('sees messages the writer appended after an earlier call', async () => {
    history({ role: 'user', content: 'one' });
    expect((await recall({ pattern: 'two' })).content).toBe(
      'no matches for "two" in messages #1-#1',
    );
    history({ role: 'assistant', content: 'two' });
    expect((await recall({ pattern: 'two' })).content).toBe(
      '#2 assistant line 1: two\n[1 matching line in 1 message (messages #1-#2), newest first]',
    );
  });

  it('tags summaries a compaction wrote, inherited messages and names', async () => {
    history(
      { role: 'user', content: 'from before', kind: 'inheritance' },
      {
        role: 'assistant',
        content: 'summary text',
        kind: 'summary',
        compaction_id: 3,
        historyOnly: true,
      },
      { role: 'assistant', content: 'thinking', name: 'reasoning', historyOnly: true },
    );
    expect((await recall({ from_seq: 1 })).content).toBe(
      [
        '#1 user [carried over from an earlier task]',
        'from before',
        '',
        '#2 assistant [summary written by compaction 3, not an original message]',
        'summary text',
        '',
        '#3 assistant [name: reasoning]',
        'thinking',
      ].join('\n'),
    );
  });

  it('refuses bad arguments with a sentence saying what to do', async () => {
    history({ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' });
    expect((await recall({})).error).toBe(
      'give "pattern" to search the history or "from_seq" (and "to_seq") to read messages',
    );
    expect((await recall({ to_seq: 2 })).error).toBe(
      'reading needs "from_seq" as well as "to_seq" (or give "pattern" to search)',
    );
    expect((await recall({ from_seq: 1, role: 'user', max_matches: 3 })).error).toBe(
      '"role", "max_matches" only apply to a search: give "pattern" too to search, or leave them out to read messages from_seq..to_seq',
    );
    expect((await recall({ pattern: '(unclosed' })).error).toMatch(
      /^invalid regular expression "\(unclosed": Invalid regular expression: .*Unterminated group$/,
    );
    expect((await recall({ from_seq: 2, to_seq: 1 })).error).toBe(
      'from_seq 2 is after to_seq 1: give from_seq <= to_seq',
    );
    expect((await recall({ pattern: 'h', from_seq: 3 })).error).toBe(
      'from_seq 3 is past the end of the history: it holds messages #1-#2',
    );
    expect((await recall({ from_seq: 0 })).error).toBe(
      'invalid arguments for history_recall: "from_seq" must be at least 1',
    );
    expect((await recall({ pattern: 'h', max_matches: 500 })).error).toBe(
      'invalid arguments for history_recall: "max_matches" must be at most 200',
    );
    expect((await recall({ pattern: 'h', role: 'robot' })).error).toMatch(
      /^invalid arguments for history_recall: "role": /,
    );
    expect((await recall({ pattern: '' })).error).toBe(
      'invalid arguments for history_recall: "pattern" must not be empty',
    );
  });

  it('says so when the history is empty', async () => {
    expect((await recall({ from_seq: 1 })).error).toBe(
      'seq 1 does not exist: the history has no messages yet',
    );
  });
});
