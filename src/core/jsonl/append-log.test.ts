import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AppendLog,
  BATCH_BYTES,
  PROCESS_BATCH_BYTES,
  appendJsonLine,
  batchBytesAllocated,
} from './append-log';
import { encodeLinePair, LINE_PIECE_CHARS } from './write-line';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

describe('AppendLog', () => {
  it('creates the file, appends lines and reports their offsets', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file, { fsync: true });
    expect(log.size).toBe(0);
    expect(log.append('héllo')).toEqual({ offset: 0, bytes: 7 });
    expect(appendJsonLine(log, { text: 'two\nlines', n: 2 })).toEqual({ offset: 7, bytes: 28 });
    expect(log.size).toBe(35);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('héllo\n{"text":"two\\nlines","n":2}\n');
  });

  it('writes lines of every size and script exactly, one after the other in two files', () => {
    const dir = tempDir();
    const a = new AppendLog(path.join(dir, 'a.jsonl'));
    const b = new AppendLog(path.join(dir, 'b.jsonl'));
    // Short, multi-byte, past the reused buffer's first size, and past its limit (written in
    // pieces).
    const lines = [
      'x',
      '日本語🙂',
      'é'.repeat(40_000),
      'a'.repeat(30_000),
      '語'.repeat(400_000),
      'z',
    ];
    let offset = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line) + 1;
      expect(a.append(line)).toEqual({ offset, bytes });
      b.append(line.slice(0, 10));
      offset += bytes;
    }
    a.close();
    b.close();
    expect(fs.readFileSync(path.join(dir, 'a.jsonl'), 'utf8')).toBe(
      lines.map((l) => `${l}\n`).join(''),
    );
    expect(fs.readFileSync(path.join(dir, 'b.jsonl'), 'utf8')).toBe(
      lines.map((l) => `${l.slice(0, 10)}\n`).join(''),
    );
  });

  it('keeps a surrogate pair whole where a long line is cut into pieces', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    // A pair across the first piece's end, then one starting exactly at the second piece.
    const line =
      'a'.repeat(LINE_PIECE_CHARS - 1) +
      '🙂' +
      'b'.repeat(LINE_PIECE_CHARS - 2) +
      '🙂' +
      'c'.repeat(LINE_PIECE_CHARS * 2);
    expect(log.append(line).bytes).toBe(Buffer.byteLength(line) + 1);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${line}\n`);
  });

  it('writes a line given in parts as the joined line, short or longer than its buffer', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    const short = ['{"content":', JSON.stringify('é'.repeat(10)), ',"n":1', '}'];
    const long = [
      '{"calls":"',
      'y'.repeat(LINE_PIECE_CHARS * 2 + 5),
      '","z":"',
      '🙂'.repeat(LINE_PIECE_CHARS),
      '"}',
    ];
    expect(log.append(short)).toEqual({ offset: 0, bytes: Buffer.byteLength(short.join('')) + 1 });
    expect(log.append(long).bytes).toBe(Buffer.byteLength(long.join('')) + 1);
    expect(() => log.append(['{"a":', '"x\ny"}'])).toThrow(/raw newline/);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${short.join('')}\n${long.join('')}\n`);
  });

  it('writes a pair of lines encoded once, the second reusing parts of the first', () => {
    const dir = tempDir();
    const messages = new AppendLog(path.join(dir, 'messages.jsonl'));
    const current = new AppendLog(path.join(dir, 'current.jsonl'));
    const expected = { messages: '', current: '' };
    // Multi-byte parts, and a pair past the buffer's first size (it grows).
    for (const content of ['héllo 日本語🙂', '語'.repeat(30_000), 'x']) {
      const first = [
        '{"seq":1,"content":',
        JSON.stringify(content),
        ',"tokens":3',
        ',"name":"n"',
        '}',
      ];
      const second = ['{"content":', 1, 3, '}'] as const;
      const pair = encodeLinePair(first, second);
      expect(pair).toBeDefined();
      const [a, b] = pair!;
      expect(messages.appendEncoded(a).bytes).toBe(a.length);
      expect(current.appendEncoded(b).bytes).toBe(b.length);
      expected.messages += `${first.join('')}\n`;
      expected.current += `{"content":${JSON.stringify(content)},"name":"n"}\n`;
    }
    messages.close();
    current.close();
    expect(fs.readFileSync(path.join(dir, 'messages.jsonl'), 'utf8')).toBe(expected.messages);
    expect(fs.readFileSync(path.join(dir, 'current.jsonl'), 'utf8')).toBe(expected.current);
  });

  it('leaves a pair too long for the buffer to line-by-line writes', () => {
    expect(encodeLinePair(['x'.repeat(200_000)], [0])).toBeUndefined();
    // Fits in characters only once measured in bytes: 3 per unit would not.
    expect(encodeLinePair(['a'.repeat(100_000)], ['b'])).toBeDefined();
  });

  it('refuses an encoded line that is not exactly one line and writes nothing', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    for (const bad of ['no newline', 'two\nlines\n', '\n\n', '']) {
      expect(() => log.appendEncoded(Buffer.from(bad)), JSON.stringify(bad)).toThrow(
        /only newline/,
      );
    }
    expect(log.appendEncoded(Buffer.from('{"n":1}\n'))).toEqual({ offset: 0, bytes: 8 });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n');
  });

  it('continues from the existing size', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    fs.writeFileSync(file, 'abc\n');
    const log = new AppendLog(file);
    expect(log.size).toBe(4);
    expect(log.append('d')).toEqual({ offset: 4, bytes: 2 });
    log.close();
  });

  it('rejects a line with a raw newline and writes nothing', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    expect(() => log.append('a\nb')).toThrow(/raw newline/);
    expect(() => appendJsonLine(log, undefined)).toThrow(/no JSON form/);
    expect(log.size).toBe(0);
    log.close();
    expect(fs.statSync(file).size).toBe(0);
    expect(() => log.append('late')).toThrow(/after close/);
  });

  it('reopen follows a file replaced under it', () => {
    const file = path.join(tempDir(), 'current.jsonl');
    const log = new AppendLog(file);
    log.append('old');
    fs.writeFileSync(`${file}.new`, 'new\n');
    fs.renameSync(`${file}.new`, file);
    log.reopen();
    expect(log.append('next')).toEqual({ offset: 4, bytes: 5 });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('new\nnext\n');
  });
});

