import { scoreFacts, type FactScore } from '../facts/fact-survival';
import { extractSpanFacts } from '../facts/span-facts';
import type { CompactionQualityInfo } from '../../shared/fact-kinds';
import { contextText, spanMessages } from './summary-ledger';
import { entrySeq, type ViewEntry } from './view';

/**
 * How good a compaction is, measured on the span it replaced: the tokens it saved there and
 * the facts of the span still found anywhere in the new context. The same figures for a
 * real run, a dry run, `cwb eval-compaction`, the API and the compaction page.
 */
export type CompactionQuality = CompactionQualityInfo;
type FactScoreSummary = CompactionQualityInfo['facts'];

const LOST_LISTED = 200;

/** The quality of going from `before` to `after` (both whole contexts). */
export function compactionQuality(
  before: readonly ViewEntry[],
  after: readonly ViewEntry[],
): CompactionQuality {
  const afterBySeq = new Map<number, ViewEntry>();
  for (const e of after) {
    const seq = entrySeq(e);
    if (seq !== undefined) afterBySeq.set(seq, e);
  }
  const span: ViewEntry[] = [];
  let spanTokens = 0;
  let replacementTokens = 0;
  for (const e of before) {
    const seq = entrySeq(e);
    const now = seq === undefined ? undefined : afterBySeq.get(seq);
    if (now && now.message.content === e.message.content) continue;
    // A message without a seq (a synthetic result) that is still there is unchanged too.
    if (seq === undefined && after.includes(e)) continue;
    span.push(e);
    spanTokens += e.tokens;
    if (now) replacementTokens += now.tokens;
  }
  const beforeSeqs = new Set(before.map(entrySeq).filter((s) => s !== undefined));
  for (const e of after) {
    const seq = entrySeq(e);
    const isNew = e.create !== undefined || (seq !== undefined && !beforeSeqs.has(seq));
    if (isNew) replacementTokens += e.tokens;
  }
  const facts = extractSpanFacts(spanMessages(span)).list();
  return {
    spanMessages: span.length,
    spanTokens,
    replacementTokens,
    savedShare: spanTokens > 0 ? 1 - replacementTokens / spanTokens : 0,
    facts: summarize(scoreFacts(facts, contextText(after))),
  };
}

function summarize(score: FactScore): FactScoreSummary {
  return {
    byKind: score.byKind,
    salient: score.salient,
    lost: score.lost.slice(0, LOST_LISTED).map((f) => ({
      kind: f.kind,
      text: f.text,
      ...(f.detail !== undefined && { detail: f.detail }),
    })),
    lostCount: score.lost.length,
  };
}

/** What a compaction record keeps of its quality: the figures, not the list of lost facts. */
export function storedQuality(quality: CompactionQuality): CompactionQuality {
  const { lost: _lost, ...facts } = quality.facts;
  void _lost;
  return { ...quality, facts };
}
