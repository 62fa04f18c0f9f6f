import { describe, expect, it } from 'vitest';
import {
  MAX_ACTIONS,
  MAX_GOAL_CHARS,
  MAX_OBSERVATIONS,
  SNAPSHOT_HEADER,
  buildSnapshot,
  formatSnapshot,
  isSnapshotEntry,
  parseSnapshot,
  shortArgs,
} from './context-snapshot';
import { ViewBuilder, makeRecord } from './test-support/records';
import { createdEntry, entryFromRecord } from './view';

function task(): ViewBuilder {
  const b = new ViewBuilder();
  b.system('You are a coding agent.');
  b.user('Fix the failing login test in src/auth.');
  return b;
}

describe('buildSnapshot', () => {
  it('is planning before any tool ran', () => {
    const b = task();
    const s = buildSnapshot(b.entries);
    expect(s).toEqual({
      goal: 'Fix the failing login test in src/auth.',
      completedActions: [],
      currentPhase: 'planning',
      keyObservations: [],
      earlierActionCount: 0,
    });
  });

  it('lists tool calls in order with short arguments and marks failed ones', () => {
    const b = task();
    b.call('read_file', { path: 'src/auth/login.ts' }, 'export function login() {}');
    b.call('run_command', { command: 'npm test' }, 'FAILED login.test.ts\nexit code 1');
    const s = buildSnapshot(b.entries);
    expect(s.currentPhase).toBe('executing');
    expect(s.completedActions).toEqual([
      'read_file(path="src/auth/login.ts")',
      'run_command(command="npm test") → error',
    ]);
    expect(s.keyObservations).toEqual(['run_command → FAILED login.test.ts']);
  });

  it('keeps the last MAX_ACTIONS actions and counts the earlier ones', () => {
    const b = task();
    for (let i = 0; i < 20; i++) b.call('read_file', { path: `f${i}.ts` }, 'ok');
    const s = buildSnapshot(b.entries);
    expect(s.completedActions).toHaveLength(MAX_ACTIONS);
    expect(s.completedActions[0]).toBe('read_file(path="f12.ts")');
    expect(s.completedActions.at(-1)).toBe('read_file(path="f19.ts")');
    expect(s.earlierActionCount).toBe(12);
    expect(formatSnapshot(s)).toContain('Actions (20 in all; 12 earlier not listed):');
  });

  it('is completed when the last assistant message calls no tool, and keeps its conclusion', () => {
    const b = task();
    b.call('run_command', { command: 'npm test' }, 'Tests 3 passed, 0 failed\nexit code 0');
    b.assistant('The login test passes now: the token was compared before trimming.');
    const s = buildSnapshot(b.entries);
    expect(s.currentPhase).toBe('completed');
    expect(s.keyObservations).toEqual([
      'assistant: The login test passes now: the token was compared before trimming.',
    ]);
  });

  it('is not completed when the user asked for more after the answer', () => {
    const b = task();
    b.call('read_file', { path: 'a.ts' }, 'x');
    b.assistant('Done.');
    b.user('Now also update the docs.');
    expect(buildSnapshot(b.entries).currentPhase).toBe('executing');
  });

  it('cuts the goal and puts it on one line', () => {
    const b = new ViewBuilder();
    b.user(`Goal\n\nwith lines ${'y'.repeat(2000)}`);
    const s = buildSnapshot(b.entries);
    expect(s.goal.length).toBe(MAX_GOAL_CHARS);
    expect(s.goal.startsWith('Goal with lines yyy')).toBe(true);
    expect(s.goal.endsWith('…')).toBe(true);
  });

  it('merges repeated errors and bounds the observations', () => {
    const b = task();
    for (let i = 0; i < 3; i++)
      b.call('update_reservation', { i }, 'Error: gift card balance is not enough');
    for (let i = 0; i < 10; i++) b.call('run', { i }, `Error: failure number ${i}`);
    b.assistant('I could not finish.');
    const s = buildSnapshot(b.entries);
    expect(s.keyObservations).toHaveLength(MAX_OBSERVATIONS);
    expect(s.keyObservations.at(-1)).toBe('assistant: I could not finish.');
    expect(s.keyObservations.at(-2)).toBe('run → Error: failure number 9');

    const c = task();
    for (let i = 0; i < 3; i++)
      c.call('update_reservation', { i }, 'Error: gift card balance is not enough');
    expect(buildSnapshot(c.entries).keyObservations).toEqual([
      'update_reservation → Error: gift card balance is not enough (3 times)',
    ]);
  });

  it('continues an earlier snapshot: its goal stays and only newer actions are added', () => {
    // the window ran once: the first user message is gone, the snapshot (seq 50) holds the goal
    const earlier = formatSnapshot({
      goal: 'Fix the login test',
      completedActions: ['a()', 'b()'],
      currentPhase: 'executing',
      keyObservations: ['run → Error: x'],
      earlierActionCount: 10,
    });
    const view = [
      entryFromRecord(makeRecord(1, { role: 'system', content: 'sys' })),
      entryFromRecord(
        makeRecord(50, { role: 'user', content: earlier, kind: 'summary', compaction_id: 1 }),
      ),
      // kept from before the snapshot: already counted in it
      entryFromRecord(
        makeRecord(40, {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'k', type: 'function', function: { name: 'b', arguments: '{}' } }],
        }),
      ),
      entryFromRecord(
        makeRecord(41, { role: 'tool', content: 'ok', tool_call_id: 'k', tool_name: 'b' }),
      ),
      // new since the snapshot
      entryFromRecord(
        makeRecord(51, {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'n', type: 'function', function: { name: 'c', arguments: '{}' } }],
        }),
      ),
      entryFromRecord(
        makeRecord(52, { role: 'tool', content: 'Error: x', tool_call_id: 'n', tool_name: 'run' }),
      ),
    ];
    const s = buildSnapshot(view);
    expect(s.goal).toBe('Fix the login test');
    expect(s.completedActions).toEqual(['a()', 'b()', 'c() → error']);
    expect(s.earlierActionCount).toBe(10);
    expect(s.keyObservations).toEqual(['run → Error: x (2 times)']);
  });
});

