import path from 'node:path';
import { parseConfigText } from '../../src/core/config/load-config';
import { ContextStore } from '../../src/core/store/context-store';
import { candidateLabel, type EvalPoint } from '../../src/core/compaction/evaluate-compaction';
import {
  summarizeCandidate,
  summarizeCandidates,
  type CandidateSummary,
  type KeptSummary,
} from '../../src/shared/compaction-eval-summary';
import {
  FACT_KINDS,
  FACT_KIND_LABELS,
  SCORED_KINDS,
  type FactKind,
} from '../../src/shared/fact-kinds';
import { count, ms, percent } from '../lib/format';
import { AGENTS, scoreRealTranscripts, type ScoredTranscript } from '../lib/scored-transcripts';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';
import { PREFIX_SHARE_GOAL, measureNeededNext, sessionFiles } from '../lib/needed-next-corpus';

const COMPACTED = ['test', 'fixtures', 'real', 'claude-code-compacted'];

const KEPT_GOAL = 0.85;
const SAVED_GOAL = 0.9;
/** The naive strategy the default pipeline is compared with. */
const BASELINE = 'truncate';
/** Not-applied transcripts named one by one in the notes; more are counted. */
const NAMED = 12;
const OVERALL = 'all agents';

function share(value: number | null): string {
  return value === null ? '—' : percent(value);
}

function plural(n: number, word: string): string {
  return `${count(n)} ${word}${n === 1 ? '' : 's'}`;
}

function headline(s: CandidateSummary): string {
  return `${share(s.medianSaved)} saved, ${share(s.salient.medianShare)} salient kept`;
}

/** Pooled kept/total and the median per-task share: salient in all, each kind, the unscored ones. */
function perKind(s: CandidateSummary): string {
  const kept = (label: string, score: KeptSummary): string =>
    `${label} ${count(score.kept)}/${count(score.total)} (${share(score.medianShare)})`;
  const kinds = (list: readonly FactKind[]): string =>
    list.map((k) => kept(FACT_KIND_LABELS[k], s.byKind[k])).join(', ');
  const pooled = s.salient.total > 0 ? s.salient.kept / s.salient.total : null;
  const salient = `salient ${count(s.salient.kept)}/${count(s.salient.total)} (${share(pooled)} pooled, ${share(s.salient.medianShare)} median)`;
  return `${salient} — ${kinds(SCORED_KINDS)}; not scored: ${kinds(FACT_KINDS.filter((k) => !SCORED_KINDS.includes(k)))}`;
}

/** The smallest per-task share of salient facts kept (tasks whose span had any). */
function leastKept(points: readonly EvalPoint[]): number | null {
  const shares = points.flatMap((p) => {
    const s = p.applied ? p.quality?.facts.salient : undefined;
    return s && s.total > 0 ? [s.kept / s.total] : [];
  });
  return shares.length ? Math.min(...shares) : null;
}

/** A pipeline's reason is each step's, `name: why` joined by `; `: the last step's says "too short". */
function lastStepReason(point: EvalPoint): string {
  const reason = point.reason ?? '';
  const last = point.strategies.at(-1);
  const at = last === undefined ? -1 : reason.lastIndexOf(`${last}: `);
  return at < 0 ? reason : reason.slice(at);
}

function pointsOf(transcripts: readonly ScoredTranscript[], label: string): EvalPoint[] {
  return transcripts.flatMap((t) => t.points.filter((p) => p.label === label));
}

