import { describe, expect, it } from 'vitest';
import { searchSessionsInput } from '../../../../shared/api/search-api';
import { OWN_AGENT } from '../browser/task-query';
import { toSearchInput } from './search-input';
import { NO_MESSAGE_SEARCH } from './search-store';

describe('toSearchInput', () => {
  it('is null for an empty or blank query', () => {
    expect(toSearchInput(NO_MESSAGE_SEARCH, 50)).toBeNull();
    expect(toSearchInput({ ...NO_MESSAGE_SEARCH, query: '   ' }, 50)).toBeNull();
  });

  it('carries every filter the contract takes, in a form the contract accepts', () => {
    const input = toSearchInput(
      {
        query: ' pydicom/dataset.py ',
        exact: true,
        agent: OWN_AGENT,
        repo: 'acme/parser',
        role: 'tool',
        tool: ' Bash ',
        since: '2025-09-01',
      },
      100,
    );
    expect(input).toMatchObject({
      query: 'pydicom/dataset.py',
      exact: true,
      agent: '',
      repo: 'acme/parser',
      role: 'tool',
      tool: 'Bash',
      limit: 100,
    });
    expect(new Date(input!.since!).getDate()).toBe(1);
    expect(searchSessionsInput.safeParse(input).success).toBe(true);
  });

  it('leaves out the filters that are not set', () => {
    expect(toSearchInput({ ...NO_MESSAGE_SEARCH, query: 'x' }, 50)).toEqual({
      query: 'x',
      exact: false,
      limit: 50,
    });
  });
});
