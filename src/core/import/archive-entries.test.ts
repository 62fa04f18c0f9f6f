import { describe, expect, it } from 'vitest';
import { classifyEntry, type ZipEntryInfo } from './archive-entries';
import { TASK_FILES } from '../store/contexts-layout';

const UUID = '550e8400-e29b-41d4-a716-446655440000';
const UNIX = 3 << 8;

function entry(fileName: string, extra: Partial<ZipEntryInfo> = {}): ZipEntryInfo {
  return {
    fileName,
    uncompressedSize: 10,
    externalFileAttributes: (0o100644 << 16) >>> 0,
    versionMadeBy: UNIX | 63,
    compressionMethod: 8,
    encrypted: false,
    ...extra,
  };
}

describe('classifyEntry', () => {
  it('accepts the manifest, task folders and the known task files only', () => {
    expect(classifyEntry(entry('manifest.json'), 100)).toEqual({ kind: 'manifest' });
    expect(
      classifyEntry(entry(`${UUID}/`, { externalFileAttributes: (0o040755 << 16) >>> 0 }), 100),
    ).toEqual({ kind: 'directory', uuid: UUID });
    expect(classifyEntry(entry(`${UUID}/tool_outputs/`), 100)).toEqual({
      kind: 'directory',
      uuid: UUID,
    });
    for (const name of [
      'messages.jsonl',
      'messages.jsonl.idx',
      'current.jsonl',
      'metadata.json',
      'final_summary.txt',
      'tools.jsonl.corrupt',
      'tool_outputs/out_abc123.txt',
    ]) {
      expect(classifyEntry(entry(`${UUID}/${name}`), 100)).toEqual({
        kind: 'file',
        uuid: UUID,
        relative: name,
      });
    }
  });

  it('accepts every file the store names, so new task files travel', () => {
    for (const name of Object.values(TASK_FILES)) {
      if (name === TASK_FILES.toolOutputs) continue;
      expect(classifyEntry(entry(`${UUID}/${name}`), 100)).toMatchObject({ kind: 'file' });
    }
  });

  it.each([
    ['../evil.sh', /"\.\." or empty path segment/],
    [`${UUID}/../../evil`, /"\.\." or empty path segment/],
    ['/etc/passwd', /absolute path/],
    ['C:/Windows/x', /absolute path/],
    [`${UUID}\\..\\x`, /backslash/],
    [`${UUID}//messages.jsonl`, /empty path segment/],
    [`${UUID}/run.sh`, /not a task file/],
    [`${UUID}/tool_outputs/../../x.txt`, /empty path segment/],
    [`${UUID}/tool_outputs/a b.txt`, /not a task file/],
    ['not-a-uuid/messages.jsonl', /not inside a task folder/],
    [`${UUID}/request.json`, /not a task file/],
    [`${UUID}/sub/`, /not a task folder/],
  ])('refuses the name %s', (name, why) => {
    expect(() => classifyEntry(entry(name), 100)).toThrow(why);
  });

  it('refuses links, devices, encryption, odd compression and oversized entries', () => {
    const name = `${UUID}/messages.jsonl`;
    expect(() =>
      classifyEntry(entry(name, { externalFileAttributes: (0o120777 << 16) >>> 0 }), 100),
    ).toThrow(/symbolic link or special file/);
    expect(() =>
      classifyEntry(entry(name, { externalFileAttributes: (0o010644 << 16) >>> 0 }), 100),
    ).toThrow(/special file/);
    expect(() =>
      classifyEntry(entry(name, { externalFileAttributes: (0o040755 << 16) >>> 0 }), 100),
    ).toThrow(/folder whose name/);
    expect(() => classifyEntry(entry(name, { encrypted: true }), 100)).toThrow(/encrypted/);
    expect(() => classifyEntry(entry(name, { compressionMethod: 12 }), 100)).toThrow(
      /compression method 12/,
    );
    expect(() => classifyEntry(entry(name, { uncompressedSize: 101 }), 100)).toThrow(
      /101 bytes uncompressed, more than the limit of 100/,
    );
    // MS-DOS attributes: the directory bit
    expect(() =>
      classifyEntry(entry(name, { versionMadeBy: 20, externalFileAttributes: 0x10 }), 100),
    ).toThrow(/folder whose name/);
    expect(
      classifyEntry(entry(name, { versionMadeBy: 20, externalFileAttributes: 0x20 }), 100),
    ).toMatchObject({ kind: 'file' });
  });
});
