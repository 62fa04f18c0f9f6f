import path from 'node:path';
import type { CurrentMessage } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { TASK_FILES } from '../store/contexts-layout';
import type { TextSink } from './output-target';
import type { TranscriptExport } from './markdown-export';
import { taskRecords } from './task-records';
import { asCurrentMessage, asMessageRecord } from '../store/message-shape';

/**
 * `{"messages": [...]}` in OpenAI's chat format: the full history (messages.jsonl) or, with
 * `current`, the context the model sees now (current.jsonl). One message per line, written
 * as it is read. Only OpenAI's fields travel (role, content, tool_calls, tool_call_id,
 * name); our own (seq, tokens, kind, tool_name) stay behind. `cwb import` reads the file
 * back as one task.
 */
export async function writeOpenAi(
  store: ContextStore,
  uuid: string,
  sink: TextSink,
  options: { current?: boolean } = {},
): Promise<TranscriptExport> {
  const reader = store.readTask(uuid);
  const file = path.join(reader.dir, options.current ? TASK_FILES.current : TASK_FILES.messages);
  const result: TranscriptExport = { uuid, messages: 0, bad: [] };
  await sink.write('{"messages":[');
  for await (const line of taskRecords(file)) {
    if (!line.ok) {
      result.bad.push({ file: line.file, line: line.lineNo, error: line.error });
      continue;
    }
    const checked = options.current ? asCurrentMessage(line.value) : asMessageRecord(line.value);
    if (!checked.ok) {
      result.bad.push({ file: path.basename(file), line: line.lineNo, error: checked.error });
      continue;
    }
    await sink.write(`${result.messages === 0 ? '\n' : ',\n'}${openAiMessageJson(checked.value)}`);
    result.messages++;
  }
  await sink.write(result.messages === 0 ? ']}\n' : '\n]}\n');
  return result;
}

/** One message as OpenAI's chat format writes it: only OpenAI's fields. */
export function openAiMessageJson(m: CurrentMessage): string {
  const out: Record<string, unknown> = { role: m.role, content: m.content ?? null };
  if (m.tool_calls !== undefined && m.tool_calls.length > 0) out.tool_calls = m.tool_calls;
  if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
  if (m.name !== undefined) out.name = m.name;
  return JSON.stringify(out);
}
