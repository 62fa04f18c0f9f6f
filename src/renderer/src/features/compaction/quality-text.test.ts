import { describe, expect, it } from 'vitest';
import type { CompactionDiff, DiffMessage } from '../../../../shared/api/compaction-api';
import type { CompactionQualityInfo, FactKind, KindScore } from '../../../../shared/fact-kinds';
import { translate } from '../../i18n/translate';
import { wholeNumber } from '../../format/numbers';
import type { Language } from '../../state/ui-store';
import {
  allFacts,
  breakdownBars,
  keptPercent,
  kindRows,
  percentOf,
  tokenBreakdown,
} from './quality-figures';
import { breakdownText, kindsLine, qualityLine } from './quality-text';
import { compactionStrings, type CompactionStringKey } from './strings';

const tr =
  (language: Language) =>
  (key: CompactionStringKey, vars?: Record<string, string | number>): string =>
    translate(compactionStrings, language, key, vars);
const en = tr('en');
const ja = tr('ja');

function quality(
  byKind: Partial<Record<FactKind, KindScore>>,
  span = { spanMessages: 40, spanTokens: 72_591, replacementTokens: 1_421 },
): CompactionQualityInfo {
  const zero = { total: 0, kept: 0 };
  const kinds = {
    instruction: zero,
    path: zero,
    command: zero,
    error: zero,
    number: zero,
    identifier: zero,
    url: zero,
    ...byKind,
  };
  const scored = ['path', 'command', 'error', 'number', 'identifier'] as const;
  return {
    ...span,
    savedShare: 1 - span.replacementTokens / span.spanTokens,
    facts: {
      byKind: kinds,
      salient: {
        total: scored.reduce((n, k) => n + kinds[k].total, 0),
        kept: scored.reduce((n, k) => n + kinds[k].kept, 0),
      },
      lost: [],
      lostCount: 0,
    },
  };
}

const message = (seq: number, tokens: number, kind?: DiffMessage['kind']): DiffMessage => ({
  seq,
  role: 'assistant',
  content: '',
  tokens,
  clipped: false,
  ...(kind && { kind }),
});

/** The brief's example: 74,670 → 3,500 tokens, of which the summary is 1,421. */
function summaryDiff(): CompactionDiff {
  const q = quality({ path: { total: 16, kept: 14 }, command: { total: 4, kept: 4 } });
  return {
    record: {
      id: 3,
      strategy: 'summarize',
      start_seq: 2,
      end_seq: 41,
      summary: '',
      original_tokens: 72_591,
      summary_tokens: 1_421,
      ratio: 0.02,
      compressed_message_count: 40,
      tokens_saved: 71_170,
      created_at: '2026-05-11T13:28:45Z',
      created_seqs: [90],
      replaced_seqs: [],
      changed_seqs: [],
      planLength: 8,
      undone: false,
    },
    previousId: null,
    before: { messages: [message(1, 2_079)], total: 41, tokens: 74_670 },
    after: {
      messages: [message(1, 2_079), message(90, 1_421, 'summary')],
      total: 7,
      tokens: 3_500,
    },
    quality: q,
  };
}

describe('percentOf', () => {
  it('rounds to whole percents but never claims all or nothing when it is not', () => {
    expect(percentOf(0.9268)).toBe(93);
    expect(percentOf(0.9996)).toBe(99.9);
    expect(percentOf(1)).toBe(100);
    expect(percentOf(0.0004)).toBe(0.1);
    expect(percentOf(0)).toBe(0);
    expect(percentOf(-0.0004)).toBe(-0.1);
    expect(percentOf(-0.25)).toBe(-25);
  });

  it('gives no kept share for a kind the span did not have', () => {
    expect(keptPercent({ total: 0, kept: 0 })).toBeNull();
    expect(keptPercent({ total: 16, kept: 14 })).toBe(88);
  });
});

