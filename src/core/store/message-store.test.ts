import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SummaryStore } from './summary-store';
import { MessageStore, toCurrent } from './message-store';
import { TASK_FILES } from './contexts-layout';
import { useTempDir } from '../../../test/support/temp-dir';
import { o200kLoaded } from '../tokens/o200k-state';
import { OffsetIndex, PENDING_ENTRIES, SIDECAR_MIN_BYTES } from '../jsonl/offset-index';

const tempDir = useTempDir();

/** The offsets an index of the task's messages.jsonl reads, with its sidecar or without. */
function indexedOffsets(dir: string): number[] {
  const index = OffsetIndex.open(
    path.join(dir, TASK_FILES.messages),
    path.join(dir, TASK_FILES.messagesIndex),
    { readonly: true },
  );
  try {
    return Array.from({ length: index.count }, (_, i) => index.offsetOf(i + 1));
  } finally {
    index.close();
  }
}

function lines(file: string): unknown[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
}

describe('MessageStore', () => {
  it('appends the full record to messages.jsonl and the OpenAI-compatible projection to current.jsonl', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    store.append({ role: 'system', content: 'You are an AI' });
    store.append({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"a"}' },
        },
      ],
    });
    store.append({
      role: 'tool',
      content: '{"ok":true}',
      tool_name: 'read_file',
      tool_call_id: 'call_1',
    });
    store.close();

    const history = lines(path.join(dir, TASK_FILES.messages));
    expect(history).toHaveLength(3);
    expect(history[0]).toMatchObject({
      seq: 1,
      role: 'system',
      content: 'You are an AI',
      tokens: 3,
      token_counter: 'estimate',
    });
    expect(history[2]).toMatchObject({
      seq: 3,
      role: 'tool',
      tool_name: 'read_file',
      tool_call_id: 'call_1',
    });
    expect(typeof (history[0] as { timestamp: string }).timestamp).toBe('string');

    expect(lines(path.join(dir, TASK_FILES.current))).toEqual([
      { role: 'system', content: 'You are an AI' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"a"}' },
          },
        ],
      },
      { role: 'tool', content: '{"ok":true}', tool_name: 'read_file', tool_call_id: 'call_1' },
    ]);
  });

  it('writes each line as JSON.stringify of its record, and never loads the o200k tables', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    const records = [
      store.append({ role: 'user', content: 'naïve "quoted"\n日本語 \u2028 end' }),
      store.append({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        usage: {
          input_tokens: 1,
          output_tokens: 2,
          cache_creation_tokens: 0,
          cache_read_tokens: 0,
          total_tokens: 3,
        },
      }),
      store.append({ role: 'tool', content: 'x', tool_call_id: 'c', name: 'f', output_ref: 'r' }),
      // Every field the two lines share: current.jsonl's line copies their bytes.
      store.append({
        role: 'assistant',
        content: 'déjà 🙂',
        tool_name: 't',
        tool_calls: [
          { id: 'd', type: 'function', function: { name: 'g', arguments: '{"q":"ü"}' } },
        ],
        tool_call_id: 'c',
        name: 'n',
      }),
      // Past the line buffer (256 KiB): the lines are written as parts.
      store.append({ role: 'tool', content: '語'.repeat(100_000), tool_call_id: 'd' }),
      store.append({
        role: 'assistant',
        content: 's',
        kind: 'summary',
        compaction_id: 2,
        historyOnly: true,
      }),
    ];
    store.close();
    const raw = fs.readFileSync(path.join(dir, TASK_FILES.messages), 'utf8').split('\n');
    expect(raw.slice(0, -1)).toEqual(records.map((r) => JSON.stringify(r)));
    expect(records[1]).toMatchObject({
      tokens: Math.floor(JSON.stringify(records[1]!.tool_calls).length / 4),
      token_counter: 'estimate',
    });
    const current = fs.readFileSync(path.join(dir, TASK_FILES.current), 'utf8').split('\n');
    expect(current.slice(0, -1)).toEqual(
      records.slice(0, 5).map((r) => JSON.stringify(toCurrent(r))),
    );
    expect(o200kLoaded()).toBe(false);
  });

  it('uses the Japanese-aware estimate (chars/2 when at least half the characters are Japanese)', () => {
    const store = MessageStore.open(tempDir());
    expect(store.append({ role: 'user', content: 'a'.repeat(40) }).tokens).toBe(10);
    expect(store.append({ role: 'user', content: 'あ'.repeat(40) }).tokens).toBe(20);
    store.close();
  });

  it('continues seq after a restart and keeps history-only messages out of current.jsonl', () => {
    const dir = tempDir();
    const first = MessageStore.open(dir);
    for (let i = 0; i < 5; i++) first.append({ role: 'user', content: `m${i}` });
    first.close();
    const second = MessageStore.open(dir);
    expect(second.count).toBe(5);
    expect(
      second.append({ role: 'assistant', content: 'summary', kind: 'summary', historyOnly: true })
        .seq,
    ).toBe(6);
    expect(second.currentCount()).toBe(5);
    expect(second.readWindow(6, 1).messages[0]).toMatchObject({ seq: 6, kind: 'summary' });
    second.close();
  });

  it('counts the lines of current.jsonl across appends and a replaced file, like a reader would', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    expect(store.currentCount()).toBe(0);
    for (let i = 0; i < 3; i++) store.append({ role: 'user', content: `m${i}\nline` });
    expect(store.currentCount()).toBe(3);
    store.append({ role: 'assistant', content: 'x', historyOnly: true });
    store.append({ role: 'assistant', content: 'y' });
    expect(store.currentCount()).toBe(4);
    // A compaction replaces the file; a line still being written is not counted yet.
    fs.writeFileSync(store.currentPath, '{"role":"user","content":"a"}\n{"role":"user","con');
    store.currentReplaced();
    expect(store.currentCount()).toBe(1);
    const reader = MessageStore.open(dir, { readonly: true });
    expect(reader.currentCount()).toBe(1);
    reader.close();
    expect(store.readCurrent(1, 10).total).toBe(1);
    store.close();
  });

  it('reads windows by seq, tails and current lines; a malformed line is reported with its line number', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    for (let i = 1; i <= 100; i++)
      store.append({ role: i % 2 ? 'user' : 'assistant', content: `message ${i}` });
    expect(store.readWindow(40, 3).messages.map((m) => m.seq)).toEqual([40, 41, 42]);
    expect(store.readWindow(99, 10).messages.map((m) => m.seq)).toEqual([99, 100]);
    expect(store.readWindow(101, 10).messages).toEqual([]);
    expect(store.readTail(2).messages.map((m) => m.content)).toEqual(['message 99', 'message 100']);
    expect(store.readCurrent(10, 2).messages).toEqual([
      { role: 'assistant', content: 'message 10', index: 10 },
      { role: 'user', content: 'message 11', index: 11 },
    ]);
    store.close();

    // Damage line 50 in place (same length) and read across it.
    const file = path.join(dir, TASK_FILES.messages);
    const text = fs.readFileSync(file, 'utf8').split('\n');
    text[49] = '{' + 'x'.repeat(text[49]!.length - 1);
    fs.writeFileSync(file, text.join('\n'));
    const reopened = MessageStore.open(dir, { readonly: true });
    const window = reopened.readWindow(49, 3);
    expect(window.messages.map((m) => m.seq)).toEqual([49, 51]);
    expect(window.bad).toEqual([
      { file: 'messages.jsonl', lineNo: 50, error: expect.stringMatching(/malformed JSON/) },
    ]);
    reopened.close();
  });

  it('keeps a running token count of current.jsonl that matches a fresh count', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    store.append({ role: 'user', content: 'x'.repeat(4000) });
    expect(store.currentTokenCount()).toBe(1000);
    store.append({ role: 'assistant', content: 'y'.repeat(400) });
    expect(store.currentTokenCount()).toBe(1100);
    store.close();
    const again = MessageStore.open(dir, { readonly: true });
    expect(again.currentTokenCount()).toBe(1100);
    again.close();
  });

  it('keeps the running count of a new context equal to reading it back, calls and Japanese text included', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    const call = (args: string) => ({
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'read_file', arguments: args },
    });
    expect(store.currentTokenCount()).toBe(0);
    // Content and calls each leave a remainder of 3 characters: counted apart they lose one token.
    store.append({ role: 'assistant', content: 'abc', tool_calls: [call('{"p":"abcde"}')] });
    store.append({ role: 'assistant', content: 'こんにちは。', tool_calls: [] });
    store.append({ role: 'user', content: 'x'.repeat(4003) });
    store.append({ role: 'tool', content: 'hidden', historyOnly: true });
    const running = store.currentTokenCount();
    store.close();
    const again = MessageStore.open(dir, { readonly: true });
    expect(again.currentTokenCount()).toBe(running);
    again.close();
  });

  it('refuses writes when opened read-only and never creates files', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir, { readonly: true });
    expect(() => store.append({ role: 'user', content: 'x' })).toThrow(/read-only/);
    store.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('MessageStore.append when a write fails (disk full)', () => {
  it('a message whose current.jsonl line cannot be written leaves no trace; the next append takes its seq', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    store.append({ role: 'user', content: 'one' });
    const real = fs.writeSync;
    const currentIno = fs.statSync(store.currentPath).ino;
    // Writes to current.jsonl fail; the others go through.
    (fs as unknown as { writeSync: unknown }).writeSync = (
      fd: number,
      buffer: Buffer,
      offset?: number,
      length?: number,
    ): number => {
      if (fs.fstatSync(fd).ino === currentIno)
        throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
      return real(fd, buffer, offset, length);
    };
    try {
      expect(() => store.append({ role: 'user', content: 'two' })).toThrow(/ENOSPC/);
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    expect(store.count).toBe(1);
    const three = store.append({ role: 'user', content: 'three' });
    expect(three.seq).toBe(2);
    store.close();
    expect(lines(store.messagesPath)).toMatchObject([{ seq: 1 }, { seq: 2, content: 'three' }]);
    expect(lines(store.currentPath)).toEqual([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'three' },
    ]);
    const reopened = MessageStore.open(dir);
    expect(reopened.readWindow(1, 10).messages.map((m) => m.content)).toEqual(['one', 'three']);
    reopened.close();
  });
});

