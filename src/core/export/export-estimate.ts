import path from 'node:path';
import zlib from 'node:zlib';
import type {
  CurrentMessage,
  MessageRecord,
  PlanningEntry,
  SummaryRecord,
  TaskRow,
  ToolRecord,
} from '../../shared/task-types';
import { CwbError } from '../errors';
import { isRecord } from '../import/text';
import type { ContextStore } from '../store/context-store';
import { TASK_FILES } from '../store/contexts-layout';
import { asCurrentMessage, asMessageRecord } from '../store/message-shape';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, MANIFEST_NAME, type Manifest } from './archive-manifest';
import { ARCHIVE_COMPRESSION_LEVEL } from './archive-export';
import type { ExportFormat } from './export-tasks';
import { sampleFile, sampleLines } from './file-sample';
import {
  finalSummaryBlock,
  headerBlock,
  messageBlock,
  planningBlock,
  planningHeading,
  summariesHeading,
  summaryBlock,
  toolRow,
  toolsHeading,
} from './markdown-format';
import { openAiMessageJson } from './openai-export';
import * as html from './html-format';
import { listTaskFiles } from './task-file-list';
import { randomHex } from '../random-hex';
import { isoTimestamp } from '../iso-timestamp';

export interface ExportEstimate {
  /** About how many bytes the export writes in all. */
  bytes: number;
  /** The files it writes: one archive, or one transcript per task. */
  files: number;
}

/** All the sampling of one estimate reads about this much, whatever the tasks' sizes. */
const TOTAL_SAMPLE_BYTES = 16 << 20;
const MAX_FILE_SAMPLE = 256 << 10;
const MIN_FILE_SAMPLE = 8 << 10;
/** A zip entry's headers besides its name (written twice): local 30, descriptor 16, central 46, timestamps. */
const ZIP_ENTRY_OVERHEAD = 30 + 16 + 46 + 18;
const ZIP_END = 22;

/**
 * How big an export would be, without writing it: each task file's size times how its
 * sample formats (markdown, openai: the exporters' own formatting of a few windows of whole
 * lines) or compresses (archive: deflate at the archive's level), plus the parts known
 * exactly (the Markdown header, the final summary, the zip's headers and manifest). Reads at
 * most a few windows of each file, so it answers at once for a task of any size.
 */
export function estimateExport(
  store: ContextStore,
  request: { uuids: readonly string[]; format: ExportFormat; current?: boolean },
): ExportEstimate {
  const uuids = [...new Set(request.uuids)];
  if (uuids.length === 0) throw new CwbError('usage', 'name at least one task to export');
  const rows = uuids.map((uuid) => store.requireTask(uuid));
  const budget = Math.max(
    MIN_FILE_SAMPLE,
    Math.min(MAX_FILE_SAMPLE, Math.floor(TOTAL_SAMPLE_BYTES / (uuids.length * 6))),
  );
  if (request.format === 'archive') {
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: isoTimestamp(),
      tasks: [],
    };
    let bytes = ZIP_END;
    for (const row of rows) {
      const { files } = listTaskFiles(store.taskPath(row));
      const entries = files.map((file) => {
        const sample = sampleFile(file.absolute, budget);
        bytes += ZIP_ENTRY_OVERHEAD + 2 * Buffer.byteLength(`${row.uuid}/${file.relative}`);
        bytes += Math.round(sample.size * deflateRatio(sample.windows.map((w) => w.bytes)));
        // A digest of the same length and randomness as the real one.
        return { path: file.relative, bytes: sample.size, sha256: randomHex(32) };
      });
      manifest.tasks.push({ uuid: row.uuid, row: { ...row }, files: entries });
    }
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    bytes += ZIP_ENTRY_OVERHEAD + 2 * Buffer.byteLength(MANIFEST_NAME);
    bytes += zlib.deflateRawSync(text).length;
    return { bytes, files: 1 };
  }

  const current = request.current === true;
  let bytes = 0;
  for (const row of rows) {
    const reader = store.readTask(row.uuid);
    const messagesFile = path.join(reader.dir, current ? TASK_FILES.current : TASK_FILES.messages);
    const asMessage = current ? asCurrentMessage : asMessageRecord;
    if (request.format === 'openai') {
      bytes += '{"messages":[\n]}\n'.length;
      bytes += formatted(messagesFile, budget, (value) => {
        const m = asMessage(value);
        return m.ok ? `,\n${openAiMessageJson(m.value)}` : '';
      });
      continue;
    }
    if (request.format === 'html') {
      bytes += htmlPageBytes(row, reader.dir, budget);
      continue;
    }
    const metadata = reader.metadata();
    const source = isRecord(metadata?.source) ? metadata.source : undefined;
    bytes += Buffer.byteLength(headerBlock(row, source, current ? 'current' : 'history'));
    bytes += formatted(messagesFile, budget, (value) => {
      const m = asMessage(value);
      if (!m.ok) return '';
      const message: MessageRecord | CurrentMessage = m.value;
      return messageBlock(message, 'seq' in message ? `#${message.seq}` : '[1]');
    });
    const sections: [string, string, (value: Record<string, unknown>) => string, number][] = [
      [
        TASK_FILES.summaries,
        summariesHeading(),
        (v) => summaryBlock(v as unknown as SummaryRecord),
        1,
      ],
      [TASK_FILES.tools, toolsHeading(), (v) => toolRow(v as unknown as ToolRecord), 0],
      [
        TASK_FILES.planning,
        planningHeading(),
        (v) => planningBlock(v as unknown as PlanningEntry),
        1,
      ],
    ];
    for (const [name, heading, format, longLines] of sections) {
      const part = formatted(
        path.join(reader.dir, name),
        budget,
        (value) => (isRecord(value) ? format(value) : ''),
        longLines,
      );
      if (part > 0) bytes += Buffer.byteLength(heading) + part;
    }
    const finalSummary = reader.finalSummary();
    if (finalSummary) bytes += Buffer.byteLength(finalSummaryBlock(finalSummary));
  }
  return { bytes, files: uuids.length };
}