describe('AppendLog after a failed write (disk full)', () => {
  /** The next writes to `fd` land `budget` bytes, then fail with ENOSPC, like a full disk. */
  function failWrites(budget: number): () => void {
    const real = fs.writeSync;
    let left = budget;
    const patched = (fd: number, buffer: Buffer, offset = 0, length = buffer.length - offset) => {
      if (left <= 0) throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
      const n = Math.min(length, left);
      left -= n;
      return real(fd, buffer, offset, n);
    };
    (fs as unknown as { writeSync: typeof patched }).writeSync = patched;
    return () => {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    };
  }

  it('cuts the part that landed, so the next append is its own intact line', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    log.append('{"n":1}');
    const restore = failWrites(5);
    try {
      expect(() => log.append('{"n":2,"text":"this one does not fit"}')).toThrow(/ENOSPC/);
    } finally {
      restore();
    }
    expect(log.size).toBe(8);
    expect(fs.statSync(file).size).toBe(8);
    expect(log.append('{"n":3}')).toEqual({ offset: 8, bytes: 8 });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('cuts a long line that failed between its pieces', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    log.append('{"n":1}');
    const restore = failWrites(LINE_PIECE_CHARS + 10);
    try {
      expect(() => log.append('x'.repeat(LINE_PIECE_CHARS * 3))).toThrow(/ENOSPC/);
    } finally {
      restore();
    }
    expect(fs.statSync(file).size).toBe(8);
    log.append('{"n":2}');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  });

  it('cuts an encoded line that landed in part', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    log.append('{"n":1}');
    const restore = failWrites(3);
    try {
      expect(() => log.appendEncoded(Buffer.from('{"n":2,"more":true}\n'))).toThrow(/ENOSPC/);
    } finally {
      restore();
    }
    expect(log.appendEncoded(Buffer.from('{"n":3}\n'))).toEqual({ offset: 8, bytes: 8 });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":3}\n');
  });

  it('truncateTo undoes the last append', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file);
    log.append('a');
    const { offset } = log.append('b');
    log.truncateTo(offset);
    expect(() => log.truncateTo(99)).toThrow(RangeError);
    log.append('c');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('a\nc\n');
  });
});

