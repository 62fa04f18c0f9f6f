/**
 * Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) → one task per file.
 *
 * The mapping is described on CodexMapper (codex-mapper.ts, shared with live sync); a first
 * pass (codex-scan.ts) tells it what only the whole file shows: whether user turns come from
 * items or events, whether token_count events count the LLM calls, and the last compaction
 * (earlier messages are history only, so current.jsonl is the context after it).
 *
 * Counts: messages = 1 (instructions, if any) + user records used + system/developer
 * items + reasoning items + assistant groups + outputs (+ compaction messages);
 * tool calls = call items + web searches + outputs without a call.
 */
import { realRequest, repoKey, titleLine } from './session-meta';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { readJsonl } from '../jsonl/jsonl-reader';
import { badInput } from '../errors';
import { CodexMapper } from './codex-mapper';
import { scanCodex } from './codex-scan';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport } from './import-session';
import type { TranscriptSink } from './transcript-sink';
import { TranscriptWriter } from './transcript-writer';
import { PROMPT_MAX_CHARS, clip, titleFrom } from './text';
import type { ImportOptions } from './types';
import { findSessionTask } from '../sources/source-tasks';

export async function importCodex(
  store: ContextStore,
  file: string,
  options: ImportOptions = {},
): Promise<TranscriptImport> {
  const scan = await scanCodex(file, options.maxLineBytes);
  if (
    scan.sessionId === undefined &&
    scan.firstTimestamp === undefined &&
    scan.prompt === undefined
  ) {
    throw badInput(`${path.basename(file)}: no Codex rollout entries found`);
  }
  const report = new ImportReport(file);
  const requested = titleLine(realRequest(scan.prompt)) ?? titleFrom(scan.prompt);
  // Under its parent's task when that is imported already, as live sync links it.
  const parent = scan.subagent
    ? findSessionTask(store, 'codex', scan.subagent.parent, { anyType: true })
    : null;
  const session = await beginImport(store, {
    ...(parent !== null && { parent_uuid: parent }),
    // A subagent's thread (as live sync titles it): the agent's name, else what it was asked.
    title: scan.subagent
      ? `Subagent: ${scan.subagent.label ?? requested ?? scan.sessionId ?? 'codex'}`
      : (requested ?? null),
    prompt: scan.prompt !== undefined ? clip(scan.prompt, PROMPT_MAX_CHARS) : null,
    workdir: scan.cwd ?? null,
    model: scan.model ?? null,
    llm_provider: scan.provider ?? 'openai',
    key: {
      task_source: 'codex',
      task_id: scan.sessionId ?? '',
      ...(scan.subagent && { task_type: 'subagent' }),
      ...repoKey(scan.cwd, scan.gitRemote),
    },
    status: 'completed',
    ...(scan.firstTimestamp !== undefined && { created_at: scan.firstTimestamp }),
    ...(scan.lastTimestamp !== undefined && { completed_at: scan.lastTimestamp }),
    source: {
      format: 'codex',
      file: path.resolve(file),
      session_id: scan.sessionId ?? null,
      cwd: scan.cwd ?? null,
      model: scan.model ?? null,
      model_provider: scan.provider ?? null,
      cli_version: scan.cliVersion ?? null,
      originator: scan.originator ?? null,
      git_branch: scan.gitBranch ?? null,
      git_remote: scan.gitRemote ?? null,
      ...(scan.subagent && { relation: 'subagent', parent_session_id: scan.subagent.parent }),
    },
  });
  try {
    const writer = new TranscriptWriter(session.task);
    const sink: TranscriptSink = {
      describe: () => undefined, // the scan knows the session before its task is created
      message: (_thread, message, opts) => void writer.append(message, opts),
      tool: (_thread, call) => writer.addTool(call),
      llmCall: (_thread, usage, calls = 1) => {
        writer.countLlmCall(calls);
        if (usage) writer.addUsage(usage);
      },
      compaction: (_thread, input) => writer.compaction(input),
      skip: (lineNo, reason) => report.skipLine(lineNo, reason),
      ignore: (what) => report.ignore(what),
    };
    const mapper = new CodexMapper(undefined, sink, {
      userItems: scan.hasUserItems,
      tokenCounts: scan.tokenCounts > 0,
      historyBefore: scan.lastCompactedLine,
    });
    const readOptions = {
      end: scan.size,
      ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    };
    for await (const raw of readJsonl(file, readOptions)) {
      if (!raw.ok) {
        report.skipLine(raw.lineNo, raw.error);
        continue;
      }
      mapper.line(raw.value, raw.lineNo);
    }
    mapper.end(true);
    const row: TaskRow = await session.finish(writer.finish());
    return { rows: [row], report };
  } catch (err) {
    await session.abort(err);
    throw err;
  }
}
