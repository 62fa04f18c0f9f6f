import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { importPaths } from './import-file';
import { openHandsFormat } from './openhands';
import { collectEvents, messageKeys } from './session-test-support';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('OpenHands trajectories', () => {
  it('pair each action with the observation that answers it', async () => {
    const events = await collectEvents(
      openHandsFormat,
      realFixture('openhands', 'wrong_initial_state.json'),
    );
    const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const results = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(results).toEqual(calls);
    expect(messages[0]!.timestamp).toBe('2025-01-27T23:16:50.239Z'); // no zone in the file: UTC
  });

  it('read a session events/ folder as one session, whichever event file is given', async () => {
    const trajectory = JSON.parse(
      fs.readFileSync(realFixture('openhands', 'basic.json'), 'utf8'),
    ) as { id: number }[];
    const dir = path.join(tempDir(), 'sessions', 'abc', 'events');
    fs.mkdirSync(dir, { recursive: true });
    for (const e of trajectory) fs.writeFileSync(path.join(dir, `${e.id}.json`), JSON.stringify(e));
    const fromTrajectory = messageKeys(
      await collectEvents(openHandsFormat, realFixture('openhands', 'basic.json')),
    );
    const fromEvents = messageKeys(await collectEvents(openHandsFormat, path.join(dir, '3.json')));
    expect(fromEvents).toEqual(fromTrajectory);
    const store = ContextStore.open(tempDir());
    try {
      const run = await importPaths(store, [dir]);
      expect(run.failed).toEqual([]);
      expect(run.results.map((r) => [r.format, r.tasks.length, r.tasks[0]!.messages])).toEqual([
        ['openhands', 1, 4],
      ]);
    } finally {
      store.close();
    }
  });
});