describe('lines that are JSON but not messages', () => {
  it('are bad lines of the window ("not a message"); fields of the wrong type are made safe', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    store.append({ role: 'user', content: 'real' });
    store.close();
    fs.appendFileSync(
      path.join(dir, TASK_FILES.messages),
      [
        'null',
        '0',
        '{"content":5}',
        '{"seq":3,"tool_calls":"x"}',
        '{"seq":4,"role":"user","content":5,"tool_calls":"x","tokens":"many"}',
        '{"seq":5,"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f","arguments":"{}"}},7]}',
      ].join('\n') + '\n',
    );
    fs.appendFileSync(
      path.join(dir, TASK_FILES.current),
      'null\n{"role":"user","content":["a"]}\n',
    );
    const reader = MessageStore.open(dir, { readonly: true });
    const window = reader.readWindow(1, 100);
    expect(window.bad.map((b) => [b.lineNo, b.error])).toEqual([
      [2, expect.stringMatching(/^not a message/)],
      [3, expect.stringMatching(/^not a message/)],
      [4, expect.stringMatching(/^not a message/)],
      [5, expect.stringMatching(/^not a message/)],
    ]);
    expect(window.messages.map((m) => [m.seq, m.content, m.tool_calls?.length, m.tokens])).toEqual([
      [1, 'real', undefined, expect.any(Number)],
      [4, '5', undefined, 0],
      [5, null, 1, 0],
    ]);
    const current = reader.readCurrent(1, 10);
    expect(current.bad).toMatchObject([{ lineNo: 2, file: 'current.jsonl' }]);
    expect(current.messages.map((m) => m.content)).toEqual(['real', '["a"]']);
    expect(reader.currentTokenCount()).toBeGreaterThan(0);
    reader.close();
  });

  it('a reader beside the writer sees every message while index entries wait in memory', () => {
    const dir = tempDir();
    const writer = MessageStore.open(dir);
    for (let i = 1; i <= 300; i++) writer.append({ role: 'user', content: `m${i}` });
    const idx = path.join(dir, TASK_FILES.messagesIndex);
    // Fewer entries on disk than messages: the rest are in the writer's memory.
    expect(fs.statSync(idx).size / 8).toBeLessThan(300);
    const reader = MessageStore.open(dir, { readonly: true });
    expect(reader.count).toBe(300);
    expect(reader.readWindow(290, 20).messages.map((m) => m.content)).toEqual(
      Array.from({ length: 11 }, (_, k) => `m${290 + k}`),
    );
    reader.close();
    writer.flushIndex();
    expect(fs.statSync(idx).size / 8).toBe(300);
    writer.close();
  });
});

