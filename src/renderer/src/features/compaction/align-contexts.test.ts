import { describe, expect, it } from 'vitest';
import type { DiffMessage } from '../../../../shared/api/compaction-api';
import { alignContexts } from './align-contexts';

const msg = (seq: number | null, content: string, role = 'user'): DiffMessage => ({
  seq,
  role,
  content,
  tokens: Math.ceil(content.length / 4),
  clipped: false,
});

describe('alignContexts', () => {
  it('pairs messages by seq and tells kept, removed, added and changed apart', () => {
    const before = [
      msg(1, 'sys', 'system'),
      msg(2, 'a'),
      msg(3, 'b'),
      msg(4, 'long output', 'tool'),
    ];
    const after = [
      msg(1, 'sys', 'system'),
      msg(9, 'SUMMARY', 'assistant'),
      msg(4, '[trimmed]', 'tool'),
    ];
    expect(alignContexts(before, after).map((r) => r.type)).toEqual([
      'same',
      'removed',
      'removed',
      'added',
      'changed',
    ]);
  });

  it('treats view-only messages with the same text as the same message', () => {
    const synthetic = msg(null, 'no result in this context', 'tool');
    expect(alignContexts([synthetic], [{ ...synthetic }]).map((r) => r.type)).toEqual(['same']);
  });

  it('handles empty sides', () => {
    expect(alignContexts([], [msg(1, 'x')]).map((r) => r.type)).toEqual(['added']);
    expect(alignContexts([msg(1, 'x')], []).map((r) => r.type)).toEqual(['removed']);
    expect(alignContexts([], [])).toEqual([]);
  });
});
