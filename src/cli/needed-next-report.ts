import type { AgentCompactionRow, WhatIfReport } from '../core/compaction/agent-compaction-eval';
import type { NeededNextInfo } from '../shared/needed-next-info';
import { clip, formatCount, formatShare, formatTable } from './output';

/** What `cwb eval-compaction --agent-compactions` prints: one row per agent compaction. */
export function describeAgentCompactions(rows: readonly AgentCompactionRow[]): string {
  if (rows.length === 0) return 'No compaction made by an agent in the synced or imported tasks.';
  const table = formatTable(
    ['AGENT', 'TASK', 'SEQS', 'AGENT TOKENS', 'AGENT FRR', 'OURS TOKENS', 'OURS FRR', 'RE-READS'],
    rows.map((r) => [
      r.agent,
      r.task_uuid.slice(0, 8),
      `#${r.seq_range[0]}–#${r.seq_range[1]}`,
      `${formatCount(r.agent_tokens_before)}${r.agent_tokens_before_counter === 'estimate' ? '~' : ''} → ${r.agent_tokens_after === null ? '-' : formatCount(r.agent_tokens_after)}`,
      recall(r.agent_kept, r.needed, r.agent_frr),
      `${formatCount(r.ours_tokens_before)} → ${formatCount(r.ours_tokens_after)}`,
      recall(r.ours_kept, r.needed, r.ours_frr),
      `${r.re_reads.count} (${formatCount(r.re_reads.tokens)} tokens${r.re_reads.cost_usd === null ? '' : `, $${r.re_reads.cost_usd.toFixed(2)}`})`,
    ]),
  );
  const notes = rows.flatMap((r) =>
    r.notes.map((n) => `${r.task_uuid.slice(0, 8)} #${r.record_id}: ${n}`),
  );
  return [
    table,
    '',
    `FRR: the share of the facts the agent typed after the compaction (paths, names, numbers, URLs, references) that its new context held; ours is ${rows[0]!.ours_pipeline} run offline on the same prefix. ~ marks our estimate where the agent reported no count.`,
    ...notes.map((n) => `note: ${clip(n, 160)}`),
  ].join('\n');
}

function recall(kept: number | null, needed: number, frr: number | null): string {
  if (kept === null) return '-';
  return `${kept}/${needed} (${formatShare(frr)})`;
}

/** What `cwb eval-compaction UUID --at SEQ` prints: every candidate as a what-if. */
export function describeWhatIf(report: WhatIfReport, pipeline: string): string {
  const table = formatTable(
    ['CANDIDATE', 'TOKENS', 'SAVED', 'NEEDED NEXT KEPT', 'FRR'],
    report.candidates.map((c) => [
      `${c.label}${c.label === pipeline ? ' (pipeline)' : ''}`,
      `${formatCount(c.tokensBefore)} → ${formatCount(c.tokensAfter)}`,
      c.applied && c.tokensBefore > 0 ? formatShare(1 - c.tokensAfter / c.tokensBefore) : '-',
      c.applied ? `${c.kept}/${c.needed}` : 'did not apply',
      c.applied ? formatShare(c.frr) : '-',
    ]),
  );
  return [
    `At #${report.at_seq} of ${report.task_uuid} (context from #${report.start_seq}): the agent then typed ${report.needed} facts that context held; it read or ran ${report.re_reads.count} things again (${formatCount(report.re_reads.tokens)} tokens).`,
    table,
    ...report.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

/** `cwb compact --dry-run --at SEQ`: what the run keeps of what the agent needed next. */
export function describeNeededNext(info: NeededNextInfo, atSeq: number): string {
  const cost = info.reReads.costUsd === null ? '' : `, $${info.reReads.costUsd.toFixed(2)}`;
  const lost = info.lost.slice(0, 10).map((f) => f.text);
  return [
    info.frr === null
      ? `Needed next: the agent typed nothing after #${atSeq} that this context held (no FRR).`
      : `Needed next (FRR): keeps ${info.kept} of the ${info.needed} facts the agent typed after #${atSeq} (${formatShare(info.frr)}), in ${formatCount(info.tokensAfter)} of ${formatCount(info.tokensBefore)} tokens (${formatShare(info.tokensBefore > 0 ? info.tokensAfter / info.tokensBefore : null)} of the context).`,
    ...(lost.length > 0 ? [`  not kept: ${clip(lost.join(', '), 300)}`] : []),
    `Re-reads after #${atSeq}: ${info.reReads.count} reads or commands run again whose output this context held (${formatCount(info.reReads.tokens)} tokens${cost}).`,
    ...info.notes.map((n) => `note: ${n}`),
  ].join('\n');
}