describe('formatSnapshot / parseSnapshot', () => {
  it('renders a compact block starting with the header and reads it back', () => {
    const s = {
      goal: 'Open Safari and search Google',
      completedActions: ['osa(script="open -a Safari")', 'click(x=1, y=2)', 'type(text="google")'],
      currentPhase: 'completed' as const,
      keyObservations: ['assistant: Safari shows Google.'],
      earlierActionCount: 0,
    };
    const text = formatSnapshot(s);
    expect(text.startsWith(SNAPSHOT_HEADER)).toBe(true);
    expect(text).toBe(
      [
        `${SNAPSHOT_HEADER} (older messages were left out of the context; this is what they established)`,
        'Goal: Open Safari and search Google',
        'Phase: completed',
        'Actions (3 in all):',
        '- osa(script="open -a Safari")',
        '- click(x=1, y=2)',
        '- type(text="google")',
        'Key observations:',
        '- assistant: Safari shows Google.',
      ].join('\n'),
    );
    expect(parseSnapshot(text)).toEqual(s);
  });

  it('says when there is nothing yet', () => {
    const s = {
      goal: '',
      completedActions: [],
      currentPhase: 'planning' as const,
      keyObservations: [],
      earlierActionCount: 0,
    };
    const text = formatSnapshot(s);
    expect(text).toContain('Goal: (unknown)');
    expect(text).toContain('Actions: none yet');
    expect(text).toContain('Key observations: none');
    expect(parseSnapshot(text)).toEqual(s);
  });

  it('does not read other text as a snapshot', () => {
    expect(parseSnapshot('hello')).toBeUndefined();
  });
});

describe('isSnapshotEntry', () => {
  it('recognizes snapshots a compaction created, not a user typing the header', () => {
    const text = formatSnapshot(buildSnapshot([]));
    expect(isSnapshotEntry(createdEntry({ role: 'user', content: text }, 'summary'))).toBe(true);
    expect(
      isSnapshotEntry(
        entryFromRecord(makeRecord(3, { role: 'user', content: text, kind: 'summary' })),
      ),
    ).toBe(true);
    expect(isSnapshotEntry(entryFromRecord(makeRecord(3, { role: 'user', content: text })))).toBe(
      false,
    );
  });
});

describe('shortArgs', () => {
  it('writes key=value pairs, cut short', () => {
    expect(shortArgs('{"a": 1, "b": "x"}')).toBe('a=1, b="x"');
    expect(shortArgs(JSON.stringify({ content: 'z'.repeat(500) }))).toBe(
      `content="${'z'.repeat(38)}…`,
    );
    expect(shortArgs('not json')).toBe('not json');
    expect(shortArgs('[1,2]')).toBe('[1,2]');
    expect(
      shortArgs(JSON.stringify({ a: 'q'.repeat(30), b: 'q'.repeat(30), c: 'q'.repeat(30) })).length,
    ).toBe(100);
  });
});