describe('MessageStore.markHistoryOnly (live source tasks)', () => {
  const messages = [
    { role: 'system' as const, content: 'You are Codex.', timestamp: '2026-11-25T12:00:00.000Z' },
    { role: 'user' as const, content: 'fix "the" parser', timestamp: '2026-11-25T12:00:01.000Z' },
    {
      role: 'assistant' as const,
      content: 'Looking.',
      usage: {
        input_tokens: 1,
        output_tokens: 2,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 3,
      },
      timestamp: '2026-11-25T12:00:02.000Z',
    },
    {
      role: 'assistant' as const,
      content: 'thinking',
      name: 'reasoning',
      historyOnly: true,
      timestamp: '2026-11-25T12:00:03.000Z',
    },
    {
      role: 'user' as const,
      content: 'Summary: fixed.',
      kind: 'summary' as const,
      timestamp: '2026-11-25T12:00:04.000Z',
    },
    { role: 'user' as const, content: 'now the docs', timestamp: '2026-11-25T12:00:05.000Z' },
  ];

  it('a new session held whole (batched) is flagged in memory, to the same bytes and index as the file route', () => {
    const plain = tempDir();
    const held = tempDir();
    const a = MessageStore.open(plain);
    const b = MessageStore.open(held, { batched: true });
    for (const m of messages) {
      a.append({ ...m, timestamp: '2026-11-28T00:00:00.000Z' });
      b.append({ ...m, timestamp: '2026-11-28T00:00:00.000Z' });
    }
    a.markHistoryOnly(4, new Set([1]));
    // No temporary file, no rename: messages.jsonl keeps the inode it was made with.
    const ino = fs.statSync(b.messagesPath).ino;
    b.markHistoryOnly(4, new Set([1]));
    expect(fs.statSync(b.messagesPath).ino).toBe(ino);
    expect(b.currentCount()).toBe(a.currentCount());
    expect(b.currentTokenCount()).toBe(a.currentTokenCount());
    for (const s of [a, b])
      s.append({
        role: 'assistant',
        content: 'Docs updated.',
        timestamp: '2026-11-28T00:00:01.000Z',
      });
    a.close();
    b.close();
    for (const name of [TASK_FILES.messages, TASK_FILES.current])
      expect(fs.readFileSync(path.join(held, name))).toEqual(
        fs.readFileSync(path.join(plain, name)),
      );
    expect(indexedOffsets(held)).toEqual(indexedOffsets(plain));
    const reader = MessageStore.open(held, { readonly: true });
    expect(reader.readWindow(1, 10).messages.map((m) => m.history_only === true)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    reader.close();
  });

  it('flags the messages up to a seq (but those kept) byte for byte as if appended history-only, once', () => {
    const live = tempDir();
    const store = MessageStore.open(live);
    for (const m of messages) store.append(m);
    store.markHistoryOnly(4, new Set([1]));
    // What an import writes for the same messages, knowing the compaction from the start.
    const imported = tempDir();
    const other = MessageStore.open(imported);
    for (const [i, m] of messages.entries())
      other.append({ ...m, ...(i >= 1 && i <= 3 && { historyOnly: true }) });
    other.close();
    const read = (dir: string, name: string): string =>
      fs.readFileSync(path.join(dir, name), 'utf8');
    expect(read(live, TASK_FILES.messages)).toBe(read(imported, TASK_FILES.messages));
    expect(read(live, TASK_FILES.current)).toBe(read(imported, TASK_FILES.current));
    expect(store.currentCount()).toBe(3);
    // The totals counted while rewriting are what reading current.jsonl back counts.
    const fresh = MessageStore.open(live, { readonly: true });
    expect(store.currentTokenCount()).toBe(fresh.currentTokenCount());
    expect(store.currentTokenCount()).toBeGreaterThan(0);
    fresh.close();
    // Again (a sync redone after a kill): nothing changes; the store goes on appending.
    const before = fs.statSync(path.join(live, TASK_FILES.messages)).ino;
    store.markHistoryOnly(4, new Set([1]));
    expect(fs.statSync(path.join(live, TASK_FILES.messages)).ino).toBe(before);
    store.append({ role: 'assistant', content: 'Docs updated.' });
    expect(store.readWindow(5, 10).messages.map((m) => [m.seq, m.content])).toEqual([
      [5, 'Summary: fixed.'],
      [6, 'now the docs'],
      [7, 'Docs updated.'],
    ]);
    expect(store.readWindow(2, 1).messages[0]).toMatchObject({ seq: 2, history_only: true });
    store.close();
    // A reader opening it afterwards finds the same lines through a sound index.
    const reader = MessageStore.open(live, { readonly: true });
    expect(reader.count).toBe(7);
    expect(reader.readWindow(7, 1).messages[0]).toMatchObject({ content: 'Docs updated.' });
    reader.close();
  });

  it('keeps the token total of the rebuilt current.jsonl as reading it back counts it', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir);
    store.append({ role: 'user', content: 'テストを直して: the parser fails on "quotes"' });
    store.append({ role: 'assistant', content: 'Old plan.' });
    store.append({ role: 'user', content: 'Summary: the parser was read.', kind: 'summary' });
    store.append({
      role: 'assistant',
      content: '直します',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'edit', arguments: '{"path":"src/parse.ts","text":"引用符"}' },
        },
      ],
    });
    store.append({ role: 'tool', content: 'x'.repeat(5000), tool_call_id: 'call_1' });
    store.markHistoryOnly(2, new Set([1]));
    const kept = store.currentTokenCount();
    expect(store.currentCount()).toBe(4);
    const reader = MessageStore.open(dir, { readonly: true });
    expect(kept).toBe(reader.currentTokenCount());
    expect(reader.currentCount()).toBe(4);
    reader.close();
    store.close();
  });
});

