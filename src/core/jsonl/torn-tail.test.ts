import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNK_BYTES } from './constants';
import { recoverTornTail } from './torn-tail';
import { useTempDir } from './test-support/temp-dir';

const tempDir = useTempDir();

describe('recoverTornTail', () => {
  it('leaves a file ending in a newline, an empty file and a missing file alone', () => {
    const file = path.join(tempDir(), 'ok.jsonl');
    expect(recoverTornTail(file)).toEqual({ recovered: false });
    fs.writeFileSync(file, '');
    expect(recoverTornTail(file)).toEqual({ recovered: false });
    fs.writeFileSync(file, '{"a":1}\n');
    expect(recoverTornTail(file)).toEqual({ recovered: false });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(fs.existsSync(`${file}.corrupt`)).toBe(false);
  });

  it('moves the fragment to .corrupt byte for byte and cuts at the last newline', () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const good = Buffer.from('{"seq":1}\n{"seq":2,"t":"日本"}\n');
    // Cut in the middle of a multi-byte character, and longer than a chunk.
    const whole = Buffer.from(`{"seq":3,"t":"${'😀'.repeat(CHUNK_BYTES / 2)}"}`);
    const fragment = whole.subarray(0, whole.length - 5);
    fs.writeFileSync(file, Buffer.concat([good, fragment]));

    expect(recoverTornTail(file)).toEqual({
      recovered: true,
      bytes: fragment.length,
      corruptPath: `${file}.corrupt`,
      offset: good.length,
    });
    expect(fs.readFileSync(file).equals(good)).toBe(true);
    expect(
      fs.readFileSync(`${file}.corrupt`).equals(Buffer.concat([fragment, Buffer.from('\n')])),
    ).toBe(true);
    expect(recoverTornTail(file)).toEqual({ recovered: false });
  });

  it('appends each repeated recovery as its own line', () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    fs.writeFileSync(file, '{"seq":1}\n{"se');
    expect(recoverTornTail(file)).toMatchObject({ recovered: true, bytes: 4, offset: 10 });
    fs.appendFileSync(file, '{"seq":2}\n{"seq":3,"x"');
    expect(recoverTornTail(file)).toMatchObject({ recovered: true, bytes: 12, offset: 20 });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"seq":1}\n{"seq":2}\n');
    expect(fs.readFileSync(`${file}.corrupt`, 'utf8')).toBe('{"se\n{"seq":3,"x"\n');
  });

  it('truncates a file that is one partial line to zero', () => {
    const file = path.join(tempDir(), 'one.jsonl');
    const content = 'q'.repeat(CHUNK_BYTES * 3 + 1);
    fs.writeFileSync(file, content);
    expect(recoverTornTail(file)).toEqual({
      recovered: true,
      bytes: content.length,
      corruptPath: `${file}.corrupt`,
      offset: 0,
    });
    expect(fs.statSync(file).size).toBe(0);
    expect(fs.readFileSync(`${file}.corrupt`, 'utf8')).toBe(`${content}\n`);
  });
});
