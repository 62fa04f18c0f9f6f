import { beforeEach, describe, expect, it } from 'vitest';
import { AUTO_COLUMNS, DEFAULT_HIDDEN, hiddenColumns, useColumnStore } from './column-store';

describe('the task table columns', () => {
  beforeEach(() => useColumnStore.getState().reset());

  it('shows the host column by itself only when tasks come from more than one host', () => {
    const state = useColumnStore.getState();
    expect(state.auto).toEqual(AUTO_COLUMNS);
    expect(hiddenColumns(state, { hosts: 1 })).toEqual([...DEFAULT_HIDDEN, 'host']);
    expect(hiddenColumns(state, { hosts: 0 })).toContain('host');
    expect(hiddenColumns(state, { hosts: 2 })).toEqual(DEFAULT_HIDDEN);
  });

  it('keeps what the user chose for the host column, whatever the hosts', () => {
    useColumnStore.getState().setVisible('host', true);
    expect(hiddenColumns(useColumnStore.getState(), { hosts: 1 })).not.toContain('host');
    useColumnStore.getState().setVisible('host', false);
    expect(hiddenColumns(useColumnStore.getState(), { hosts: 3 })).toContain('host');
    useColumnStore.getState().reset();
    expect(hiddenColumns(useColumnStore.getState(), { hosts: 3 })).not.toContain('host');
  });

  it('shows and hides the other columns as chosen', () => {
    useColumnStore.getState().setVisible('user', true);
    useColumnStore.getState().setVisible('model', false);
    const hidden = hiddenColumns(useColumnStore.getState(), { hosts: 2 });
    expect(hidden).not.toContain('user');
    expect(hidden).toContain('model');
  });
});
