import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../src/core/config/app-config';
import { importPaths } from '../../src/core/import';
import { ContextStore } from '../../src/core/store/context-store';
import {
  evaluateAgentCompactions,
  type AgentCompactionRow,
} from '../../src/core/compaction/agent-compaction-eval';
import { median } from './stats';

/**
 * "Needed next" (FRR) over a folder of Claude Code sessions that Claude Code compacted itself:
 * every file imported into a scratch contexts folder, every compaction scored exactly as
 * `cwb eval-compaction --agent-compactions` scores it (the agent's own new context beside the
 * configured pipeline run offline on the same prefix). Compactions after which the agent
 * typed nothing the prefix held (no needed fact) have no FRR and are left out of the figures.
 */
export interface NeededNextFigures {
  sessions: number;
  /** Compactions with at least one needed fact, where the pipeline applied. */
  scored: AgentCompactionRow[];
  /** All compactions found, scored or not. */
  compactions: number;
  notApplied: number;
  medianOurs: number;
  medianAgent: number;
  /** Median share of the prefix's tokens the pipeline's new context takes. */
  medianShare: number;
  /** New contexts above the share cap (10 % of the prefix). */
  overCap: number;
  /** The pipeline keeps fewer needed facts than the agent's own summary. */
  worse: number;
  better: number;
}

export const PREFIX_SHARE_GOAL = 0.1;

/** Every `.jsonl` file of `dir` (sorted): a corpus of Claude Code sessions. */
export function sessionFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));
}

export async function measureNeededNext(
  files: readonly string[],
  config: AppConfig,
  scratch: string,
  log: (message: string) => void = () => undefined,
): Promise<NeededNextFigures> {
  const store = ContextStore.open(path.join(scratch, 'contexts'), { recover: false });
  try {
    for (const [i, file] of files.entries()) {
      try {
        await importPaths(store, [file], {});
      } catch (err) {
        log(`${path.basename(file)}: not imported (${(err as Error).message})`);
      }
      if ((i + 1) % 10 === 0) log(`imported ${i + 1} of ${files.length}`);
    }
    const rows = await evaluateAgentCompactions(store, config, { agent: 'claude-code' });
    return figures(files.length, rows);
  } finally {
    store.close();
  }
}

export function figures(sessions: number, rows: readonly AgentCompactionRow[]): NeededNextFigures {
  const withFacts = rows.filter((r) => r.needed > 0 && r.agent_frr !== null);
  const scored = withFacts.filter((r) => r.ours_frr !== null && !notApplied(r));
  const share = (r: AgentCompactionRow): number =>
    r.ours_tokens_before > 0 ? r.ours_tokens_after / r.ours_tokens_before : 1;
  return {
    sessions,
    scored,
    compactions: rows.length,
    notApplied: withFacts.length - scored.length,
    medianOurs: median(scored.map((r) => r.ours_frr!)),
    medianAgent: median(withFacts.map((r) => r.agent_frr!)),
    medianShare: median(scored.map(share)),
    overCap: scored.filter((r) => share(r) > PREFIX_SHARE_GOAL).length,
    worse: scored.filter((r) => r.ours_kept < (r.agent_kept ?? 0)).length,
    better: scored.filter((r) => r.ours_kept > (r.agent_kept ?? 0)).length,
  };
}

function notApplied(row: AgentCompactionRow): boolean {
  return row.notes.some((n) => n.startsWith('the pipeline did nothing'));
}