describe('MessageStore.markHistoryOnly of a session held whole: current.jsonl from the held lines', () => {
  const at = '2026-11-28T00:00:00.000Z';
  const call = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'Bash', arguments: '{"cmd":"ls"}' },
  };
  const session = [
    { role: 'system' as const, content: 'Système: répondre brièvement — 日本語も', timestamp: at },
    { role: 'user' as const, content: 'list the files', timestamp: at },
    { role: 'assistant' as const, content: '', tool_calls: [call], timestamp: at },
    {
      role: 'tool' as const,
      content: 'a.ts\nb.ts',
      tool_call_id: 'c1',
      tool_name: 'Bash',
      timestamp: at,
    },
    {
      role: 'assistant' as const,
      content: 'hidden',
      name: 'reasoning',
      historyOnly: true,
      timestamp: at,
    },
    {
      role: 'user' as const,
      content: 'Summary of the above.',
      kind: 'summary' as const,
      timestamp: at,
    },
    { role: 'user' as const, content: 'made by a compaction', compaction_id: 7, timestamp: at },
    { role: 'user' as const, content: 'and now the docs', timestamp: at },
    { role: 'assistant' as const, content: 'Done.', timestamp: at },
  ];
  // Calls not in a tool call's shape: the view reads the line back without them.
  const odd = {
    role: 'assistant' as const,
    content: 'odd',
    tool_calls: [{ x: 1 }] as never,
    timestamp: at,
  };

  /** The agent's compaction: its plan (`plan`), ending at `through`. */
  function compacted(dir: string, plan: unknown[], through: number): void {
    const summaries = new SummaryStore(dir);
    summaries.add({
      strategy: 'agent',
      start_seq: 1,
      end_seq: 6,
      summary: 'Summary of the above.',
      original_tokens: 100,
      summary_tokens: 5,
      compressed_message_count: 6,
      extra: { agent_compaction: true, plan, through_seq: through },
    });
  }

  for (const [name, plan, last] of [
    ['a plan of messages', [{ seq: 1 }, { seq: 6 }], []],
    [
      'a plan with an inline entry (read back instead)',
      [{ seq: 1 }, { inline: { role: 'user', content: 'inline' } }],
      [],
    ],
    ['a plan naming a history-only message (read back instead)', [{ seq: 5 }, { seq: 6 }], []],
    [
      'a plan showing a message otherwise (read back instead)',
      [{ seq: 1, content: 'shorter' }, { seq: 6 }],
      [],
    ],
    ['a line that reads back otherwise (read back instead)', [{ seq: 1 }, { seq: 6 }], [odd]],
  ] as const) {
    it(`gives the bytes and totals the file route gives: ${name}`, () => {
      const plain = tempDir();
      const held = tempDir();
      const a = MessageStore.open(plain);
      const b = MessageStore.open(held, { batched: true });
      for (const m of [...session, ...last]) {
        a.append(m);
        b.append(m);
      }
      compacted(plain, [...plan], 6);
      compacted(held, [...plan], 6);
      a.markHistoryOnly(5, new Set([1]));
      b.markHistoryOnly(5, new Set([1]));
      expect(b.currentCount()).toBe(a.currentCount());
      expect(b.currentTokenCount()).toBe(a.currentTokenCount());
      a.close();
      b.close();
      const current = (dir: string): string =>
        fs.readFileSync(path.join(dir, TASK_FILES.current), 'utf8');
      expect(current(held)).toBe(current(plain));
      expect(current(held).split('\n').length).toBeGreaterThan(3);
      // What a reader counts from the file is what the store kept.
      const reader = MessageStore.open(held, { readonly: true });
      expect(reader.currentTokenCount()).toBe(b.currentTokenCount());
      reader.close();
    });
  }
});

