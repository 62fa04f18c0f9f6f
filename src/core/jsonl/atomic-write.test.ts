import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicChunks, writeFileAtomicFrom } from './atomic-write';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

describe('writeFileAtomic', () => {
  it('creates and replaces a file, leaving no temp files', () => {
    const file = path.join(tempDir(), 'state.json');
    writeFileAtomic(file, '{"v":1}');
    writeFileAtomic(file, Buffer.from('{"v":2,"t":"日本"}'));
    expect(fs.readFileSync(file, 'utf8')).toBe('{"v":2,"t":"日本"}');
    expect(fs.readdirSync(tempDir())).toEqual(['state.json']);
  });

  it('removes the temp file and keeps the old content when the rename fails', () => {
    const dir = tempDir();
    const target = path.join(dir, 'occupied');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'keep'), 'x');
    expect(() => writeFileAtomic(target, 'data')).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['occupied']);
  });
});

describe('writeFileAtomicFrom', () => {
  it('writes streamed chunks', async () => {
    const file = path.join(tempDir(), 'current.jsonl');
    async function* chunks(): AsyncGenerator<string | Buffer> {
      yield '{"a":1}\n';
      yield Buffer.from('{"b":"😀"}\n');
    }
    await writeFileAtomicFrom(file, chunks());
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":"😀"}\n');
    expect(fs.readdirSync(tempDir())).toEqual(['current.jsonl']);
  });

  it('keeps the old file and removes the temp file when the source fails', async () => {
    const file = path.join(tempDir(), 'current.jsonl');
    fs.writeFileSync(file, 'old\n');
    async function* failing(): AsyncGenerator<string> {
      yield 'partial new content\n';
      throw new Error('source broke');
    }
    await expect(writeFileAtomicFrom(file, failing())).rejects.toThrow('source broke');
    expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
    expect(fs.readdirSync(tempDir())).toEqual(['current.jsonl']);
  });
});

describe('writeFileAtomicChunks', () => {
  it('writes the pieces in order without joining them; a piece that throws leaves the old file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'current.jsonl');
    writeFileAtomicChunks(file, ['{"a":1}\n', Buffer.from('{"b":"日本"}\n')]);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":"日本"}\n');
    function* failing(): Generator<string> {
      yield 'partial\n';
      throw new Error('view unreadable');
    }
    expect(() => writeFileAtomicChunks(file, failing())).toThrow('view unreadable');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n{"b":"日本"}\n');
    expect(fs.readdirSync(dir)).toEqual(['current.jsonl']);
  });
});
