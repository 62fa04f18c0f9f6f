import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INLINE_BYTES } from './output-limits';
import { useToolFixture } from './test-support/tool-context';

const PROC_IO = '/proc/self/io';
const hasProcIo = fs.existsSync(PROC_IO);

/** rchar: every byte this process asked read() for, page cache or not. */
function bytesRead(): number {
  const match = /^rchar:\s*(\d+)$/m.exec(fs.readFileSync(PROC_IO, 'utf8'));
  if (!match) throw new Error(`${PROC_IO} has no rchar field`);
  return Number(match[1]);
}

function numbered(n: number, prefix = 'line'): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';
}

describe('read_file', () => {
  const fixture = useToolFixture();

  it('returns numbered lines', async () => {
    const { call, write } = fixture();
    write('src/a.txt', 'alpha\nbeta\ngamma\n');
    const result = await call('read_file', { path: 'src/a.txt' });
    expect(result).toEqual({
      status: 'success',
      content: '     1\talpha\n     2\tbeta\n     3\tgamma',
    });
  });

  it('numbers lines past 999,999 as wide as they need, in a file read at once', async () => {
    const { call, write } = fixture();
    write('many.txt', `${'\n'.repeat(999_998)}a\nb\nc\n`);
    const result = await call('read_file', { path: 'many.txt', offset: 999_998, limit: 3 });
    expect(result.content).toBe(
      '999998\t\n999999\ta\n1000000\tb\n[lines 999998-1000000 of 1000001 shown; 1 more line; continue with offset=1000001]',
    );
  });

  it('shows each file as it is, whatever a read before it held (its buffer is reused)', async () => {
    const { call, write } = fixture();
    write('big.txt', numbered(3000, 'a long line that fills the buffer'));
    write('small.txt', 'one\ntwo');
    write('binary.bin', 'text\u0000more');
    await call('read_file', { path: 'big.txt' });
    expect((await call('read_file', { path: 'small.txt' })).content).toBe(
      '     1\tone\n     2\ttwo',
    );
    expect((await call('read_file', { path: 'binary.bin' })).status).toBe('error');
    expect((await call('read_file', { path: 'small.txt', offset: 3 })).content).toBe(
      'Error: offset 3 is past the end of "small.txt", which has 2 lines',
    );
  });

  it('returns the window [offset, offset + limit) and says how many lines are left', async () => {
    const { call, write } = fixture();
    write('n.txt', numbered(10));
    const result = await call('read_file', { path: 'n.txt', offset: 3, limit: 2 });
    expect(result.content).toBe(
      '     3\tline 3\n     4\tline 4\n[lines 3-4 of 10 shown; 6 more lines; continue with offset=5]',
    );
    const tail = await call('read_file', { path: 'n.txt', offset: 9 });
    expect(tail.content).toBe('     9\tline 9\n    10\tline 10');
  });

  it('shows the same lines from a small file (one read) as from a large one (streamed)', async () => {
    const { call, write } = fixture();
    const variety = [
      'plain ascii',
      '',
      'crlf line\r',
      '日本語の行、句読点。',
      'emoji 🎉 and naïve café',
      'x'.repeat(1999),
      'y'.repeat(2001),
      'tab\there',
      ...Array.from({ length: 3000 }, (_, i) => `filler ${i} ${'z'.repeat(i % 90)}`),
    ].join('\n');
    write('small.txt', `${variety}\n`);
    // Past the one-read size, so the same first lines come through the streaming reader.
    write('large.txt', `${variety}\n${`${'w'.repeat(100)}\n`.repeat(12_000)}`);
    for (const args of [
      {},
      { offset: 1, limit: 6 },
      { offset: 3, limit: 5 },
      { offset: 6, limit: 3 },
      { offset: 8 },
      // Numbers counted up across a new digit, from a first number of each width.
      { offset: 9, limit: 3 },
      { offset: 99, limit: 3 },
      { offset: 998, limit: 4 },
      { offset: 900 },
    ]) {
      const small = await call('read_file', { path: 'small.txt', ...args });
      const large = await call('read_file', { path: 'large.txt', ...args });
      const lines = (r: { content: string }): string[] => r.content.split('\n');
      // The closing note differs (an exact count of the rest vs an estimate); the lines and
      // where to continue do not.
      expect(lines(small).slice(0, -1)).toEqual(lines(large).slice(0, -1));
      expect(
        lines(small)
          .at(-1)!
          .replace(/.*offset=/, ''),
      ).toBe(
        lines(large)
          .at(-1)!
          .replace(/.*offset=/, ''),
      );
    }
    const tail = await call('read_file', { path: 'small.txt', offset: 3005 });
    expect(tail.content).toBe(
      `  3005\tfiller 2996 ${'z'.repeat(2996 % 90)}\n  3006\tfiller 2997 ${'z'.repeat(2997 % 90)}\n  3007\tfiller 2998 ${'z'.repeat(2998 % 90)}\n  3008\tfiller 2999 ${'z'.repeat(2999 % 90)}`,
    );
    // Lines that fill the output budget to the byte (25 × 2000 bytes with their numbers and
    // newlines): one more byte in the next line, and it stays out.
    const exact = `${`${'e'.repeat(1992)}\n`.repeat(25)}${'f'.repeat(169)}\nend\n`;
    write('exact.txt', exact);
    write('exact-large.txt', `${exact}${`${'w'.repeat(100)}\n`.repeat(12_000)}`);
    const exactSmall = (await call('read_file', { path: 'exact.txt' })).content.split('\n');
    const exactLarge = (await call('read_file', { path: 'exact-large.txt' })).content.split('\n');
    expect(exactSmall).toHaveLength(26);
    expect(exactSmall.slice(0, -1)).toEqual(exactLarge.slice(0, -1));
    // Not UTF-8: decoded line by line with replacement characters, like the streaming reader.
    write('bad.txt', Buffer.from([0x61, 0xff, 0x0a, 0x62, 0x0a]));
    expect((await call('read_file', { path: 'bad.txt' })).content).toBe(
      '     1\ta\uFFFD\n     2\tb',
    );
  });

  it('reads the first 2000 lines by default', async () => {
    const { call, write } = fixture();
    write('n.txt', numbered(2500, 'x'));
    const result = await call('read_file', { path: 'n.txt' });
    const lines = result.content.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe('  2000\tx 2000');
    expect(lines[2000]).toBe(
      '[lines 1-2000 of 2500 shown; 500 more lines; continue with offset=2001]',
    );
  });

  it('stops at the output budget before the line limit', async () => {
    const { call, write } = fixture();
    write('wide.txt', numbered(2000, 'y'.repeat(100)));
    const result = await call('read_file', { path: 'wide.txt' });
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(MAX_INLINE_BYTES);
    expect(result.outputRef).toBeUndefined();
    expect(result.content).toMatch(
      /\[lines 1-(\d+) of 2000 shown; \d+ more lines; continue with offset=\d+\]$/,
    );
  });

  it('shortens long lines with a note, also lines too long to buffer', async () => {
    const { call, write } = fixture();
    write('long.txt', `${'a'.repeat(5000)}\n${'b'.repeat(200_000)}\nend\n`);
    const result = await call('read_file', { path: 'long.txt' });
    const [first, second, third] = result.content.split('\n');
    expect(first).toBe(`     1\t${'a'.repeat(2000)}… [line cut: 5000 characters]`);
    expect(second).toBe(`     2\t${'b'.repeat(2000)}… [line cut: 200000 bytes]`);
    expect(third).toBe('     3\tend');
  });

  it('refuses binary files, directories, missing files and an offset past the end', async () => {
    const { call, write } = fixture();
    write('bin.dat', Buffer.from([0x50, 0x4b, 0x00, 0x01]));
    write('dir/x.txt', 'x');
    write('short.txt', 'one\ntwo\n');
    expect((await call('read_file', { path: 'bin.dat' })).content).toMatch(/binary file/);
    expect((await call('read_file', { path: 'dir' })).content).toMatch(
      /is a directory; use list_dir/,
    );
    const missing = await call('read_file', { path: 'nope.txt' });
    expect(missing).toMatchObject({ status: 'error', error: 'file "nope.txt" does not exist' });
    expect((await call('read_file', { path: 'short.txt', offset: 5 })).error).toBe(
      'offset 5 is past the end of "short.txt", which has 2 lines',
    );
    expect((await call('read_file', { path: 'empty.txt' })).status).toBe('error');
    write('empty.txt', '');
    expect((await call('read_file', { path: 'empty.txt' })).content).toBe(
      '(file "empty.txt" is empty)',
    );
  });

  it('refuses paths that escape: .., absolute outside, symlink to outside, NUL', async () => {
    const { call, outside, workdir } = fixture();
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workdir, 'innocent.txt'));
    fs.symlinkSync(outside, path.join(workdir, 'outdir'));
    for (const p of [
      '../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      'innocent.txt',
      'outdir/secret.txt',
      'a\0b',
    ]) {
      const result = await call('read_file', { path: p });
      expect(result.status, p).toBe('error');
      expect(result.content, p).not.toContain('top secret');
      expect(result.error, p).toMatch(/outside the working directory|NUL byte/);
    }
  });

  it('validates its arguments', async () => {
    const { call } = fixture();
    expect((await call('read_file', { path: 'a', offset: 0 })).error).toBe(
      'invalid arguments for read_file: "offset" must be at least 1',
    );
    expect((await call('read_file', { path: 'a', limit: 1.5 })).error).toBe(
      'invalid arguments for read_file: "limit" must be an integer, got 1.5',
    );
    expect((await call('read_file', { file_path: 'a' })).error).toBe(
      'invalid arguments for read_file: "path" is required (a string) (unknown fields: file_path)',
    );
  });

  it('accepts null for optional fields (OpenAI strict mode)', async () => {
    const { call, write } = fixture();
    write('a.txt', 'x\n');
    expect((await call('read_file', { path: 'a.txt', offset: null, limit: null })).content).toBe(
      '     1\tx',
    );
  });

  describe.skipIf(!hasProcIo)(`on a 50 MB file (needs ${PROC_IO})`, () => {
    it('reads only about what it returns', async () => {
      const { call, write } = fixture();
      const line = `${'z'.repeat(99)}\n`;
      const chunk = line.repeat(10_000);
      const file = write('big.log', '');
      const fd = fs.openSync(file, 'a');
      for (let i = 0; i < 50; i++) fs.writeSync(fd, chunk);
      fs.closeSync(fd);
      expect(fs.statSync(file).size).toBe(50_000_000);

      const before = bytesRead();
      const result = await call('read_file', { path: 'big.log', limit: 100 });
      const read = bytesRead() - before;
      expect(result.content.split('\n')).toHaveLength(101);
      expect(result.content).toMatch(
        /\[lines 1-100 shown; about 499900 more lines \(49990000 more bytes of 50000000\); continue with offset=101\]$/,
      );
      expect(read).toBeLessThan(256 * 1024);
    });
  });
});
