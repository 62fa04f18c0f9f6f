import { describe, expect, it } from 'vitest';
import { paramSpec, paramText, parseParam } from './param-fields';

describe('strategy parameter fields', () => {
  it('infers kinds and limits from the defaults and names of the strategies parameters', () => {
    expect(paramSpec('keep_recent_messages', 5)).toMatchObject({ kind: 'integer', min: 0 });
    expect(paramSpec('threshold_ratio', 0.8)).toMatchObject({ kind: 'number', min: 0, max: 1 });
    expect(paramSpec('fraction', 0.5)).toMatchObject({ kind: 'number', max: 1 });
    expect(paramSpec('threshold_percent', 100)).toMatchObject({ min: 5, max: 100 });
    expect(paramSpec('context_budget_tokens', null)).toMatchObject({
      kind: 'integer',
      nullable: true,
    });
    expect(paramSpec('token_threshold', null)).toMatchObject({ kind: 'integer', nullable: true });
    expect(paramSpec('model', null)).toMatchObject({ kind: 'text', nullable: true });
    expect(paramSpec('summary_directives', [])).toMatchObject({ kind: 'list' });
    expect(paramSpec('summary_role', 'assistant')).toMatchObject({ kind: 'text', nullable: false });
  });

  it('shows a structured parameter as config.yaml sets it, not as "[object Object]"', () => {
    const ledger = { max_tokens: 6000, share: 0.06 };
    expect(paramSpec('fact_ledger', ledger)).toMatchObject({ kind: 'fixed' });
    expect(paramText(ledger)).toBe('max_tokens: 6000, share: 0.06');
  });

  it('parses valid values and explains invalid ones', () => {
    const keep = paramSpec('keep_recent_messages', 5);
    expect(parseParam(keep, ' 7 ')).toEqual({ ok: true, value: 7 });
    expect(parseParam(keep, '2.5')).toEqual({ ok: false, error: { key: 'invalidInteger' } });
    expect(parseParam(keep, 'x')).toEqual({ ok: false, error: { key: 'invalidNumber' } });
    expect(parseParam(keep, '')).toEqual({ ok: false, error: { key: 'invalidNumber' } });
    expect(parseParam(keep, '-1')).toEqual({ ok: false, error: { key: 'invalidMin', min: 0 } });
    const ratio = paramSpec('threshold_ratio', 0.8);
    expect(parseParam(ratio, '1.5')).toEqual({
      ok: false,
      error: { key: 'invalidRange', min: 0, max: 1 },
    });
    expect(parseParam(paramSpec('context_budget_tokens', null), '')).toEqual({
      ok: true,
      value: null,
    });
    expect(parseParam(paramSpec('retain_directives', []), 'a\n\n b \n')).toEqual({
      ok: true,
      value: ['a', 'b'],
    });
  });

  it('shows values as text and back', () => {
    expect(paramText(null)).toBe('');
    expect(paramText(['a', 'b'])).toBe('a\nb');
    expect(paramText(0.5)).toBe('0.5');
  });
});
