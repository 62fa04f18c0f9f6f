import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useToolFixture } from './test-support/tool-context';

describe('grep', () => {
  const fixture = useToolFixture();

  it('prints file:line: text for matches, recursively and in name order', async () => {
    const { call, write } = fixture();
    write('src/b.ts', 'const x = 1;\nfunction main() {}\n');
    write('src/a/deep.ts', 'nothing\n  function helper() {}\n');
    write('README.md', 'no functions here\n');
    const result = await call('grep', { pattern: 'function\\s+\\w+\\(' });
    expect(result).toEqual({
      status: 'success',
      content: [
        'src/a/deep.ts:2:   function helper() {}',
        'src/b.ts:2: function main() {}',
        '[2 matches in 2 files]',
      ].join('\n'),
    });
  });

  it('searches under a path or a single file, optionally ignoring case', async () => {
    const { call, write } = fixture();
    write('one/x.txt', 'Hello\n');
    write('two/x.txt', 'hello\n');
    expect((await call('grep', { pattern: 'hello', path: 'two' })).content).toBe(
      'two/x.txt:1: hello\n[1 match in 1 file]',
    );
    expect(
      (await call('grep', { pattern: 'hello', path: 'one/x.txt', ignore_case: true })).content,
    ).toBe('one/x.txt:1: Hello\n[1 match in 1 file]');
  });

  it('skips .git, node_modules, binary files and files over 10 MB', async () => {
    const { call, write } = fixture();
    write('.git/config', 'needle\n');
    write('node_modules/pkg/index.js', 'needle\n');
    write('image.png', Buffer.concat([Buffer.from([0]), Buffer.from('needle\n')]));
    const big = write('huge.log', '');
    fs.truncateSync(big, 10 * 1024 * 1024 + 1);
    fs.appendFileSync(big, 'needle\n');
    write('ok.txt', 'needle\n');
    const result = await call('grep', { pattern: 'needle' });
    expect(result.content).toBe(
      'ok.txt:1: needle\n[1 match in 1 file]\n(skipped files: 1 binary, 1 over 10 MB)',
    );
  });

  it('stops at 200 matches with a note', async () => {
    const { call, write } = fixture();
    write('a.txt', 'hit\n'.repeat(150));
    write('b.txt', 'hit\n'.repeat(150));
    const lines = (await call('grep', { pattern: 'hit' })).content.split('\n');
    expect(lines).toHaveLength(201);
    expect(lines[199]).toBe('b.txt:50: hit');
    expect(lines[200]).toMatch(/^\[stopped after 200 matches; there are more/);
    write('c.txt', 'hit\n'.repeat(50));
    fs.rmSync(path.join(fixture().workdir, 'a.txt'));
    // Exactly 200 matches: no false "there are more".
    expect((await call('grep', { pattern: 'hit' })).content.split('\n')[200]).toBe(
      '[200 matches in 2 files]',
    );
  });

  it('says so when nothing matches', async () => {
    const { call, write } = fixture();
    write('a.txt', 'abc\n');
    expect((await call('grep', { pattern: 'xyz' })).content).toBe(
      'no matches for "xyz" under "." (1 file searched)',
    );
  });

  it('rejects an invalid regular expression, naming it', async () => {
    const { call } = fixture();
    const result = await call('grep', { pattern: 'foo(' });
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/^invalid regular expression "foo\(": .*Unterminated group/);
  });

  it('does not follow symlinks out of the working directory', async () => {
    const { call, outside, workdir } = fixture();
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'needle\n');
    fs.symlinkSync(outside, path.join(workdir, 'outdir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workdir, 'link.txt'));
    fs.writeFileSync(path.join(workdir, 'mine.txt'), 'needle\n');
    fs.symlinkSync('mine.txt', path.join(workdir, 'alias.txt'));
    expect((await call('grep', { pattern: 'needle' })).content).toBe(
      'alias.txt:1: needle\nmine.txt:1: needle\n[2 matches in 2 files]',
    );
    expect((await call('grep', { pattern: 'needle', path: '../outside' })).error).toMatch(
      /outside the working directory/,
    );
    expect((await call('grep', { pattern: 'needle', path: 'outdir' })).error).toMatch(
      /outside the working directory/,
    );
  });
});