describe('MessageStore, batched (the sources sync)', () => {
  const messages = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `message ${i + 1}: ${'テキスト '.repeat(i % 7)}`,
      ...(i % 5 === 4 && { historyOnly: true }),
    }));
  /** messages.jsonl, current.jsonl and the offsets an index reads (sidecar or not). */
  const files = (dir: string) => [
    ...[TASK_FILES.messages, TASK_FILES.current].map((name) => {
      const file = path.join(dir, name);
      return fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    }),
    indexedOffsets(dir),
  ];

  it('writes the same bytes as a store writing each line, and writes them only when closed', () => {
    const plain = tempDir();
    const batched = tempDir();
    const a = MessageStore.open(plain);
    const b = MessageStore.open(batched, { batched: true });
    for (const m of messages(40)) {
      a.append({ ...m, timestamp: '2026-11-28T00:00:00.000Z' });
      b.append({ ...m, timestamp: '2026-11-28T00:00:00.000Z' });
    }
    expect(fs.statSync(b.messagesPath).size).toBe(0);
    expect(fs.statSync(b.currentPath).size).toBe(0);
    expect(b.count).toBe(40);
    a.close();
    b.close();
    expect(files(batched)).toEqual(files(plain));
  });

  it('makes no offset index sidecar for a short session: readers index it in memory', () => {
    const plain = tempDir();
    const dir = tempDir();
    const a = MessageStore.open(plain);
    const store = MessageStore.open(dir, { batched: true });
    for (const m of messages(300)) {
      a.append(m);
      store.append(m);
    }
    store.flushIndex();
    a.close();
    store.close();
    expect(fs.existsSync(path.join(dir, TASK_FILES.messagesIndex))).toBe(false);
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('cwb-offset-index-'));
    expect(indexedOffsets(dir)).toEqual(indexedOffsets(plain));
    const reader = MessageStore.open(dir, { readonly: true });
    expect(reader.readWindow(298, 5).messages.map((m) => m.seq)).toEqual([298, 299, 300]);
    reader.close();
    // In memory: no private copy of an index was made to read it.
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('cwb-offset-index-'))).toEqual(
      before,
    );
    // The next writer of the task (not the sync's) makes it, whole.
    const writer = MessageStore.open(dir);
    writer.append({ role: 'user', content: 'one more' });
    writer.close();
    expect(fs.statSync(path.join(dir, TASK_FILES.messagesIndex)).size).toBe(301 * 8);
    expect(indexedOffsets(dir).slice(0, 300)).toEqual(indexedOffsets(plain));
  });

  it('never writes an index entry before its line: the index writes the held lines first', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir, { batched: true });
    const idx = path.join(dir, TASK_FILES.messagesIndex);
    // Long enough for a sidecar (SIDECAR_MIN_BYTES).
    store.append({ role: 'user', content: 'x'.repeat(SIDECAR_MIN_BYTES) });
    for (const m of messages(PENDING_ENTRIES)) store.append(m);
    // A batched store holds a whole session's entries, not PENDING_ENTRIES of them.
    expect(fs.existsSync(idx) ? fs.statSync(idx).size : 0).toBe(0);
    expect(fs.statSync(store.messagesPath).size).toBe(0);
    store.flushIndex();
    expect(fs.statSync(idx).size / 8).toBe(PENDING_ENTRIES + 1);
    const onDisk = fs.readFileSync(store.messagesPath, 'utf8').split('\n').length - 1;
    expect(onDisk).toBe(PENDING_ENTRIES + 1);
    store.close();
  });

  it('never writes a current.jsonl line before the line of its message, whichever batch fills first', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir, { batched: true });
    const onDisk = (file: string) => fs.readFileSync(file, 'utf8').split('\n').length - 1;
    const big = (i: number) => ({ role: 'user' as const, content: `${i}: ${'x'.repeat(100_000)}` });
    for (let i = 0; i < 30; i++) store.append(big(i));
    // The index writes the held messages (not current.jsonl's lines): current.jsonl now holds more.
    store.flushIndex();
    expect(onDisk(store.messagesPath)).toBe(30);
    expect(onDisk(store.currentPath)).toBe(0);
    // current.jsonl's batch fills before messages.jsonl's: its lines go out after theirs.
    for (let i = 30; i < 45; i++) store.append(big(i));
    expect(onDisk(store.currentPath)).toBeGreaterThan(30);
    expect(onDisk(store.messagesPath)).toBeGreaterThanOrEqual(onDisk(store.currentPath));
    store.close();
  });

  it('reads see what it holds, as a plain store', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir, { batched: true });
    for (const m of messages(12)) store.append(m);
    expect(store.readWindow(11, 5).messages.map((m) => m.seq)).toEqual([11, 12]);
    expect(store.currentCount()).toBe(10);
    expect(store.readCurrent(1, 100).messages).toHaveLength(10);
    store.close();
  });

  it('held lines that cannot be written are forgotten by the index and close throws; the files stay whole', () => {
    const dir = tempDir();
    const store = MessageStore.open(dir, { batched: true });
    store.append({ role: 'user', content: 'on disk' });
    store.readWindow(1, 1); // written
    store.append({ role: 'assistant', content: 'held, then lost' });
    const real = fs.writeSync;
    const messagesIno = fs.statSync(store.messagesPath).ino;
    (fs as unknown as { writeSync: unknown }).writeSync = (fd: number, ...rest: unknown[]) => {
      if (fs.fstatSync(fd).ino === messagesIno)
        throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
      return (real as (...args: unknown[]) => number)(fd, ...rest);
    };
    try {
      expect(() => store.close()).toThrow(/ENOSPC/);
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    const reopened = MessageStore.open(dir);
    expect(reopened.count).toBe(1);
    expect(fs.statSync(path.join(dir, TASK_FILES.messagesIndex)).size).toBe(8);
    expect(reopened.readWindow(1, 10).messages.map((m) => m.content)).toEqual(['on disk']);
    reopened.close();
  });
});
