import { describe, expect, it } from 'vitest';
import { AUTO_COLUMNS, DEFAULT_HIDDEN } from './column-store';
import { fitColumns } from './column-fit';
import { gridLayout, TASK_COLUMNS } from './task-columns';

// What a one-host list shows by default: the auto Host column shows only for several hosts.
const byDefault = (id: string): boolean =>
  !DEFAULT_HIDDEN.includes(id) && !AUTO_COLUMNS.includes(id);
const shown = TASK_COLUMNS.filter((c) => byDefault(c.id));
const ids = (cs: readonly { id: string }[]) => cs.map((c) => c.id);

describe('fitColumns', () => {
  it('keeps every shown column where they fit, and where the width is not known yet', () => {
    const { minWidth } = gridLayout(shown, {});
    expect(fitColumns(shown, {}, minWidth)).toEqual({ columns: shown, squeezed: [] });
    expect(fitColumns(shown, {}, null).squeezed).toEqual([]);
  });

  it('sets the least read columns aside until the rest fit, never status, title or cost', () => {
    const fit = fitColumns(shown, {}, 850);
    expect(gridLayout(fit.columns, {}).minWidth).toBeLessThanOrEqual(850);
    expect(fit.squeezed[0]).toBe('compactions');
    expect(ids(fit.columns)).toEqual(expect.arrayContaining(['status', 'title', 'cost']));
    expect([...ids(fit.columns), ...fit.squeezed].sort()).toEqual(ids(shown).sort());
    const tiny = fitColumns(shown, {}, 100);
    expect(ids(tiny.columns)).toEqual(['status', 'title', 'cost']);
  });

  it('gives up a column the user turned on last', () => {
    const withDuration = TASK_COLUMNS.filter((c) => byDefault(c.id) || c.id === 'duration');
    const { minWidth } = gridLayout(withDuration, {});
    const fit = fitColumns(withDuration, {}, minWidth - 10, ['duration']);
    expect(fit.squeezed).toEqual(['compactions']);
    expect(fitColumns(withDuration, {}, minWidth - 10).squeezed).toEqual(['duration']);
  });

  it('counts widths the user dragged', () => {
    const wide = fitColumns(shown, { title: 700 }, 1300);
    expect(wide.squeezed.length).toBeGreaterThan(0);
    expect(ids(wide.columns)).toContain('title');
  });
});
