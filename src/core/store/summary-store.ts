import path from 'node:path';
import type { SummaryRecord } from '../../shared/task-types';
import { RecordLog } from './record-log';
import { TASK_FILES } from './contexts-layout';
import { isoTimestamp } from '../iso-timestamp';

export interface NewSummary {
  strategy: string;
  start_seq: number;
  end_seq: number;
  summary: string;
  original_tokens: number;
  summary_tokens: number;
  compressed_message_count: number;
  /** Strategy-specific fields (kept seqs, refs, pipeline id, ...). */
  extra?: Record<string, unknown>;
  /** When it happened, if not now: an agent's own compaction found in its session. */
  at?: string;
}

/** summaries.jsonl: one record per compaction, with the fields of both seeds. */
export class SummaryStore {
  private readonly log: RecordLog<SummaryRecord>;

  /** `lazy`: the file is made at the first record (RecordLog). */
  constructor(dir: string, fsync = false, lazy = false) {
    this.log = new RecordLog<SummaryRecord>(
      path.join(dir, TASK_FILES.summaries),
      'id',
      fsync,
      lazy,
    );
  }

  add(input: NewSummary): SummaryRecord {
    const now = input.at ?? isoTimestamp();
    return this.log.append((id) => ({
      ...input.extra,
      id,
      strategy: input.strategy,
      start_seq: input.start_seq,
      end_seq: input.end_seq,
      summary: input.summary,
      original_tokens: input.original_tokens,
      summary_tokens: input.summary_tokens,
      ratio: input.original_tokens > 0 ? round(input.summary_tokens / input.original_tokens) : 0,
      compressed_message_count: input.compressed_message_count,
      tokens_saved: Math.max(0, input.original_tokens - input.summary_tokens),
      timestamp: now,
      created_at: now,
    }));
  }

  /** The id the next compaction record will get (its messages are written first, tagged with it). */
  get nextId(): number {
    return this.log.nextId;
  }

  latest(): SummaryRecord | undefined {
    return this.log.latest();
  }

  count(): number {
    return this.log.count();
  }

  list(offset?: number, limit?: number): ReturnType<RecordLog<SummaryRecord>['list']> {
    return this.log.list(offset, limit);
  }

  close(): void {
    this.log.close();
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
