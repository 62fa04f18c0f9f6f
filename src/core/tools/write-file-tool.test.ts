import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useToolFixture } from './test-support/tool-context';

describe('write_file', () => {
  const fixture = useToolFixture();

  it('creates parent folders and reports the bytes written', async () => {
    const { call, workdir } = fixture();
    const result = await call('write_file', { path: 'src/deep/new.ts', content: 'héllo\n' });
    expect(result).toEqual({
      status: 'success',
      content: 'wrote 7 bytes to "src/deep/new.ts" (created)',
    });
    expect(fs.readFileSync(path.join(workdir, 'src/deep/new.ts'), 'utf8')).toBe('héllo\n');
  });

  it('replaces atomically, leaves no temp file and keeps the file mode', async () => {
    const { call, write, workdir } = fixture();
    const file = write('run.sh', '#!/bin/sh\necho old\n');
    fs.chmodSync(file, 0o755);
    const result = await call('write_file', { path: 'run.sh', content: '#!/bin/sh\necho new\n' });
    expect(result.content).toBe('wrote 19 bytes to "run.sh" (replaced)');
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(workdir)).toEqual(['run.sh']);
  });

  it('writes through a symlink that stays inside, to its target', async () => {
    const { call, write, workdir } = fixture();
    write('real.txt', 'old');
    fs.symlinkSync('real.txt', path.join(workdir, 'alias.txt'));
    await call('write_file', { path: 'alias.txt', content: 'new' });
    expect(fs.lstatSync(path.join(workdir, 'alias.txt')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(workdir, 'real.txt'), 'utf8')).toBe('new');
  });

  it('refuses escapes: .., absolute outside, symlinked file or folder to outside, NUL', async () => {
    const { call, outside, workdir } = fixture();
    fs.writeFileSync(path.join(outside, 'target.txt'), 'original');
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(workdir, 'link.txt'));
    fs.symlinkSync(outside, path.join(workdir, 'outdir'));
    for (const p of [
      '../outside/evil.txt',
      path.join(outside, 'evil.txt'),
      'link.txt',
      'outdir/evil.txt',
      'outdir/new/deeper/evil.txt',
      'evil\0.txt',
    ]) {
      const result = await call('write_file', { path: p, content: 'pwned' });
      expect(result.status, p).toBe('error');
      expect(result.error, p).toMatch(/outside the working directory|NUL byte/);
    }
    expect(fs.readdirSync(outside)).toEqual(['target.txt']);
    expect(fs.readFileSync(path.join(outside, 'target.txt'), 'utf8')).toBe('original');
  });

  it('refuses directories and reports a file in the way of a folder', async () => {
    const { call, write } = fixture();
    write('dir/x', '');
    write('file.txt', '');
    expect((await call('write_file', { path: 'dir', content: '' })).error).toBe(
      '"dir" is a directory',
    );
    expect((await call('write_file', { path: '.', content: '' })).error).toMatch(
      /needs a file path/,
    );
    const blocked = await call('write_file', { path: 'file.txt/inner.txt', content: '' });
    expect(blocked.status).toBe('error');
    expect(blocked.error).toMatch(
      /^write_file failed: (a part of the path is not a directory|already exists)/,
    );
  });

  it('requires content to be a string', async () => {
    const { call } = fixture();
    expect((await call('write_file', { path: 'a.txt' })).error).toBe(
      'invalid arguments for write_file: "content" is required (a string)',
    );
    expect((await call('write_file', { path: 'a.txt', content: 5 })).error).toBe(
      'invalid arguments for write_file: "content" must be a string, got an integer',
    );
  });
});
