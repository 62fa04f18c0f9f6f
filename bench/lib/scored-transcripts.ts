import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../src/core/config/app-config';
import { evaluateTask, type EvalPoint } from '../../src/core/compaction/evaluate-compaction';
import { importPaths } from '../../src/core/import';
import type { ContextStore } from '../../src/core/store/context-store';
import { REAL_FIXTURES } from '../../test/support/real-fixtures';

/** The agents whose sessions test/fixtures/real holds, one folder each. */
export const AGENTS = ['claude-code', 'codex', 'swe-agent', 'openai-chat'] as const;
export type Agent = (typeof AGENTS)[number];

/** One imported task (a session, a sub-agent's sidechain, one tau-bench run) and its scores. */
export interface ScoredTranscript {
  agent: Agent;
  file: string;
  uuid: string;
  title: string;
  messages: number;
  points: EvalPoint[];
}

export interface ScoringRun {
  transcripts: ScoredTranscript[];
  files: Record<Agent, number>;
  importMs: number;
  evalMs: number;
}

/** Imports every real transcript into `store` and scores each task with `evaluateTask`. */
export async function scoreRealTranscripts(
  store: ContextStore,
  config: AppConfig,
): Promise<ScoringRun> {
  const transcripts: ScoredTranscript[] = [];
  const files = Object.fromEntries(AGENTS.map((a) => [a, 0])) as Record<Agent, number>;
  let importMs = 0;
  let evalMs = 0;
  for (const agent of AGENTS) {
    const dir = path.join(REAL_FIXTURES, agent);
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      let started = performance.now();
      const run = await importPaths(store, [file], {});
      importMs += performance.now() - started;
      if (run.failed.length > 0) {
        throw new Error(`${agent}/${name} did not import: ${run.failed[0]!.error}`);
      }
      files[agent]++;
      started = performance.now();
      for (const task of run.results.flatMap((r) => r.tasks)) {
        transcripts.push({
          agent,
          file: name,
          uuid: task.uuid,
          title: task.title ?? '',
          messages: task.messages,
          points: await evaluateTask(store, config, task.uuid),
        });
      }
      evalMs += performance.now() - started;
    }
  }
  return { transcripts, files, importMs, evalMs };
}
