import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../jsonl/test-support/temp-dir';
import { LineCountCache } from './line-count-cache';

const tempDir = useTempDir();

describe('counting the lines of current.jsonl between calls', () => {
  it('counts complete lines through appends, a torn tail, a replacement and a removal', () => {
    const file = path.join(tempDir(), 'current.jsonl');
    const cache = new LineCountCache();
    expect(cache.count(file)).toBe(0);
    fs.writeFileSync(file, 'a\nb\n{"torn');
    expect(cache.count(file)).toBe(2);
    // A repair cuts the torn tail (never a complete line) and the task goes on.
    fs.truncateSync(file, 'a\nb\n'.length);
    fs.appendFileSync(file, '{"whole"}\nc\nd\n');
    expect(cache.count(file)).toBe(5);
    fs.appendFileSync(file, 'e\n{"still');
    expect(cache.count(file)).toBe(6);
    // Compaction writes a new file over the old one (another inode).
    fs.writeFileSync(`${file}.tmp`, 'summary\nkept\n');
    fs.renameSync(`${file}.tmp`, file);
    expect(cache.count(file)).toBe(2);
    fs.rmSync(file);
    expect(cache.count(file)).toBe(0);
  });

  it('counts across read chunks', () => {
    const file = path.join(tempDir(), 'current.jsonl');
    const long = `${'x'.repeat(3 << 20)}\n`;
    fs.writeFileSync(file, `${long}y\n${long}`);
    expect(new LineCountCache().count(file)).toBe(3);
  });
});