describe('kinds', () => {
  it('lists the kinds the span had in the extractor’s order, marking the scored ones', () => {
    const q = quality({
      url: { total: 4, kept: 0 },
      path: { total: 16, kept: 14 },
      instruction: { total: 2, kept: 2 },
    });
    expect(kindRows(q).map((r) => [r.kind, r.lost, r.scored])).toEqual([
      ['instruction', 0, false],
      ['path', 2, true],
      ['url', 4, false],
    ]);
    expect(allFacts(q)).toEqual({ total: 22, kept: 16 });
    expect(kindsLine(en, q)).toBe('instructions 2/2 kept · paths 14/16 kept · URLs 0/4 kept');
  });
});

describe('qualityLine', () => {
  it('says what was saved on the span and how many salient facts were kept', () => {
    const q = quality({ path: { total: 16, kept: 14 }, number: { total: 4, kept: 4 } });
    expect(qualityLine(en, q)).toBe('saved 98 % of the span · kept 18/20 facts (90 %)');
    expect(qualityLine(ja, q)).toBe('範囲の 98 % を削減 · 事実 18/20 を保持（90 %）');
  });

  it('says when there was nothing to keep, and when the span grew', () => {
    expect(qualityLine(en, quality({ url: { total: 1, kept: 1 } }))).toBe(
      'saved 98 % of the span · no facts to keep',
    );
    const grew = quality(
      { path: { total: 2, kept: 2 } },
      { spanMessages: 1, spanTokens: 100, replacementTokens: 125 },
    );
    expect(qualityLine(en, grew)).toBe('span 25 % larger · kept 2/2 facts (100 %)');
  });
});

describe('where the token figures come from', () => {
  it('adds the part left alone to the span before and to its replacement after', () => {
    const b = tokenBreakdown(summaryDiff());
    expect(b).toMatchObject({
      before: 74_670,
      after: 3_500,
      spanTokens: 72_591,
      replacementTokens: 1_421,
      restBefore: 2_079,
      restAfter: 2_079,
      spanSaved: 98,
      contextSaved: 95,
    });
    const bars = breakdownBars(b);
    expect(bars.before.rest + bars.before.span).toBeCloseTo(1);
    expect(bars.after.rest + bars.after.replacement).toBeCloseTo(3_500 / 74_670);
  });

  it('explains 74,670 → 3,500 with the summary’s own 1,421 tokens', () => {
    const n = (v: number) => wholeNumber(v, 'en');
    expect(breakdownText(en, n, summaryDiff())).toBe(
      'Compaction #3 took out or shortened 40 messages (72,591 tokens) and put 1,421 tokens in their place — ' +
        'the summary it added (1,421 tokens) — saving 98 % of that span. ' +
        'The other 2,079 tokens of the context (the messages it left alone) stayed as they were, ' +
        'so the whole context went from 74,670 to 3,500 tokens.',
    );
    expect(breakdownText(ja, n, summaryDiff())).toBe(
      '圧縮 #3 は 40 件のメッセージ（72,591 トークン）を外すか短縮し、代わりに 1,421 トークン（追加した要約 1,421 トークン）を入れました。' +
        'その範囲の 98 % を削減しています。' +
        '残りの 2,079 トークン（手を付けなかったメッセージ）はそのままなので、コンテキスト全体は 74,670 → 3,500 トークンになりました。',
    );
  });

  it('names trimmed messages and markers, and a rest that changed beside the span', () => {
    const diff = summaryDiff();
    diff.record.created_seqs = [90];
    diff.record.changed_seqs = [5, 6, 7];
    diff.after.messages = [message(1, 2_079), message(90, 22, 'truncation-marker')];
    diff.quality = quality({}, { spanMessages: 4, spanTokens: 60_000, replacementTokens: 322 });
    diff.before.tokens = 70_000;
    diff.after.tokens = 10_400;
    const text = breakdownText(en, (v) => wholeNumber(v, 'en'), diff);
    expect(text).toContain(
      '— the message it added (22 tokens) plus the new content of the 3 messages it shortened (300 tokens) —',
    );
    expect(text).toContain(
      'The rest of the context went from 10,000 to 10,078 tokens (tool calls repaired beside the span)',
    );
  });
});
