import { describe, expect, it } from 'vitest';
import type { SessionSearchHit } from '../../../../shared/api/search-api';
import { groupHits, matchedText } from './group-hits';

function hit(uuid: string, seq: number, timestamp: string | null): SessionSearchHit {
  return {
    uuid,
    seq,
    snippet: `text ${seq}`,
    match: [0, 4],
    role: 'user',
    tool: null,
    timestamp,
    title: `title ${uuid}`,
    agent: 'codex',
    repository: null,
  };
}

describe('groupHits', () => {
  it('puts each session once, in first-seen order, with its hits in order and its newest time', () => {
    const groups = groupHits([
      hit('b', 3, '2026-01-02T00:00:00Z'),
      hit('b', 9, '2026-01-03T00:00:00Z'),
      hit('a', 1, null),
      hit('b', 12, '2026-01-01T00:00:00Z'),
    ]);
    expect(groups.map((g) => g.uuid)).toEqual(['b', 'a']);
    expect(groups[0]!.hits.map((h) => h.seq)).toEqual([3, 9, 12]);
    expect(groups[0]!.latest).toBe('2026-01-03T00:00:00Z');
    expect(groups[0]!.title).toBe('title b');
    expect(groups[1]!.latest).toBeNull();
  });
});

describe('matchedText', () => {
  it('is the snippet between the match bounds, or null without a match', () => {
    expect(matchedText({ snippet: 'see Foo.py here', match: [4, 10] })).toBe('Foo.py');
    expect(matchedText({ snippet: 'x', match: null })).toBeNull();
    expect(matchedText({ snippet: 'a  b', match: [1, 3] })).toBeNull();
  });
});
