import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_FIXTURES } from '../../../test/support/real-fixtures';
import { ClaudeEntrySchema, parseClaudeEntry } from './claude-code-entry';

/** Every line of the real Claude Code sessions (small files: read whole in a test). */
function realEntries(): unknown[] {
  const files = ['claude-code', 'claude-code-compacted'].flatMap((folder) =>
    fs
      .readdirSync(path.join(REAL_FIXTURES, folder))
      .map((name) => path.join(REAL_FIXTURES, folder, name)),
  );
  return files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown),
  );
}

describe('parseClaudeEntry', () => {
  it('reads every real entry as the schema does, without copying a well-formed one', () => {
    const entries = realEntries();
    expect(entries.length).toBeGreaterThan(1000);
    for (const value of entries) {
      const parsed = parseClaudeEntry(value);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      expect(parsed.entry).toEqual(ClaudeEntrySchema.parse(value));
      expect(parsed.entry).toBe(value);
    }
  });

  it('drops an odd descriptive field as the schema does and keeps the message', () => {
    const value = {
      type: 'user',
      cwd: 42,
      isSidechain: 'no',
      message: { role: 'user', content: 'hi', usage: { input_tokens: '3', output_tokens: 2 } },
    };
    const parsed = parseClaudeEntry(value);
    expect(parsed).toEqual({ ok: true, entry: ClaudeEntrySchema.parse(value) });
    if (!parsed.ok) return;
    expect(parsed.entry.cwd).toBeUndefined();
    expect(parsed.entry.isSidechain).toBeUndefined();
    expect(parsed.entry.message?.usage?.input_tokens).toBeUndefined();
    expect(parsed.entry.message?.usage?.output_tokens).toBe(2);
    expect(parsed.entry.message?.content).toBe('hi');
  });

  it('says what is wrong with a malformed entry', () => {
    for (const value of [
      [1, 2],
      null,
      'user',
      { uuid: 'a' },
      { type: 'user', message: { content: 7 } },
      { type: 'user', message: 'hi' },
    ]) {
      const parsed = parseClaudeEntry(value);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.error).toMatch(/^not a Claude Code entry \(.+\)$/);
    }
  });
});
