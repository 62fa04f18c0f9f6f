import fs from 'node:fs';
import { readClaudeCodeSpan } from './claude-code-span';
import { readCodexSpan } from './codex-span';
import type { CompactedSpan, SpanLimits } from './compacted-span';
import { droppedEvidence } from '../facts/dropped-evidence';

/**
 * `cwb hook <agent>`: what runs inside the agent right after it compacted its context.
 * Claude Code and Codex both run `SessionStart` hooks with `source: "compact"` once the new
 * context is built, give the hook `{session_id, transcript_path, cwd, hook_event_name,
 * source}` on stdin, and add `hookSpecificOutput.additionalContext` of its JSON answer to
 * the new context. The answer here is the evidence the agent's own summary dropped.
 *
 * Everything else (another event or source, no transcript, a file too large, a timeout,
 * any error) answers nothing: the caller exits 0 with no output, so the agent carries on
 * exactly as without the hook.
 */

export type HookAgent = 'claude-code' | 'codex';
export const HOOK_AGENTS: readonly HookAgent[] = ['claude-code', 'codex'];

export interface CompactionHookOptions {
  agent: HookAgent;
  /** Budget of the injected text, seed-estimate tokens. */
  maxTokens: number;
  /** Transcripts larger than this are left alone. */
  maxTranscriptBytes: number;
  timeoutMs: number;
  now?: () => number;
}

export const HOOK_DEFAULTS = {
  maxTokens: 4000,
  maxTranscriptBytes: 256 * 1024 * 1024,
  timeoutMs: 3000,
} as const;

export interface HookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: string;
  source: string;
}

export type HookOutcome =
  | { kind: 'answer'; json: string; shown: number; dropped: number; tokens: number }
  | { kind: 'skip'; reason: string }
  | { kind: 'nothing'; reason: string };

/** Why the hook did not answer, for the log line; never the transcript's content. */
export class HookRefusal extends Error {}

export function parseHookInput(raw: string): HookInput {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new HookRefusal(`stdin is not JSON (${raw.length} characters)`);
  }
  if (typeof value !== 'object' || value === null) throw new HookRefusal('stdin is not an object');
  const v = value as Record<string, unknown>;
  const field = (name: keyof HookInput): string => (typeof v[name] === 'string' ? v[name] : '');
  return {
    session_id: field('session_id'),
    transcript_path: field('transcript_path'),
    cwd: field('cwd'),
    hook_event_name: field('hook_event_name'),
    source: field('source'),
  };
}

export function recallNote(shownNote: string): string {
  return `${shownNote} The rest: the MCP tool \`recall\` (server "context-workbench") searches by pattern or reads by seq range every message this session's compactions removed.`;
}

export function runCompactionHook(raw: string, options: CompactionHookOptions): HookOutcome {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const input = parseHookInput(raw);
  if (input.hook_event_name !== 'SessionStart' || input.source !== 'compact') {
    return {
      kind: 'skip',
      reason: `${input.hook_event_name || 'no event'}/${input.source || '-'}`,
    };
  }
  if (!input.transcript_path) throw new HookRefusal('no transcript_path in the hook input');
  let size: number;
  try {
    size = fs.statSync(input.transcript_path).size;
  } catch {
    throw new HookRefusal(`transcript ${input.transcript_path} cannot be read`);
  }
  if (size > options.maxTranscriptBytes) {
    throw new HookRefusal(
      `transcript ${input.transcript_path} is ${size} bytes, over the limit of ${options.maxTranscriptBytes}`,
    );
  }
  const limits: SpanLimits = { maxLineBytes: 16 * 1024 * 1024, deadline };
  const found: CompactedSpan =
    options.agent === 'codex'
      ? readCodexSpan(input.transcript_path, limits)
      : readClaudeCodeSpan(input.transcript_path, limits);
  if (found.compactions === 0)
    return { kind: 'nothing', reason: 'no compaction in the transcript' };
  if (found.span.length === 0)
    return { kind: 'nothing', reason: 'the compaction replaced nothing' };
  const evidence = droppedEvidence(found.span, found.summary, {
    maxTokens: options.maxTokens,
    note: recallNote(
      'Context Workbench: facts from before this compaction that the summary does not state, the ones you typed yourself first, newest first.',
    ),
  });
  if (now() > deadline) throw new HookRefusal('ran past its time limit');
  if (evidence.shown === 0) return { kind: 'nothing', reason: 'the summary states every fact' };
  const json = JSON.stringify({
    hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: evidence.text },
  });
  return {
    kind: 'answer',
    json,
    shown: evidence.shown,
    dropped: evidence.dropped,
    tokens: evidence.tokens,
  };
}
