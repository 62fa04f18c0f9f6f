import path from 'node:path';
import { agentLabel } from '../../shared/agents';
import type { ContextStore } from '../store/context-store';
import type { TaskReader } from '../store/task-reader';
import { TASK_FILES } from '../store/contexts-layout';
import { asMessageRecord } from '../store/message-shape';
import { allRecords, type CompactionRecord } from '../compaction/compaction-record';
import { isoTimestamp } from '../iso-timestamp';
import type { TextSink } from './output-target';
import type { TranscriptExport } from './markdown-export';
import { taskRecords } from './task-records';
import { learnTaskSecrets } from './learn-secrets';
import {
  badLineBlock,
  compactionBlock,
  compactionIndexBlock,
  headerBlock,
  messageBlock,
  pageEnd,
  pageStart,
  redactionBlock,
  type CompactionMark,
} from './html-format';
import {
  describeRedactions,
  Redactor,
  type RedactionCounts,
  type RedactionOptions,
} from './redaction';

export interface HtmlExportOptions {
  /** null: not redacted (the page says so). */
  redaction: RedactionOptions | null;
  /** Shown in the page's footer. */
  version: string;
}

export interface HtmlExport extends TranscriptExport {
  /** What was redacted, by kind; null when redaction was off. */
  redactions: RedactionCounts | null;
}

const NULL_SINK: TextSink = { write: async () => {} };

/**
 * One task as a single HTML page someone can open from disk or on a phone: the header, what
 * was redacted, the compactions, then every message of the history in order with tool calls
 * and results folded and each compaction marked where it happened. Files are streamed.
 *
 * With redaction on, the task's files are first read for the secrets they hold (so a piece
 * of a key is known wherever it comes first), then the page is made twice: a first pass
 * counts what will be redacted, so the page can say so at its top, before the messages,
 * without holding them in memory.
 */
export async function writeHtml(
  store: ContextStore,
  uuid: string,
  sink: TextSink,
  options: HtmlExportOptions,
): Promise<HtmlExport> {
  const reader = store.readTask(uuid);
  if (!options.redaction) {
    const result = await writePage(reader, sink, null, null, options.version);
    return { ...result, redactions: null };
  }
  const learned = new Redactor(options.redaction);
  await learnTaskSecrets(learned, reader.dir);
  const counting = learned.fresh();
  await writePage(reader, NULL_SINK, counting, null, options.version);
  const counts = counting.counts;
  const result = await writePage(reader, sink, learned.fresh(), counts, options.version);
  return { ...result, redactions: counts };
}

async function writePage(
  reader: TaskReader,
  sink: TextSink,
  redactor: Redactor | null,
  counts: RedactionCounts | null,
  version: string,
): Promise<TranscriptExport> {
  const r = (text: string): string => (redactor ? redactor.redact(text) : text);
  const row = reader.row;
  const result: TranscriptExport = { uuid: row.uuid, messages: 0, bad: [] };
  const title = r((row.title ?? '').replace(/\s+/g, ' ').trim()) || `Task ${row.uuid}`;
  const records = allRecords(reader.dir);
  const marks = records.map(markOf);

  await sink.write(pageStart(title));
  await sink.write(
    headerBlock({
      title,
      row,
      agent: agentLabel(row.agent ?? '', 'Context Workbench'),
      workdir: row.workdir ? r(row.workdir) : null,
      view: 'history',
    }),
  );
  await sink.write(redactionBlock(redactor !== null, counts ? describeRedactions(counts) : null));
  await sink.write(compactionIndexBlock(marks));
  await sink.write('<main class="timeline">\n');

  // Each compaction is marked just before the first message it created (its summary), or
  // else before the first message after the span it replaced.
  const pending = records
    .map((record, i) => ({
      at: placeOf(record),
      mark: marks[i]!,
      // The summary is shown here only when no message of the timeline carries it.
      summary: createdSeqs(record).length === 0 ? record.summary : null,
    }))
    .sort((a, b) => a.at - b.at);
  let next = 0;
  const messagesFile = path.join(reader.dir, TASK_FILES.messages);
  for await (const line of taskRecords(messagesFile)) {
    if (!line.ok) {
      result.bad.push({ file: line.file, line: line.lineNo, error: line.error });
      await sink.write(badLineBlock(line.file, line.lineNo, line.error));
      continue;
    }
    const checked = asMessageRecord(line.value);
    if (!checked.ok) {
      result.bad.push({ file: TASK_FILES.messages, line: line.lineNo, error: checked.error });
      await sink.write(badLineBlock(TASK_FILES.messages, line.lineNo, checked.error));
      continue;
    }
    const message = checked.value;
    while (next < pending.length && pending[next]!.at <= message.seq) {
      const p = pending[next++]!;
      await sink.write(compactionBlock(p.mark, p.summary ? r(p.summary) : null));
    }
    result.messages++;
    await sink.write(messageBlock(message, r));
  }
  for (const p of pending.slice(next)) {
    await sink.write(compactionBlock(p.mark, p.summary ? r(p.summary) : null));
  }
  await sink.write('</main>\n');
  await sink.write(pageEnd(version, isoTimestamp()));
  return result;
}

function createdSeqs(record: CompactionRecord): number[] {
  return Array.isArray(record.created_seqs) ? record.created_seqs : [];
}

function placeOf(record: CompactionRecord): number {
  const created = createdSeqs(record);
  return created.length > 0 ? Math.min(...created) : record.end_seq + 1;
}

function markOf(record: CompactionRecord & { undone: boolean }): CompactionMark {
  const before = numberOr(record.tokens_before, record.original_tokens);
  const after = numberOr(record.tokens_after, record.summary_tokens);
  return {
    id: record.id,
    strategy: record.undone ? `${record.strategy} (undone)` : record.strategy,
    start_seq: record.start_seq,
    end_seq: record.end_seq,
    tokens_before: before,
    tokens_after: after,
    at: typeof record.created_at === 'string' ? record.created_at : record.timestamp,
  };
}

function numberOr(value: unknown, fallback: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof fallback === 'number' && Number.isFinite(fallback)) return fallback;
  return null;
}
