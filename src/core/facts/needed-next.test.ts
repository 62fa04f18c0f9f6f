import { describe, expect, it } from 'vitest';
import type { CurrentMessage } from '../../shared/task-types';
import { toolCall } from '../compaction/test-support/records';
import {
  findReferences,
  futureReferenceRecall,
  neededNext,
  reReadsAfter,
  typedFacts,
} from './needed-next';

const user = (content: string): CurrentMessage => ({ role: 'user', content });
const said = (content: string): CurrentMessage => ({ role: 'assistant', content });
const call = (id: string, name: string, args: unknown): CurrentMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: [toolCall(id, name, args)],
});
const result = (id: string, content: string): CurrentMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
});

describe('what the agent needed next', () => {
  const compacted: CurrentMessage[] = [
    user('Fix the flaky retry in src/net/retry.ts (issue #412)'),
    call('c1', 'Read', { file_path: '/repo/src/net/retry.ts' }),
    result('c1', 'export function backoffDelay(attempt) { return 250 * 2 ** attempt }'),
    call('c2', 'Bash', { command: 'git checkout -b fix/retry-412 && go test ./...' }),
    result('c2', 'FAIL TestRetry (1.52s)\nok 3 tests passed in 870 ms'),
    said('The delay grows from 250 ms; commit 3fa9c21 added the cap.'),
  ];

  it('counts facts the agent typed after the point that the compacted span held', () => {
    const after: CurrentMessage[] = [
      call('c3', 'Edit', {
        file_path: '/repo/src/net/retry.ts',
        old_string: 'backoffDelay(attempt)',
        new_string: 'backoffDelay(attempt, maxDelayMs)',
      }),
      // A tool output after the point is not the agent's own: its names do not count.
      result('c3', 'edited; see also jitterRatio in src/net/jitter.ts'),
      said('Pushed fix/retry-412; the cap from 3fa9c21 stays, closing #412 after 870 ms runs.'),
    ];
    const needed = neededNext(compacted, after).map((f) => `${f.kind} ${f.text}`);
    expect(needed).toEqual(
      expect.arrayContaining([
        'path /repo/src/net/retry.ts',
        'identifier backoffDelay',
        'reference fix/retry-412',
        'reference 3fa9c21',
        'reference #412',
        'number 870 ms',
      ]),
    );
    // New in the after span (maxDelayMs) or only in a later output (jitterRatio): not needed.
    expect(needed.join('\n')).not.toMatch(/maxDelayMs|jitterRatio|jitter\.ts/);
  });

  it('scores a new context by the share of those facts it holds verbatim', () => {
    const after = [said('Now backoffDelay in /repo/src/net/retry.ts caps at 250 ms, see #412.')];
    const needed = neededNext(compacted, after);
    expect(needed.map((f) => f.text).sort()).toEqual(
      ['#412', '/repo/src/net/retry.ts', '250 ms', 'backoffDelay'].sort(),
    );
    const recall = futureReferenceRecall(needed, 'Summary: fixing #412 in /repo/src/net/retry.ts');
    expect(recall).toMatchObject({ needed: 4, kept: 2, frr: 0.5 });
    expect(recall.lost.map((f) => f.text).sort()).toEqual(['250 ms', 'backoffDelay']);
    expect(futureReferenceRecall([], 'x').frr).toBeNull();
  });

  it('leaves the agent’s reasoning out on both sides', () => {
    const thinking: CurrentMessage = {
      role: 'assistant',
      name: 'reasoning',
      content: 'maybe rateLimiterState matters',
    };
    expect(neededNext([thinking], [said('check rateLimiterState')])).toEqual([]);
    expect(neededNext([said('rateLimiterState is set')], [thinking])).toEqual([]);
  });

  it('reads every argument value of a call, however nested', () => {
    const typed = typedFacts(
      call('c9', 'MultiEdit', { edits: [{ new_string: 'cfg.retryBudget = 5 * time.Second' }] }),
    );
    expect([...typed.keys()]).toEqual(expect.arrayContaining(['cfg.retryBudget', 'time.Second']));
  });

  it('finds issue numbers, commit hashes and branch names', () => {
    expect(findReferences('see #12 and a1b2c3d4e5; git push origin feat/login-page')).toEqual([
      '#12',
      'a1b2c3d4e5',
      'feat/login-page',
    ]);
    // A colour, a word of hex letters only, an HTML entity: not references.
    expect(findReferences('color #fff, deadbeef, &#123;')).toEqual([]);
  });
});

describe('re-reads after a compaction', () => {
  it('counts files read again and commands run again whose output the span held', () => {
    const compacted = [
      call('a', 'Read', { file_path: 'src/a.ts' }),
      result('a', 'x'.repeat(400)),
      call('b', 'Bash', { command: 'npm test' }),
      result('b', 'ok'),
    ];
    const after = [
      call('c', 'Read', { file_path: 'src/a.ts' }),
      result('c', 'x'.repeat(400)),
      call('d', 'Read', { file_path: 'src/b.ts' }),
      result('d', 'y'),
      call('e', 'Bash', { command: 'npm test' }),
      result('e', 'ok again'),
    ];
    const reReads = reReadsAfter(compacted, after);
    expect(reReads.count).toBe(2);
    expect(reReads.tokens).toBeGreaterThanOrEqual(100);
    expect(reReads.examples).toEqual(['read src/a.ts', 'command npm test']);
  });
});