/** An html page: its fixed parts exactly, the messages and compactions from samples. */
function htmlPageBytes(row: TaskRow, dir: string, budget: number): number {
  const title = row.title ?? row.uuid;
  let bytes = Buffer.byteLength(
    html.pageStart(title) +
      html.headerBlock({
        title,
        row,
        agent: row.agent ?? '',
        workdir: row.workdir,
        view: 'history',
      }) +
      html.redactionBlock(true, null) +
      html.pageEnd('0.0.0', isoTimestamp()),
  );
  const same = (text: string): string => text;
  bytes += formatted(path.join(dir, TASK_FILES.messages), budget, (value) => {
    const m = asMessageRecord(value);
    return m.ok ? html.messageBlock(m.value, same) : '';
  });
  bytes += formatted(path.join(dir, TASK_FILES.summaries), budget, (value) => {
    if (!isRecord(value)) return '';
    const s = value as unknown as SummaryRecord;
    const mark = {
      id: s.id,
      strategy: s.strategy,
      start_seq: s.start_seq,
      end_seq: s.end_seq,
      tokens_before: s.original_tokens,
      tokens_after: s.summary_tokens,
      at: s.created_at,
    };
    // Each compaction is in the index at the top and marked in the timeline.
    return html.compactionIndexBlock([mark]) + html.compactionBlock(mark, s.summary);
  });
  return bytes;
}

/**
 * The bytes `format` would write for the whole of a JSONL file: its size times what the
 * sample becomes per byte. What was read of lines longer than a window counts as written as
 * it is (such a line is mostly its text, which every format but the tools table writes
 * whole), so long lines weigh as much in the ratio as they do in the file.
 */
function formatted(
  file: string,
  budget: number,
  format: (value: unknown) => string,
  /** What the unread rest of a long line becomes per byte (a tool row keeps a preview). */
  longLines = 1,
): number {
  const sample = sampleFile(file, budget);
  if (sample.size === 0) return 0;
  const { lines, bytes, read } = sampleLines(sample);
  if (read === 0) return sample.size;
  let out = (read - bytes) * longLines;
  for (const line of lines) {
    try {
      out += Buffer.byteLength(format(JSON.parse(line) as unknown));
    } catch {
      // A malformed line: the exporters leave it out (or write a short note).
    }
  }
  return Math.round((sample.size * out) / read);
}

function deflateRatio(chunks: Buffer[]): number {
  let raw = 0;
  let packed = 0;
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    raw += chunk.length;
    packed += zlib.deflateRawSync(chunk, { level: ARCHIVE_COMPRESSION_LEVEL }).length;
  }
  return raw === 0 ? 1 : packed / raw;
}
