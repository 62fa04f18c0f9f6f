import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from './constants';
import { readLastLine, readLastLines } from './tail';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

function writeFile(content: string): string {
  const file = path.join(tempDir(), 'tail.txt');
  fs.writeFileSync(file, content);
  return file;
}

describe('readLastLines', () => {
  it('returns the last N lines of a file several chunks long', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `{"seq":${i + 1},"t":"ログ ${i} 😀"}`);
    const file = writeFile(lines.join('\n') + '\n');
    expect(fs.statSync(file).size).toBeGreaterThan(CHUNK_BYTES * 4);
    expect(readLastLines(file, 5)).toEqual(lines.slice(-5));
    // More than one chunk's worth of lines.
    expect(readLastLines(file, 5000)).toEqual(lines.slice(-5000));
    expect(readLastLines(file, 50_000)).toEqual(lines);
    expect(readLastLine(file)).toBe(lines.at(-1));
    expect(readLastLines(file, 0)).toEqual([]);
  });

  it('handles lines longer than a chunk', () => {
    const long1 = 'あ'.repeat(CHUNK_BYTES); // 3 chunks of bytes
    const long2 = 'b'.repeat(CHUNK_BYTES * 2 + 17);
    const file = writeFile(`start\n${long1}\nmid\n${long2}\n`);
    expect(readLastLines(file, 1)).toEqual([long2]);
    expect(readLastLines(file, 3)).toEqual([long1, 'mid', long2]);
    expect(readLastLines(file, 10)).toEqual(['start', long1, 'mid', long2]);
  });

  it('ignores an unterminated last line unless includePartial', () => {
    const torn = 'x'.repeat(CHUNK_BYTES + 5);
    const file = writeFile(`a\nb\n${torn}`);
    expect(readLastLines(file, 2)).toEqual(['a', 'b']);
    expect(readLastLines(file, 2, { includePartial: true })).toEqual(['b', torn]);
    expect(readLastLine(file)).toBe('b');
    expect(readLastLine(writeFile('only partial'))).toBeUndefined();
    expect(readLastLine(writeFile('only partial'), { includePartial: true })).toBe('only partial');
  });

  it('keeps empty lines and handles empty files', () => {
    expect(readLastLines(writeFile('\nx\n\n'), 5)).toEqual(['', 'x', '']);
    expect(readLastLines(writeFile(''), 3)).toEqual([]);
    expect(readLastLine(writeFile(''))).toBeUndefined();
  });
});
