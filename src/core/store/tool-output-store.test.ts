import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { ToolOutputStore } from './tool-output-store';

const tempDir = useTempDir('cwb-tool-outputs-');

afterEach(() => {
  vi.restoreAllMocks();
});

/** The paths fs.promises.open is asked to open from now on (what sync() fsyncs). */
function watchOpens(): string[] {
  const opened: string[] = [];
  const open = fs.promises.open.bind(fs.promises);
  vi.spyOn(fs.promises, 'open').mockImplementation((file, flags, mode) => {
    opened.push(String(file));
    return open(file, flags, mode);
  });
  return opened;
}

describe('ToolOutputStore', () => {
  it('save writes the output durably and reads it back by lines', () => {
    const store = new ToolOutputStore(tempDir());
    const { ref, bytes } = store.save('a\nb\nc', 'read');
    expect(ref).toMatch(/^read_[0-9a-f]{12}$/);
    expect(bytes).toBe(5);
    expect(store.readLines(ref, 1, 5)).toEqual({ lines: ['b', 'c'], more: false });
    // nothing left for sync(): a save is durable on return
    expect(fs.readdirSync(store.dir)).toEqual([`${ref}.txt`]);
  });

  it('saveCopy writes at once; sync fsyncs every copy once, and nothing the second time', async () => {
    const store = new ToolOutputStore(tempDir());
    const refs = Array.from({ length: 40 }, (_, i) => store.saveCopy(`output ${i}`, 'trim').ref);
    expect(store.readLines(refs[7]!).lines).toEqual(['output 7']);
    const opened = watchOpens();
    await store.sync();
    expect(opened.sort()).toEqual(refs.map((ref) => path.join(store.dir, `${ref}.txt`)).sort());
    opened.length = 0;
    await store.sync();
    expect(opened).toEqual([]);
  });

  it('saveCopy never overwrites an existing file and refuses refs outside its alphabet', () => {
    const store = new ToolOutputStore(tempDir());
    expect(() => store.readLines('../../etc/passwd')).toThrow(/is not a tool output ref/);
    const { ref } = store.saveCopy('x', '../..//');
    expect(ref).toMatch(/^out_[0-9a-f]{12}$/);
  });
});