export const compactionQualityGroup: BenchGroup = {
  id: 'compaction-quality',
  title: 'Compaction quality on real transcripts: tokens saved, facts kept',
  about: `Every real transcript in test/fixtures/real is imported (\`importPaths\`: both Claude Code sessions with their sub-agent sidechains, one Codex rollout, both SWE-agent trajectories, and all 200 tau-bench GPT-4o runs of the OpenAI chat file — scoring them all takes seconds), and each imported task is scored with \`evaluateTask\` and the default candidates: every strategy alone and the configured pipeline, each an offline dry run (the extractive digest writes the summaries, nothing is written) with the bench's default config and the task's own context window. A compaction is measured on the span it replaced: the share of that span's tokens saved, and the share of the span's facts (paths, commands, error lines, numbers, identifiers: the salient kinds) still found anywhere in the new context. Figures are medians over transcripts (one imported task each), over those a candidate applied to; the per-kind rows give pooled counts kept/total and, in brackets, the median of per-task shares over the transcripts whose span had that kind. The baseline column is ${BASELINE} alone, the naive strategy. Deterministic: one pass, no timing in the figures.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const config = parseConfigText('', { file: 'bench defaults', baseDir: ctx.tmp, env: {} });
    const defaultLabel = candidateLabel(config.compaction.pipeline);
    const store = ContextStore.open(path.join(ctx.tmp, 'contexts'), { recover: false });
    let scoring: Awaited<ReturnType<typeof scoreRealTranscripts>>;
    try {
      scoring = await scoreRealTranscripts(store, config);
    } finally {
      store.close();
    }
    const { transcripts } = scoring;
    ctx.log(
      `  ${transcripts.length} transcripts imported in ${ms(scoring.importMs)}, scored in ${ms(scoring.evalMs)}`,
    );

    const all = summarizeCandidate(pointsOf(transcripts, defaultLabel));
    const allSalient = all.salient.medianShare ?? 0;
    const allSaved = all.medianSaved ?? 0;
    rows.push(
      row(
        `default offline pipeline (${defaultLabel}) keeps salient facts: median over ${all.salient.tasks} transcripts`,
        share(all.salient.medianShare),
        '—',
        '—',
        `≥ ${KEPT_GOAL * 100} % (median)`,
        judge(
          allSalient >= KEPT_GOAL,
          `${share(all.salient.medianShare)}, ${percent(KEPT_GOAL - allSalient)} short`,
          `pooled over all transcripts: ${count(all.salient.kept)}/${count(all.salient.total)} = ${share(all.salient.total ? all.salient.kept / all.salient.total : null)}`,
        ),
      ),
      row(
        `default offline pipeline (${defaultLabel}) saves the span's tokens: median over ${all.applied} transcripts`,
        share(all.medianSaved),
        '—',
        '—',
        `≥ ${SAVED_GOAL * 100} % (median)`,
        judge(
          allSaved >= SAVED_GOAL,
          `${share(all.medianSaved)}, ${percent(SAVED_GOAL - allSaved)} short`,
        ),
      ),
    );

    const groups = [
      ...AGENTS.map((agent) => ({
        name: agent,
        files: scoring.files[agent],
        list: transcripts.filter((t) => t.agent === agent),
      })),
      {
        name: OVERALL,
        files: Object.values(scoring.files).reduce((a, b) => a + b, 0),
        list: transcripts,
      },
    ];
    const summaries: { name: string; transcripts: number; pipeline: CandidateSummary }[] = [];
    for (const g of groups) {
      const pipeline = summarizeCandidate(pointsOf(g.list, defaultLabel));
      summaries.push({ name: g.name, transcripts: g.list.length, pipeline });
      const baseline = summarizeCandidate(pointsOf(g.list, BASELINE));
      rows.push(
        row(
          `${g.name}: ${defaultLabel} on ${plural(g.list.length, 'transcript')} from ${plural(g.files, 'file')} (applied to ${pipeline.applied})`,
          headline(pipeline),
          `${BASELINE}: ${headline(baseline)}`,
        ),
        row(`${g.name}: ${defaultLabel}, kept per kind`, perKind(pipeline)),
      );
    }

    for (const c of summarizeCandidates(transcripts.map((t) => t.points))) {
      rows.push(
        row(
          `candidate ${c.label}${c.isDefault ? ' (the configured pipeline)' : ''}: applied to ${c.applied} of ${c.tasks} transcripts`,
          `${headline(c)}; least saved ${share(c.minSaved)}, least kept ${share(leastKept(pointsOf(transcripts, c.label)))}`,
        ),
      );
    }

    const skipped = transcripts.filter((t) => t.points.some((p) => p.isDefault && !p.applied));
    if (skipped.length > 0) {
      const named = skipped
        .slice(0, NAMED)
        .map((t) => {
          const point = t.points.find((p) => p.isDefault);
          return `${t.agent} "${t.title}" (${t.messages} messages; ${point ? lastStepReason(point) : ''})`;
        })
        .join(', ');
      notes.push(
        `The default pipeline did not apply to ${skipped.length} of ${transcripts.length} transcripts; they are counted here and left out of its medians: ${named}${skipped.length > NAMED ? `; and ${skipped.length - NAMED} more` : ''}.`,
      );
    } else {
      notes.push(`The default pipeline applied to all ${transcripts.length} transcripts.`);
    }
    const noSalient = all.applied - all.salient.tasks;
    if (noSalient > 0) {
      notes.push(
        `${noSalient} transcript${noSalient === 1 ? '' : 's'} the pipeline applied to had no salient fact in the replaced span: counted in the tokens-saved median, left out of the facts-kept median (a span with nothing to keep says nothing about keeping).`,
      );
    }
    const agents = summaries.filter((a) => a.name !== OVERALL);
    const weakest = agents.reduce((w, a) =>
      (a.pipeline.salient.medianShare ?? 1) < (w.pipeline.salient.medianShare ?? 1) ? a : w,
    );
    const heaviest = agents.reduce((h, a) => (a.transcripts > h.transcripts ? a : h));
    notes.push(
      `The overall medians pool every transcript, so ${heaviest.name}'s ${heaviest.transcripts} of ${transcripts.length} weigh most; per agent, the median share of salient facts kept goes down to ${share(weakest.pipeline.salient.medianShare)} (${weakest.name}).`,
      'Facts kept counts what the model sees without reading anything back. tool-output-trim alone scores low on it by design: the outputs it trims stay whole in tool_outputs/ behind the ref its placeholder names; summaries carry a fact ledger, and `history_recall` reads the full history.',
      `Imported in ${ms(scoring.importMs)}, scored in ${ms(scoring.evalMs)} (${count(transcripts.length)} transcripts × ${transcripts[0]?.points.length ?? 0} candidates, each an offline dry run). \`cwb eval-compaction\` prints the same figures for a user's own tasks.`,
    );
    await neededNextRows(ctx, config, rows, notes);
    return { rows, notes };
  },
};

