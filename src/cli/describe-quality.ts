import {
  FACT_KINDS,
  FACT_KIND_LABELS,
  SCORED_KINDS,
  type CompactionQualityInfo,
  type FactKind,
  type KindScore,
  type LostFact,
} from '../shared/fact-kinds';
import { OUTPUT_WIDTH, clip, formatNumber, formatShare, wrapPieces } from './output';

/** Lost facts named in the human output; `--json` carries the longer list. */
const LOST_SHOWN = 5;

/**
 * A compaction's quality as `cwb compact` prints it under a step or a run: tokens saved on
 * the span it replaced, facts kept by kind, and the most important facts it lost.
 */
export function describeQuality(quality: CompactionQualityInfo, indent: string): string[] {
  return [
    `${indent}${spanLine(quality)}`,
    ...wrapPieces(factPieces(quality.facts), indent, `${indent}  `),
    ...lostLines(quality.facts, indent),
  ];
}

function spanLine(q: CompactionQualityInfo): string {
  // A span can come back larger (a summary longer than the little it replaced).
  const effect =
    q.savedShare >= 0
      ? `${formatShare(q.savedShare)} saved`
      : `${formatShare(-q.savedShare)} larger`;
  return `span: ${q.spanMessages} message${q.spanMessages === 1 ? '' : 's'}, ${formatNumber(q.spanTokens)} → ${formatNumber(q.replacementTokens)} tokens (${effect})`;
}

function score(s: KindScore): string {
  return `${s.kept}/${s.total}`;
}

function factPieces(facts: CompactionQualityInfo['facts']): string[] {
  const kinds = (list: readonly FactKind[]): string[] =>
    list.map(
      (k, i) => `${FACT_KIND_LABELS[k]} ${score(facts.byKind[k])}${i < list.length - 1 ? ',' : ''}`,
    );
  const scored = kinds(SCORED_KINDS);
  scored[scored.length - 1] += ';';
  const share =
    facts.salient.total > 0 ? ` (${formatShare(facts.salient.kept / facts.salient.total)})` : '';
  return [
    'facts kept:',
    `${score(facts.salient)} salient${share} —`,
    ...scored,
    ...kinds(FACT_KINDS.filter((k) => !SCORED_KINDS.includes(k))),
  ];
}

function lostLines(facts: CompactionQualityInfo['facts'], indent: string): string[] {
  const shown = (facts.lost ?? [])
    .slice(0, LOST_SHOWN)
    .map((f) => `${indent}${lostLine(f, indent)}`);
  const more = facts.lostCount - shown.length;
  if (more > 0) shown.push(`${indent}… and ${more} more lost (see --json)`);
  return shown;
}

function lostLine(fact: LostFact, indent: string): string {
  const detail = fact.detail ? ` (${clip(fact.detail, 30)})` : '';
  const head = `lost: ${fact.kind} `;
  const room = Math.max(20, OUTPUT_WIDTH - indent.length - head.length - detail.length - 2);
  return `${head}"${clip(fact.text, room)}"${detail}`;
}
