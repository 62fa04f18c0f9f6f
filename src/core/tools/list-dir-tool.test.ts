import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useToolFixture } from './test-support/tool-context';

describe('list_dir', () => {
  const fixture = useToolFixture();

  it('lists entries sorted, directories with "/", files with sizes, symlinks with targets', async () => {
    const { call, write, workdir } = fixture();
    write('b.txt', 'hello');
    write('a/inner.txt', 'x');
    write('C.md', '');
    fs.symlinkSync('a', path.join(workdir, 'link'));
    fs.symlinkSync('missing', path.join(workdir, 'broken'));
    const result = await call('list_dir', { path: '.' });
    expect(result).toEqual({
      status: 'success',
      content: [
        '".": 5 entries',
        'C.md  0 bytes',
        'a/',
        'b.txt  5 bytes',
        'broken -> missing  (broken)',
        'link/ -> a',
      ].join('\n'),
    });
    expect((await call('list_dir', {})).content).toBe(result.content);
    expect((await call('list_dir', { path: 'a' })).content).toBe(
      '"a": 1 entry\ninner.txt  1 bytes',
    );
  });

  it('caps the listing at 1000 entries with a note', async () => {
    const { call, workdir } = fixture();
    fs.mkdirSync(path.join(workdir, 'many'));
    for (let i = 0; i < 2500; i++) {
      fs.writeFileSync(path.join(workdir, 'many', `f${String(i).padStart(4, '0')}`), '');
    }
    const lines = (await call('list_dir', { path: 'many' })).content.split('\n');
    expect(lines[0]).toBe('"many": 2500 entries');
    expect(lines).toHaveLength(1002);
    expect(lines[1]).toBe('f0000  0 bytes');
    expect(lines[1000]).toBe('f0999  0 bytes');
    expect(lines[1001]).toMatch(/^\[showing the first 1000 of 2500 entries/);
  });

  it('reports empty directories, files and missing paths', async () => {
    const { call, write, workdir } = fixture();
    fs.mkdirSync(path.join(workdir, 'empty'));
    write('f.txt', 'x');
    expect((await call('list_dir', { path: 'empty' })).content).toBe(
      '(directory "empty" is empty)',
    );
    expect((await call('list_dir', { path: 'f.txt' })).error).toMatch(
      /not a directory; use read_file/,
    );
    expect((await call('list_dir', { path: 'nope' })).error).toBe(
      'directory "nope" does not exist',
    );
  });

  it('refuses directories outside the working directory', async () => {
    const { call, outside, workdir } = fixture();
    fs.symlinkSync(outside, path.join(workdir, 'out'));
    for (const p of ['..', outside, 'out', 'out/']) {
      const result = await call('list_dir', { path: p });
      expect(result.error, p).toMatch(/outside the working directory/);
    }
  });
});