describe('AppendLog, batched', () => {
  it('holds lines until flush or close, with the offsets they will have, then writes them in one call', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    fs.writeFileSync(file, 'old\n');
    const log = new AppendLog(file, { batched: true });
    const writes: number[] = [];
    const real = fs.writeSync;
    (fs as unknown as { writeSync: unknown }).writeSync = (fd: number, ...rest: unknown[]) => {
      writes.push(fd);
      return (real as (...args: unknown[]) => number)(fd, ...rest);
    };
    try {
      expect(log.append('{"n":1}')).toEqual({ offset: 4, bytes: 8 });
      expect(log.append(['{"n":', '"二"}'])).toEqual({ offset: 12, bytes: 12 });
      expect(log.appendEncoded(Buffer.from('{"n":3}\n'))).toEqual({ offset: 24, bytes: 8 });
      expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
      expect(log.size).toBe(32);
      log.flush();
      expect(writes).toHaveLength(1);
      expect(fs.readFileSync(file, 'utf8')).toBe('old\n{"n":1}\n{"n":"二"}\n{"n":3}\n');
      log.append('{"n":4}');
      log.close();
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    expect(writes).toHaveLength(2);
    expect(fs.readFileSync(file, 'utf8')).toBe('old\n{"n":1}\n{"n":"二"}\n{"n":3}\n{"n":4}\n');
  });

  it('writes what it holds first when the next line does not fit, and a line longer than the batch after it', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file, { batched: true });
    const small = `{"s":"${'a'.repeat(1000)}"}`;
    const count = Math.ceil(BATCH_BYTES / small.length) + 3;
    for (let i = 0; i < count; i++) log.append(small);
    // More than a batch was appended: the first batch is on disk, the rest held.
    const onDisk = fs.statSync(file).size;
    expect(onDisk).toBeGreaterThan(0);
    expect(onDisk).toBeLessThan(log.size);
    const long = `{"l":"${'b'.repeat(BATCH_BYTES)}"}`;
    expect(log.append(long).offset).toBe(count * (small.length + 1));
    expect(fs.statSync(file).size).toBe(log.size);
    log.append(small);
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(count + 3);
    expect(lines[count]).toBe(long);
    expect(lines.slice(0, count).every((l) => l === small)).toBe(true);
  });

  it('truncateTo drops held lines without touching the file, and cuts the file when it goes further back', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file, { batched: true });
    log.append('a');
    log.flush();
    const { offset } = log.append('b');
    log.append('c');
    log.truncateTo(offset);
    expect(log.size).toBe(2);
    log.append('d');
    log.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe('a\nd\n');
    log.append('e');
    log.truncateTo(0);
    log.append('f');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('f\n');
  });

  it('a failed write of the held lines loses them all, cuts what landed and throws; the next line starts clean', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file, { batched: true });
    log.append('{"n":1}');
    log.flush();
    log.append('{"n":2}');
    log.append('{"n":3}');
    const real = fs.writeSync;
    (fs as unknown as { writeSync: unknown }).writeSync = (fd: number, buffer: Buffer) => {
      real(fd, buffer, 0, 5); // part of the batch lands, then the disk is full
      throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
    };
    try {
      expect(() => log.flush()).toThrow(/ENOSPC/);
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    expect(log.size).toBe(8);
    expect(fs.statSync(file).size).toBe(8);
    expect(log.append('{"n":4}')).toEqual({ offset: 8, bytes: 8 });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":4}\n');
  });

  it('close writes what it holds, and still closes the file when that fails', () => {
    const file = path.join(tempDir(), 'log.jsonl');
    const log = new AppendLog(file, { batched: true });
    log.append('{"n":1}');
    const real = fs.writeSync;
    (fs as unknown as { writeSync: unknown }).writeSync = () => {
      throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    };
    try {
      expect(() => log.close()).toThrow(/EIO/);
    } finally {
      (fs as unknown as { writeSync: typeof real }).writeSync = real;
    }
    expect(() => log.append('x')).toThrow(/after close/);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });

  it('keeps the batches of all logs of the process within their budget by writing instead of growing', () => {
    const dir = tempDir();
    const before = batchBytesAllocated();
    const perLog = 4 * 1024 * 1024;
    const logs = Array.from(
      { length: Math.ceil(PROCESS_BATCH_BYTES / perLog) + 2 },
      (_, i) => new AppendLog(path.join(dir, `${i}.jsonl`), { batched: true, batchBytes: perLog }),
    );
    const line = `{"s":"${'x'.repeat(16 * 1024)}"}`;
    for (const log of logs)
      for (let n = 0; n < Math.floor(perLog / (line.length * 3 + 1)) * 2; n++) log.append(line);
    expect(batchBytesAllocated() - before).toBeLessThanOrEqual(PROCESS_BATCH_BYTES);
    // The logs past the budget wrote their lines instead of holding them.
    expect(logs.filter((log) => log.onDisk > 0).length).toBeGreaterThan(0);
    for (const log of logs) log.close();
    expect(batchBytesAllocated()).toBe(before);
    for (const [i, log] of logs.entries())
      expect(fs.statSync(path.join(dir, `${i}.jsonl`)).size).toBe(log.size);
  });
});
