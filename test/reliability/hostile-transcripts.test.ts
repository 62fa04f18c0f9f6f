/**
 * Hostile transcripts on import (issue 18): a single 200 MB line, binary garbage with
 * terminal escape sequences, invalid UTF-8 and a truncated file, through importPaths (what
 * `cwb import` and the API's importFiles run). The 200 MB files are written as a stream, so
 * this process never holds them; each is removed right after its test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { importPaths } from '../../src/core/import';
import { assertDbMatchesFolders } from '../support/reliability';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-hostile-transcripts-');

const MB = 1024 * 1024;

/** `head`, then `mb` MiB of "a", then `tail`, written in 1 MiB pieces. */
async function writeLongLine(file: string, head: string, mb: number, tail: string): Promise<void> {
  const out = fs.createWriteStream(file);
  const piece = Buffer.alloc(MB, 'a');
  out.write(head);
  for (let i = 0; i < mb; i++) {
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end(tail);
  await new Promise<void>((resolve, reject) =>
    out.on('finish', () => resolve()).on('error', reject),
  );
}

const claudeLine = (uuid: string, parent: string | null, role: string, content: string) =>
  `${JSON.stringify({ type: role, sessionId: 's', uuid, parentUuid: parent, message: { role, content } })}\n`;

/** Every file and folder under the contexts root but tasks.db and its journal files. */
function leftovers(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((p) => !p.startsWith('tasks.db'))
    .filter((p) => !['running', 'paused', 'completed', 'failed', 'interrupted'].includes(p))
    .sort();
}

// Printed by `cwb import` to a terminal: no ESC, BEL, NUL, CR or other control character
// may come through from the file.
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('a single 200 MB line', () => {
  // Was: the file was not sniffed as JSON Lines (its first line is longer than the 4 MiB
  // sniff), so it was read whole as one JSON document (limit 512 MiB): about 420 MB more
  // memory, then "cannot tell its format" — or, for an OpenAI chat document, imported.
  it.each([
    [
      'claude.jsonl',
      '{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"',
      '"}}\n',
    ],
    ['chat.json', '{"messages":[{"role":"user","content":"', '"}]}'],
  ])(
    '%s, one 200 MB line: refused unread, the limit named, nothing left in the contexts root',
    async (name, head, tail) => {
      const dir = tempDir();
      const root = path.join(dir, 'contexts');
      const file = path.join(dir, name);
      await writeLongLine(file, head, 200, tail);
      const store = ContextStore.open(root);
      try {
        const before = process.memoryUsage().rss;
        const run = await importPaths(store, [file]);
        const grown = process.memoryUsage().rss - before;
        expect(run.results).toEqual([]);
        expect(run.failed).toEqual([
          {
            file,
            error: `${name} is ${((200 * MB + head.length + tail.length) / MB).toFixed(1)} MiB read as one JSON document (no line under 4 MiB says it is JSON Lines); a document or line larger than 64.0 MiB is not imported (it would be held whole in memory)`,
          },
        ]);
        // Not read: reading it whole took about 420 MB.
        expect(grown).toBeLessThan(100 * MB);
        expect(store.repo.allStatuses().size).toBe(0);
        expect(leftovers(root)).toEqual([]);
      } finally {
        store.close();
        fs.rmSync(file, { force: true });
      }
    },
    60_000,
  );

  it('a 200 MB line in the middle of a Claude Code session: skipped with its line number and the limit, the rest imported', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'session.jsonl');
    fs.writeFileSync(file, claudeLine('u1', null, 'user', 'first question'));
    await writeLongLine(
      file + '.mid',
      '{"type":"assistant","sessionId":"s","uuid":"u2","parentUuid":"u1","message":{"role":"assistant","content":"',
      200,
      '"}}\n',
    );
    // Appended as a stream too: the session is line 1, the long line 2, then line 3.
    await new Promise<void>((resolve, reject) => {
      const out = fs.createWriteStream(file, { flags: 'a' });
      fs.createReadStream(file + '.mid')
        .pipe(out)
        .on('finish', resolve)
        .on('error', reject);
    });
    fs.rmSync(file + '.mid');
    fs.appendFileSync(file, claudeLine('u3', 'u1', 'assistant', 'the answer'));
    const store = ContextStore.open(path.join(dir, 'contexts'));
    try {
      const run = await importPaths(store, [file]);
      expect(run.failed).toEqual([]);
      const [result] = run.results;
      expect(result?.format).toBe('claude-code');
      expect(result?.skipped).toEqual([
        { file: 'session.jsonl', line: 2, error: 'line longer than 67108864 bytes' },
      ]);
      const uuid = result!.tasks[0]!.uuid;
      const contents = store
        .readTask(uuid)
        .messages(1, 100)
        .messages.map((m) => m.content);
      expect(contents).toEqual(['first question', 'the answer']);
      assertDbMatchesFolders(store);
    } finally {
      store.close();
      fs.rmSync(file, { force: true });
    }
  }, 60_000);
});

