import path from 'node:path';
import type {
  CurrentMessage,
  MessageRecord,
  PlanningEntry,
  SummaryRecord,
  ToolRecord,
} from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { TASK_FILES } from '../store/contexts-layout';
import { isRecord } from '../import/text';
import type { TextSink } from './output-target';
import {
  badLineBlock,
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
import { taskRecords } from './task-records';
import { asCurrentMessage, asMessageRecord } from '../store/message-shape';

export interface TranscriptExport {
  uuid: string;
  messages: number;
  /** Lines that could not be read, marked in the output and left out. */
  bad: { file: string; line: number; error: string }[];
}

/**
 * A readable transcript of one task: a header with the task's figures, every message
 * (the full history, or with `current` what the model sees now), then the compactions,
 * the tool executions, the plan and the final summary. Each file is streamed and each
 * block written as soon as it is formatted.
 */
export async function writeMarkdown(
  store: ContextStore,
  uuid: string,
  sink: TextSink,
  options: { current?: boolean } = {},
): Promise<TranscriptExport> {
  const reader = store.readTask(uuid);
  const dir = reader.dir;
  const metadata = reader.metadata();
  const source = isRecord(metadata?.source) ? metadata.source : undefined;
  const result: TranscriptExport = { uuid, messages: 0, bad: [] };
  const bad = async (file: string, lineNo: number, error: string): Promise<void> => {
    result.bad.push({ file, line: lineNo, error });
    await sink.write(badLineBlock(file, lineNo, error));
  };

  await sink.write(headerBlock(reader.row, source, options.current ? 'current' : 'history'));
  const messagesFile = path.join(dir, options.current ? TASK_FILES.current : TASK_FILES.messages);
  for await (const line of taskRecords(messagesFile)) {
    if (!line.ok) {
      await bad(line.file, line.lineNo, line.error);
      continue;
    }
    const checked = options.current ? asCurrentMessage(line.value) : asMessageRecord(line.value);
    if (!checked.ok) {
      await bad(path.basename(messagesFile), line.lineNo, checked.error);
      continue;
    }
    result.messages++;
    const message: MessageRecord | CurrentMessage = checked.value;
    const label = options.current
      ? `[${line.lineNo}]`
      : `#${'seq' in message ? message.seq : line.lineNo}`;
    await sink.write(messageBlock(message, label));
  }

  let heading = false;
  for await (const line of taskRecords(path.join(dir, TASK_FILES.summaries))) {
    if (!heading) await sink.write(summariesHeading());
    heading = true;
    if (line.ok && isRecord(line.value))
      await sink.write(summaryBlock(line.value as unknown as SummaryRecord));
    else if (!line.ok) await bad(line.file, line.lineNo, line.error);
  }
  heading = false;
  for await (const line of taskRecords(path.join(dir, TASK_FILES.tools))) {
    if (!heading) await sink.write(toolsHeading());
    heading = true;
    if (line.ok && isRecord(line.value))
      await sink.write(toolRow(line.value as unknown as ToolRecord));
    else if (!line.ok) result.bad.push({ file: line.file, line: line.lineNo, error: line.error });
  }
  heading = false;
  for await (const line of taskRecords(path.join(dir, TASK_FILES.planning))) {
    if (!heading) await sink.write(planningHeading());
    heading = true;
    if (line.ok && isRecord(line.value))
      await sink.write(planningBlock(line.value as unknown as PlanningEntry));
    else if (!line.ok) await bad(line.file, line.lineNo, line.error);
  }
  const finalSummary = reader.finalSummary();
  if (finalSummary) await sink.write(finalSummaryBlock(finalSummary));
  return result;
}
