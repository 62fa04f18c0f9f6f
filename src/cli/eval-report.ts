import type { EvalPoint } from '../core/compaction/evaluate-compaction';
import type { CandidateSummary } from '../shared/compaction-eval-summary';
import { SCORED_KINDS, type KindScore } from '../shared/fact-kinds';
import { clip, formatCount, formatShare, formatTable, wrapPieces } from './output';

/** One task as `cwb eval-compaction` scored it (also its `--json` shape). */
export interface EvaluatedTask {
  uuid: string;
  title: string | null;
  points: EvalPoint[];
}

/** Column heads of the salient kinds, in SCORED_KINDS order, short enough for 100 columns. */
const KIND_HEADS = ['PATHS', 'CMDS', 'ERRORS', 'NUMS', 'IDS'];

const DEFAULT_MARK = ' *';

function candidateCell(label: string, isDefault: boolean): string {
  return `${label}${isDefault ? DEFAULT_MARK : ''}`;
}

function words(text: string): string[] {
  return text.split(/\s+/);
}

/** The human output: the summary table, then (when asked) one table per task. */
export function describeEvaluation(
  tasks: readonly EvaluatedTask[],
  summary: readonly CandidateSummary[],
  perTask: boolean,
): string {
  const blocks = [summaryBlock(tasks, summary)];
  if (perTask) blocks.push(...tasks.map(taskBlock));
  return blocks.join('\n\n');
}

function summaryBlock(
  tasks: readonly EvaluatedTask[],
  summary: readonly CandidateSummary[],
): string {
  const lines = [
    `Scored ${summary.length} candidate${summary.length === 1 ? '' : 's'} on ${tasks.length} task${tasks.length === 1 ? '' : 's'} (offline dry runs: extractive summaries, nothing written).`,
    '',
    formatTable(
      ['CANDIDATE', 'APPLIED', 'SAVED', 'MIN SAVED', 'SALIENT', ...KIND_HEADS],
      summary.map((c) => [
        candidateCell(c.label, c.isDefault),
        `${c.applied}/${c.tasks}`,
        formatShare(c.medianSaved),
        formatShare(c.minSaved),
        formatShare(c.salient.medianShare),
        ...SCORED_KINDS.map((k) => formatShare(c.byKind[k].medianShare)),
      ]),
    ),
    '',
    ...wrapPieces(
      words(
        "SAVED: median share of the replaced span's tokens saved, over the tasks a candidate applied to (MIN SAVED: the least). SALIENT and each kind: median share of the span's facts still in the context, over the tasks whose span had any (— none had).",
      ),
      '',
    ),
  ];
  if (summary.some((c) => c.isDefault)) {
    lines.push('* the configured pipeline (compaction.pipeline in config.yaml)');
  }
  lines.push(...notAppliedLines(tasks, summary));
  return lines.join('\n');
}

/** Which tasks each candidate left alone (too short, nothing to trim), by short id. */
function notAppliedLines(
  tasks: readonly EvaluatedTask[],
  summary: readonly CandidateSummary[],
): string[] {
  const SHOWN = 4;
  return summary.flatMap((c) => {
    if (c.applied === c.tasks) return [];
    const ids = tasks
      .filter((t) => t.points.some((p) => p.label === c.label && !p.applied))
      .map((t) => t.uuid.slice(0, 8));
    const named = `${ids.slice(0, SHOWN).join(', ')}${ids.length > SHOWN ? ', …' : ''}`;
    return wrapPieces(
      words(`${c.label}: not applied on ${ids.length} of ${c.tasks} (${named})`),
      '',
      '  ',
    );
  });
}

function kept(score: KindScore): string {
  return `${score.kept}/${score.total}`;
}

function taskBlock(task: EvaluatedTask): string {
  const before = task.points[0]?.tokensBefore;
  const head = `Task ${task.uuid}${before === undefined ? '' : `, ${formatCount(before)} tokens`}: ${clip(task.title ?? '', 40)}`;
  const table = formatTable(
    ['CANDIDATE', 'SPAN TOKENS', 'SAVED', 'SALIENT', ...KIND_HEADS],
    task.points.map((p) => {
      const q = p.applied ? p.quality : undefined;
      if (!q) {
        return [
          candidateCell(p.label, p.isDefault),
          'not applied',
          '—',
          '—',
          ...KIND_HEADS.map(() => '—'),
        ];
      }
      return [
        candidateCell(p.label, p.isDefault),
        `${formatCount(q.spanTokens)} → ${formatCount(q.replacementTokens)}`,
        formatShare(q.savedShare),
        kept(q.facts.salient),
        ...SCORED_KINDS.map((k) => kept(q.facts.byKind[k])),
      ];
    }),
  );
  const reasons = task.points
    .filter((p) => !p.applied)
    .flatMap((p) => wrapPieces(words(`${p.label}: not applied — ${whyNot(p)}`), '', '  '));
  return [head, table, ...reasons].join('\n');
}

/** Each step's reason; a single strategy's reason without its name, which the line starts with. */
function whyNot(point: EvalPoint): string {
  const reason = point.reason ?? '';
  const own = `${point.label}: `;
  return clip(
    point.strategies.length === 1 && reason.startsWith(own) ? reason.slice(own.length) : reason,
    180,
  );
}