/**
 * "Needed next" (FRR) on the real sessions Claude Code compacted itself: the repo's own
 * (test/fixtures/real/claude-code-compacted), and a whole corpus when CWB_BENCH_FRR_CORPUS
 * names a folder of sessions (the entireio/cli corpus of docs/benchmarks.md).
 */
async function neededNextRows(
  ctx: BenchContext,
  config: ReturnType<typeof parseConfigText>,
  rows: Row[],
  notes: string[],
): Promise<void> {
  const sets: [string, string][] = [
    ['the compacted sessions of the repo', path.join(ctx.repoRoot, ...COMPACTED)],
  ];
  const corpus = process.env.CWB_BENCH_FRR_CORPUS;
  if (corpus) sets.push([`the corpus in ${path.basename(corpus)}`, corpus]);
  for (const [i, [name, dir]] of sets.entries()) {
    const f = await measureNeededNext(sessionFiles(dir), config, path.join(ctx.tmp, `frr-${i}`));
    const n = f.scored.length;
    rows.push(
      row(
        `needed next (FRR), ${name}: median over ${n} Claude Code compactions (${f.sessions} sessions)`,
        share(f.medianOurs),
        `${share(f.medianAgent)} (Claude Code's own summary)`,
        '—',
        '≥ 95 %',
        judge(f.medianOurs >= 0.95, `median ${share(f.medianOurs)}`),
      ),
      row(
        `new context as a share of the prefix, ${name} (median; above 10 %)`,
        `${share(f.medianShare)}; ${f.overCap} of ${n} above`,
        '—',
        '—',
        `≤ ${percent(PREFIX_SHARE_GOAL)}`,
        judge(f.overCap === 0, `${f.overCap} of ${n} above`),
      ),
      row(
        `keeps fewer needed facts than Claude Code's summary, ${name}`,
        `${f.worse} of ${n} (better in ${f.better})`,
        '—',
        '—',
        '≤ 1 in 20',
        judge(f.worse * 20 <= n, `${f.worse} of ${n}`),
      ),
    );
  }
  notes.push(
    'Needed next (FRR): each compaction Claude Code made itself, imported and scored as `cwb eval-compaction --agent-compactions` scores it (bench/lib/needed-next-corpus.ts): the facts the agent typed after the compaction (paths, names, numbers with units, URLs, references) that the compacted prefix held, and the share of them the new context holds verbatim; the default pipeline runs offline on the same prefix. Set CWB_BENCH_FRR_CORPUS to a folder of session files to measure a corpus too.',
  );
}
