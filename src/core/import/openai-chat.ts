/**
 * OpenAI chat JSON → tasks. Accepted documents:
 *
 * - a list of messages (`[{role, content, ...}, ...]`) or `{"messages": [...]}` (what
 *   `cwb export --format openai` writes): one task;
 * - a list of runs, each an object holding its messages in `messages`, `traj` or
 *   `trajectory` (tau-bench: `{task_id, trial, reward, info, traj}`): one task per run,
 *   with the run's ids, reward and (when small) info kept in metadata.json's source.
 *
 * Messages map one to one (see writeChatMessages): messages = valid entries of the list;
 * tool calls = tool_calls entries (+ legacy function_call) + tool messages without a call;
 * LLM calls = assistant messages. The files carry no timestamps or usage, so tasks are
 * dated at import and have no token usage.
 *
 * A document is one JSON value, parsed whole after a size check (readJsonDocument).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { badInput } from '../errors';
import { writeChatMessages } from './chat-messages';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport, discardImportedTask } from './import-session';
import { TranscriptWriter } from './transcript-writer';
import {
  PROMPT_MAX_CHARS,
  asString,
  clip,
  contentText,
  fileTimes,
  isRecord,
  titleFrom,
} from './text';

/** info objects larger than this are not copied into metadata.json. */
const MAX_INFO_JSON_CHARS = 64 * 1024;

interface ChatRun {
  messages: readonly unknown[];
  label: string;
  title: string;
  fields: Record<string, unknown>;
  taskId: string;
  model: string | null;
}

/** The message list of a run object, if it has one. */
export function runMessages(value: unknown): unknown[] | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ['messages', 'traj', 'trajectory']) {
    const list = value[key];
    if (Array.isArray(list) && (list.length === 0 || isRecord(list[0]))) return list;
  }
  return undefined;
}

/** True when the document has one of the shapes above. */
export function isOpenAiChatDocument(doc: unknown): boolean {
  if (isRecord(doc)) return Array.isArray(doc.messages);
  if (!Array.isArray(doc) || doc.length === 0) return false;
  const first = doc[0];
  return isRecord(first) && (typeof first.role === 'string' || runMessages(first) !== undefined);
}

export async function importOpenAiChat(
  store: ContextStore,
  file: string,
  doc: unknown,
): Promise<TranscriptImport> {
  const report = new ImportReport(file);
  const runs = toRuns(doc, path.basename(file), report);
  if (runs.length === 0) {
    throw badInput(`${path.basename(file)}: no OpenAI chat messages or runs found`);
  }
  const rows: TaskRow[] = [];
  try {
    for (const run of runs) rows.push(await importRun(store, file, run, report));
  } catch (err) {
    for (const row of rows) discardImportedTask(store, row.uuid);
    throw err;
  }
  return { rows, report };
}

function toRuns(doc: unknown, base: string, report: ImportReport): ChatRun[] {
  const single = (messages: unknown[]): ChatRun[] => [
    { messages, label: 'document', title: base, fields: {}, taskId: '', model: null },
  ];
  if (isRecord(doc) && Array.isArray(doc.messages)) return single(doc.messages);
  if (!Array.isArray(doc) || doc.length === 0) return [];
  if (isRecord(doc[0]) && typeof doc[0].role === 'string') return single(doc);
  const runs: ChatRun[] = [];
  doc.forEach((value, i) => {
    const messages = runMessages(value);
    if (!messages || !isRecord(value)) {
      report.skipItem(`run ${i + 1}`, 'not a run (no messages, traj or trajectory list)');
      return;
    }
    const taskId = value.task_id ?? value.id;
    const trial = value.trial;
    const fields: Record<string, unknown> = { run_index: i };
    for (const key of ['task_id', 'id', 'trial', 'reward']) {
      if (value[key] !== undefined && typeof value[key] !== 'object') fields[key] = value[key];
    }
    const info = JSON.stringify(value.info ?? null);
    if (value.info !== undefined && info.length <= MAX_INFO_JSON_CHARS) fields.info = value.info;
    const named =
      taskId !== undefined
        ? `task ${String(taskId)}${trial !== undefined ? `, trial ${String(trial)}` : ''}`
        : `run ${i + 1}`;
    runs.push({
      messages,
      label: `run ${i + 1}`,
      title: `${base} · ${named}`,
      fields,
      taskId: taskId !== undefined && typeof taskId !== 'object' ? String(taskId) : String(i),
      model: asString(value.model) ?? null,
    });
  });
  return runs;
}

async function importRun(
  store: ContextStore,
  file: string,
  run: ChatRun,
  report: ImportReport,
): Promise<TaskRow> {
  const firstUser = run.messages.find((m) => isRecord(m) && m.role === 'user');
  const prompt = isRecord(firstUser) ? contentText(firstUser.content) : undefined;
  const session = await beginImport(store, {
    title: run.label === 'document' ? (titleFrom(prompt) ?? run.title) : run.title,
    prompt: prompt !== undefined ? clip(prompt, PROMPT_MAX_CHARS) : null,
    model: run.model,
    key: { task_source: 'openai-chat', task_id: run.taskId },
    status: 'completed',
    // Chat lists carry no times: the file's stand in.
    ...fileTimes(fs.statSync(file)),
    source: {
      format: 'openai',
      file: path.resolve(file),
      cwd: null,
      model: run.model,
      ...run.fields,
    },
  });
  try {
    const writer = new TranscriptWriter(session.task);
    writeChatMessages(writer, run.messages, report, { recordTools: true, label: run.label });
    return await session.finish(writer.finish());
  } catch (err) {
    await session.abort(err);
    throw err;
  }
}
