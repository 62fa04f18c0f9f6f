import { describe, expect, it } from 'vitest';
import { AGENT_LABELS, AGENTS, agentLabel } from '../../shared/agents';
import { sourceKinds } from './source-kinds';

/**
 * Every agent the sources read has its name in the one table of display names
 * (src/shared/agents.ts), which the task list's Agent column, its agent picker, Settings ›
 * Sources and exports use: a new source kind without it would show its bare id.
 */
describe('source kinds and display names', () => {
  it('every source kind is an agent of the table, under the same name', () => {
    const kinds = sourceKinds();
    expect(kinds.length).toBeGreaterThanOrEqual(20);
    for (const kind of kinds) {
      expect(AGENTS as readonly string[], kind.id).toContain(kind.id);
      expect(agentLabel(kind.id, ''), kind.id).toBe(kind.label);
    }
    // Names people can tell apart: no two agents share one.
    expect(new Set(Object.values(AGENT_LABELS)).size).toBe(AGENTS.length);
  });
});
