import type { CompactionRecordInfo, CompactionReport } from '../../shared/api/compaction-api';
import type { CompactionRun } from '../compaction/compaction-engine';
import type { CompactionRecord } from '../compaction/compaction-record';

/** A run as the UI gets it: the context it produced is counted, not sent (it can be large). */
export function toReport(run: CompactionRun, summarizer: 'llm' | 'extractive'): CompactionReport {
  return {
    runId: run.runId,
    dryRun: run.dryRun,
    tokensBefore: run.tokensBefore,
    tokensAfter: run.tokensAfter,
    steps: run.steps,
    contextMessages: run.view.length,
    summarizer,
    ...(run.quality && { quality: run.quality }),
  };
}

/** A summaries.jsonl record without its plan (records written by imports have none). */
export function toRecordInfo(record: CompactionRecord & { undone: boolean }): CompactionRecordInfo {
  const { plan, timestamp: _timestamp, ...rest } = record;
  return {
    ...rest,
    planLength: Array.isArray(plan) ? plan.length : null,
  } as CompactionRecordInfo;
}
