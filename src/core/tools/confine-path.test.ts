import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { confinePath, isInside } from './confine-path';
import { useToolFixture } from './test-support/tool-context';

describe('confinePath', () => {
  const fixture = useToolFixture();

  it('resolves relative paths, inner .. segments and absolute paths inside the workdir', () => {
    const { workdir } = fixture();
    expect(confinePath(workdir, 'src/a.ts')).toEqual({
      absolute: path.join(workdir, 'src/a.ts'),
      real: path.join(workdir, 'src/a.ts'),
      display: 'src/a.ts',
    });
    expect(confinePath(workdir, 'src/../b.ts').display).toBe('b.ts');
    expect(confinePath(workdir, path.join(workdir, 'c', 'd.ts')).display).toBe('c/d.ts');
    expect(confinePath(workdir, '.').display).toBe('.');
    expect(confinePath(workdir, '').display).toBe('.');
    expect(confinePath(workdir, './..work').display).toBe('..work');
  });

  it('refuses .. that climbs out, with the path in the message', () => {
    const { workdir } = fixture();
    expect(() => confinePath(workdir, '../../etc/passwd')).toThrow(
      'path "../../etc/passwd" is outside the working directory',
    );
    expect(() => confinePath(workdir, 'src/../../outside/x')).toThrow(/outside the working/);
    expect(() => confinePath(workdir, '..')).toThrow(/outside the working/);
  });

  it('refuses absolute paths outside, including a sibling sharing the prefix', () => {
    const { workdir, base } = fixture();
    expect(() => confinePath(workdir, '/etc/passwd')).toThrow(
      'path "/etc/passwd" is outside the working directory',
    );
    fs.mkdirSync(`${workdir}-other`);
    expect(() => confinePath(workdir, `${workdir}-other/x`)).toThrow(/outside the working/);
    expect(() => confinePath(workdir, base)).toThrow(/outside the working/);
  });

  it('refuses NUL bytes', () => {
    const { workdir } = fixture();
    expect(() => confinePath(workdir, 'a\0b')).toThrow('path "a\\u0000b" contains a NUL byte');
  });

  it('refuses a symlink to outside, and new files under a symlinked folder that points outside', () => {
    const { workdir, outside } = fixture();
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workdir, 'link.txt'));
    fs.symlinkSync(outside, path.join(workdir, 'out'));
    expect(() => confinePath(workdir, 'link.txt')).toThrow(
      /path "link\.txt" is outside the working directory \(a symlink leads to .*secret\.txt\)/,
    );
    expect(() => confinePath(workdir, 'out/new/deeper.txt')).toThrow(/outside the working/);
  });

  it('accepts symlinks whose target stays inside and returns the real path', () => {
    const { workdir } = fixture();
    fs.mkdirSync(path.join(workdir, 'real'));
    fs.symlinkSync(path.join(workdir, 'real'), path.join(workdir, 'alias'));
    const confined = confinePath(workdir, 'alias/new.txt');
    expect(confined.display).toBe('alias/new.txt');
    expect(confined.real).toBe(path.join(workdir, 'real', 'new.txt'));
  });

  it('refuses a dangling symlink, whose target cannot be checked', () => {
    const { workdir, outside } = fixture();
    fs.symlinkSync(path.join(outside, 'not-yet'), path.join(workdir, 'dangling'));
    expect(() => confinePath(workdir, 'dangling')).toThrow(/broken symlink/);
  });

  it('accepts the workdir spelled through a symlink to it', () => {
    const { workdir, base } = fixture();
    const alias = path.join(base, 'alias-of-work');
    fs.symlinkSync(workdir, alias);
    const confined = confinePath(alias, path.join(workdir, 'x.txt'));
    expect(confined.display).toBe('x.txt');
  });

  it('reports a missing working directory', () => {
    const { base } = fixture();
    expect(() => confinePath(path.join(base, 'nope'), 'a')).toThrow(
      /working directory .* does not exist/,
    );
  });

  it('isInside compares whole path segments', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
    expect(isInside('/a/b', '/a/b/..c')).toBe(true);
  });
});
