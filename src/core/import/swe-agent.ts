/**
 * SWE-agent trajectories (`*.traj`, one JSON document) → one task per file.
 *
 * - `history` is the conversation the model saw: each entry one message (role, content,
 *   `tool_calls` when the agent used function calling, `tool_call_ids` on tool results);
 *   demonstrations (`is_demo`) are kept, they were in the context.
 * - `trajectory` steps (action, observation, thought, execution_time) are the tool
 *   executions: one tools.jsonl record per step, named by the action's command word. When a
 *   file has no trajectory steps, the history's tool_calls paired with their tool
 *   messages are the tool executions instead (never both, so nothing is counted twice).
 * - `info.model_stats`: tokens_sent / tokens_received → usage, api_calls → LLM calls (else
 *   one per assistant message), cost kept in source. `info.exit_status` other than
 *   "submitted…" marks the task failed with that status.
 *
 * Counts: messages = valid history entries; tool calls = trajectory steps, or (without
 * steps) history tool_calls + tool messages without a call.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { badInput } from '../errors';
import { writeChatMessages } from './chat-messages';
import { ImportReport, type TranscriptImport } from './import-report';
import { beginImport } from './import-session';
import { TranscriptWriter } from './transcript-writer';
import {
  PROMPT_MAX_CHARS,
  asNumber,
  asString,
  clip,
  contentText,
  fileTimes,
  isRecord,
} from './text';

export function isSweAgentDocument(doc: unknown): boolean {
  return isRecord(doc) && (Array.isArray(doc.history) || Array.isArray(doc.trajectory));
}

export async function importSweAgent(
  store: ContextStore,
  file: string,
  doc: unknown,
): Promise<TranscriptImport> {
  if (!isSweAgentDocument(doc) || !isRecord(doc)) {
    throw badInput(`${path.basename(file)}: not a SWE-agent trajectory (no history or trajectory)`);
  }
  const report = new ImportReport(file);
  const history = Array.isArray(doc.history) ? doc.history : [];
  const steps = Array.isArray(doc.trajectory) ? doc.trajectory : [];
  const info = isRecord(doc.info) ? doc.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : undefined;
  const exitStatus = asString(info.exit_status);
  const failed = exitStatus !== undefined && !exitStatus.startsWith('submitted');
  const instance = path.basename(file).replace(/\.traj$/, '');
  const firstTask = history.find((m) => isRecord(m) && m.role === 'user' && m.is_demo !== true);
  const prompt = isRecord(firstTask) ? contentText(firstTask.content) : undefined;
  const cwd = workingDir(steps) ?? null;
  const model = modelName(doc) ?? null;
  const session = await beginImport(store, {
    title: instance,
    prompt: prompt !== undefined ? clip(prompt, PROMPT_MAX_CHARS) : null,
    workdir: cwd,
    model,
    key: { task_source: 'swe-agent', task_id: instance, ...repoOf(instance) },
    status: failed ? 'failed' : 'completed',
    ...(failed && { error_message: `SWE-agent exit status: ${exitStatus}` }),
    // A trajectory records durations but no dates: the file's times stand in.
    ...fileTimes(fs.statSync(file)),
    source: {
      format: 'swe-agent',
      file: path.resolve(file),
      instance_id: instance,
      cwd,
      model,
      environment: asString(doc.environment) ?? null,
      exit_status: exitStatus ?? null,
      model_stats: stats ?? null,
      submission_chars: asString(info.submission)?.length ?? null,
    },
  });
  try {
    const writer = new TranscriptWriter(session.task);
    writeChatMessages(writer, history, report, {
      recordTools: steps.length === 0,
      label: 'history',
    });
    steps.forEach((step, i) => {
      if (!isRecord(step)) {
        report.skipItem(`trajectory step ${i + 1}`, 'not an object');
        return;
      }
      const action = asString(step.action) ?? '';
      const seconds = asNumber(step.execution_time);
      writer.recordTool({
        tool: action.trim().split(/\s+/)[0] || 'action',
        args: { action, ...(typeof step.thought === 'string' && { thought: step.thought }) },
        result: asString(step.observation) ?? null,
        durationMs: seconds * 1000,
      });
    });
    const counters = writer.finish();
    if (stats) {
      const sent = asNumber(stats.tokens_sent);
      const received = asNumber(stats.tokens_received);
      const apiCalls = asNumber(stats.api_calls);
      // api_calls is authoritative: it counts retries and requests whose reply was discarded.
      if (apiCalls > 0) counters.llm_calls = apiCalls;
      counters.usage = {
        input_tokens: sent,
        output_tokens: received,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: sent + received,
      };
    }
    const row: TaskRow = await session.finish(counters);
    return { rows: [row], report };
  } catch (err) {
    await session.abort(err);
    throw err;
  }
}

/** SWE-bench instance ids are `owner__repo-number`. */
function repoOf(instance: string): { owner?: string; repo?: string } {
  const match = /^([^_]+(?:_[^_]+)*)__(.+)-\d+$/.exec(instance);
  return match ? { owner: match[1]!, repo: match[2]! } : {};
}

/** Each step's `state` is a JSON string with the shell's working directory. */
function workingDir(steps: unknown[]): string | undefined {
  const first = steps.find(isRecord);
  if (!first) return undefined;
  const state = first.state;
  try {
    const parsed: unknown = typeof state === 'string' ? JSON.parse(state) : state;
    return isRecord(parsed) ? asString(parsed.working_dir) : undefined;
  } catch {
    return undefined;
  }
}

/** Newer trajectories carry the run's config (`replay_config`), with the model's name. */
function modelName(doc: Record<string, unknown>): string | undefined {
  let config: unknown = doc.replay_config;
  if (typeof config === 'string') {
    try {
      config = JSON.parse(config);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(config) || !isRecord(config.agent) || !isRecord(config.agent.model))
    return undefined;
  return asString(config.agent.model.name);
}
