import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from './context-store';
import { stagingDir } from './contexts-layout';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const UUID = '0b5c5f4e-8a8e-4c55-9d3b-3d2f1c1a7e05';

describe('a staged history task', () => {
  it('goes when the commit that published it rolls back, and stays once its row is there', () => {
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const completed = path.join(store.root, 'completed');
    const first = store.stageHistoryTask({ uuid: UUID, title: 'a session' });
    expect(() =>
      store.repo.write(() => {
        first.publish();
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    // Renamed inside the transaction, which rolled the row back.
    expect(fs.readdirSync(completed)).toEqual([UUID]);
    expect(store.repo.get(UUID)).toBeUndefined();
    first.discard();
    expect(fs.readdirSync(completed)).toEqual([]);

    // The redo: a staging folder this process left behind is no obstacle.
    fs.mkdirSync(stagingDir(store.root, 'completed', UUID));
    const again = store.stageHistoryTask({ uuid: UUID, title: 'a session' });
    again.publish();
    // Its row committed (a fleet index commits it apart from the sync's own transaction).
    again.discard();
    expect(fs.readdirSync(completed)).toEqual([UUID]);
    expect(store.repo.get(UUID)).toMatchObject({ status: 'completed', title: 'a session' });
    store.close();
  });
});