describe('binary garbage, invalid UTF-8, truncated files', () => {
  // Was: the JSON parser's excerpt of the file went into the error as it was, ESC and NUL
  // included — `cwb import` printed the file's escape sequences to the terminal.
  it('binary garbage with terminal escape sequences: a clear error that carries no control character', async () => {
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const garbage = path.join(dir, 'garbage.jsonl');
    fs.writeFileSync(
      garbage,
      Buffer.concat([
        Buffer.from('\u001b]0;owned\u0007\u001b[2J\u0000'),
        Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
      ]),
    );
    // A Claude Code session with one such line: skipped, its reason printable too.
    const session = path.join(dir, 'session.jsonl');
    fs.writeFileSync(
      session,
      claudeLine('u1', null, 'user', 'hello') +
        '{"type":"assistant", \u001b[31mred\u001b[0m\u0000}\n' +
        claudeLine('u2', 'u1', 'assistant', 'hi'),
    );
    const store = ContextStore.open(root);
    try {
      const run = await importPaths(store, [garbage, session]);
      expect(run.failed).toHaveLength(1);
      expect(run.failed[0]!.error).toMatch(/^garbage\.jsonl is not valid JSON \(.*\\u001b/);
      expect(run.failed[0]!.error).not.toMatch(CONTROL);
      const skipped = run.results[0]!.skipped;
      expect(skipped).toHaveLength(1);
      expect(skipped[0]).toMatchObject({ file: 'session.jsonl', line: 2 });
      expect(skipped[0]!.error).toMatch(/^malformed JSON/);
      expect(skipped[0]!.error).not.toMatch(CONTROL);
      expect(run.results[0]!.tasks[0]!.messages).toBe(2);
    } finally {
      store.close();
    }
  });

  it('invalid UTF-8 inside a message: imported, each bad byte sequence as U+FFFD (the source file is left as it is)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'utf8.jsonl');
    const bytes = Buffer.concat([
      Buffer.from(
        '{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"bad ',
      ),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(' end"}}\n'),
    ]);
    fs.writeFileSync(file, bytes);
    const store = ContextStore.open(path.join(dir, 'contexts'));
    try {
      const run = await importPaths(store, [file]);
      expect(run.failed).toEqual([]);
      const uuid = run.results[0]!.tasks[0]!.uuid;
      expect(store.readTask(uuid).messages(1, 10).messages[0]!.content).toBe(
        'bad \ufffd\ufffd\ufffd end',
      );
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    } finally {
      store.close();
    }
  });

  it('a file cut off in the middle of its last line: the complete lines imported, the torn one reported as incomplete', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cut.jsonl');
    const whole =
      claudeLine('u1', null, 'user', 'hello') +
      claudeLine('u2', 'u1', 'assistant', 'a long answer');
    fs.writeFileSync(file, whole.slice(0, whole.length - 20));
    const store = ContextStore.open(path.join(dir, 'contexts'));
    try {
      const run = await importPaths(store, [file]);
      expect(run.failed).toEqual([]);
      expect(run.results[0]!.tasks[0]!.messages).toBe(1);
      expect(run.results[0]!.skipped).toEqual([
        {
          file: 'cut.jsonl',
          line: 2,
          error: expect.stringMatching(
            /^malformed JSON .*\(incomplete last line, no trailing newline\)$/,
          ),
        },
      ]);
    } finally {
      store.close();
    }
  });
});
