import crypto from 'node:crypto';
import { z } from 'zod';
import { contentText } from './text';

/**
 * The parts of a Claude Code session entry the importer reads. Fields that only describe
 * the session (cwd, version, ...) fall back to undefined when they have an odd type, so
 * one strange field does not cost a message; the fields a message is made of must hold.
 */
/**
 * The top-level member of Claude Code's entries nothing here reads (the tool's structured
 * result, which the tool_result block in `message` already holds as the model saw it): over
 * half of a session's bytes, left out before a line is decoded and parsed (member-span.ts).
 */
export const UNREAD_MEMBER = 'toolUseResult';

const optionalString = z.string().optional().catch(undefined);
const optionalNumber = z.number().optional().catch(undefined);

export const ClaudeUsageSchema = z.looseObject({
  input_tokens: optionalNumber,
  output_tokens: optionalNumber,
  cache_creation_input_tokens: optionalNumber,
  cache_read_input_tokens: optionalNumber,
});

export const ClaudeEntrySchema = z.looseObject({
  type: z.string(),
  uuid: optionalString,
  parentUuid: z.string().nullable().optional().catch(undefined),
  isSidechain: z.boolean().optional().catch(undefined),
  agentId: optionalString,
  sessionId: optionalString,
  timestamp: optionalString,
  cwd: optionalString,
  gitBranch: optionalString,
  version: optionalString,
  isMeta: z.boolean().optional().catch(undefined),
  isCompactSummary: z.boolean().optional().catch(undefined),
  subtype: optionalString,
  summary: optionalString,
  leafUuid: optionalString,
  requestId: optionalString,
  /** Claude Code 2.1: `ai-title` entries (its own title of the session), `custom-title` (/rename). */
  aiTitle: optionalString,
  customTitle: optionalString,
  attachment: z.looseObject({ type: optionalString }).optional().catch(undefined),
  compactMetadata: z
    .looseObject({ trigger: optionalString, preTokens: optionalNumber })
    .optional()
    .catch(undefined),
  message: z
    .looseObject({
      id: optionalString,
      role: optionalString,
      model: optionalString,
      content: z.union([z.string(), z.array(z.unknown())]).optional(),
      usage: ClaudeUsageSchema.optional().catch(undefined),
    })
    .optional(),
});

export type ClaudeEntry = z.infer<typeof ClaudeEntrySchema>;
export type ClaudeUsage = z.infer<typeof ClaudeUsageSchema>;

type Check = (v: unknown) => boolean;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const maybe =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
/** Every listed field of an object, as the schema above reads it, holds (no `.catch` would fire). */
const fieldsHold =
  (fields: Record<string, Check>): Check =>
  (v) => {
    if (!isObject(v)) return false;
    for (const key in fields) if (!fields[key]!(v[key])) return false;
    return true;
  };

const USAGE_HOLDS = fieldsHold({
  input_tokens: maybe(isNumber),
  output_tokens: maybe(isNumber),
  cache_creation_input_tokens: maybe(isNumber),
  cache_read_input_tokens: maybe(isNumber),
});

/** ClaudeEntrySchema's fields, checked by hand: the same rules for a well-formed entry. */
const ENTRY_HOLDS = fieldsHold({
  type: isString,
  uuid: maybe(isString),
  parentUuid: (v) => v === undefined || v === null || typeof v === 'string',
  isSidechain: maybe(isBoolean),
  agentId: maybe(isString),
  sessionId: maybe(isString),
  timestamp: maybe(isString),
  cwd: maybe(isString),
  gitBranch: maybe(isString),
  version: maybe(isString),
  isMeta: maybe(isBoolean),
  isCompactSummary: maybe(isBoolean),
  subtype: maybe(isString),
  summary: maybe(isString),
  leafUuid: maybe(isString),
  requestId: maybe(isString),
  aiTitle: maybe(isString),
  customTitle: maybe(isString),
  attachment: maybe(fieldsHold({ type: maybe(isString) })),
  compactMetadata: maybe(fieldsHold({ trigger: maybe(isString), preTokens: maybe(isNumber) })),
  message: maybe(
    fieldsHold({
      id: maybe(isString),
      role: maybe(isString),
      model: maybe(isString),
      content: (v) => v === undefined || typeof v === 'string' || Array.isArray(v),
      usage: maybe(USAGE_HOLDS),
    }),
  ),
});

/**
 * One line of a session read as a Claude Code entry. Nearly every entry is well formed: it
 * is checked by hand and used as it is (zod's copy of each entry was a tenth of a first
 * sync's time, docs/benchmarks.md §14). Anything else goes through ClaudeEntrySchema, which
 * drops odd descriptive fields and says what is wrong with a malformed entry.
 */
export function parseClaudeEntry(
  value: unknown,
): { ok: true; entry: ClaudeEntry } | { ok: false; error: string } {
  if (ENTRY_HOLDS(value)) return { ok: true, entry: value as ClaudeEntry };
  const parsed = ClaudeEntrySchema.safeParse(value);
  if (parsed.success) return { ok: true, entry: parsed.data };
  return {
    ok: false,
    error: `not a Claude Code entry (${parsed.error.issues[0]?.message ?? 'unexpected shape'})`,
  };
}

/**
 * Entry types that carry conversation; everything else (snapshots, queue operations, PR
 * links, modes, the last prompt, titles, other attachments such as hook output) is counted
 * as ignored. A prompt typed while the model was busy is an attachment of type
 * `queued_command` (Claude Code 2.1): the model reads it, so it is conversation.
 */
export function isConversationEntry(entry: ClaudeEntry): boolean {
  return (
    entry.type === 'user' ||
    entry.type === 'assistant' ||
    entry.type === 'system' ||
    isQueuedPrompt(entry)
  );
}

export function isQueuedPrompt(entry: ClaudeEntry): boolean {
  return entry.type === 'attachment' && entry.attachment?.type === 'queued_command';
}

/** The text of a queued prompt: a string, or text and image blocks. */
export function queuedPromptText(entry: ClaudeEntry): string {
  const prompt = entry.attachment?.prompt;
  return typeof prompt === 'string' ? prompt : contentText(prompt);
}

/** The session's title from a title entry, with its rank: a /rename beats Claude's own. */
export function titleOf(entry: ClaudeEntry): { title: string; rank: number } | undefined {
  if (entry.type === 'custom-title' && entry.customTitle?.trim())
    return { title: entry.customTitle.trim(), rank: 2 };
  if (entry.type === 'ai-title' && entry.aiTitle?.trim())
    return { title: entry.aiTitle.trim(), rank: 1 };
  return undefined;
}

/**
 * A working directory as one project whatever the drive letter's case: Claude Code on
 * Windows records `c:\x` in one session and `C:\x` in another (project folders `c--x` and
 * `C--x`), which are one folder.
 */
export function normalizeWorkdir(cwd: string | undefined): string | undefined {
  if (cwd === undefined) return undefined;
  return /^[a-z]:[\\/]/.test(cwd) ? cwd[0]!.toUpperCase() + cwd.slice(1) : cwd;
}

export const MAIN_THREAD = 'main';

/**
 * Threads Claude Code 2.1 runs apart from the conversation, each a copy of it plus one call:
 * a compaction's summary call (`agent-acompact-*`: its model and usage go on the compaction
 * record, see claude-code-compaction.ts) and a side question (`/btw`, `agent-aside_question-*`:
 * an answer kept out of the conversation). Neither is a task; the reason is reported.
 */
export function forkedThreadReason(thread: string): string | undefined {
  if (thread.startsWith('agent:acompact-'))
    return "compaction run (its model and usage are on its session's compaction record)";
  if (thread.startsWith('agent:aside_question-'))
    return 'side question (a copy of the conversation plus one answer kept out of it)';
  return undefined;
}

/**
 * Which thread an entry belongs to: the main conversation, or one subagent (sidechain).
 * Parallel subagents interleave in one file, so a sidechain entry is placed by its
 * `agentId` when present, else by following `parentUuid` to the sidechain's root entry.
 * Only sidechain uuids are remembered (about 100 bytes each), never content. Routing is
 * idempotent, so the scan and the import pass agree on every entry.
 */
export class ClaudeThreadRouter {
  /**
   * Sidechain entry uuid → its thread. A plain object, so live sync keeps it in its saved
   * state and routes the next lines of a growing file as one pass over the whole file would.
   */
  constructor(readonly sidechainThreadOf: Record<string, string> = {}) {}

  route(entry: ClaudeEntry, line: number): string | undefined {
    if (!isConversationEntry(entry)) return undefined;
    if (entry.isSidechain !== true) return MAIN_THREAD;
    if (entry.uuid !== undefined) {
      const known = this.sidechainThreadOf[entry.uuid];
      if (known !== undefined) return known;
    }
    let thread: string;
    if (entry.agentId !== undefined) thread = `agent:${entry.agentId}`;
    else {
      const parent =
        entry.parentUuid !== null && entry.parentUuid !== undefined
          ? this.sidechainThreadOf[entry.parentUuid]
          : undefined;
      thread = parent ?? `root:${entry.uuid ?? `line-${line}`}`;
    }
    if (entry.uuid !== undefined) this.sidechainThreadOf[entry.uuid] = thread;
    return thread;
  }
}

/**
 * The text of a user entry that is the person's own prompt (not meta, not a compaction
 * summary, not tool results), or undefined.
 */
export function promptOf(entry: ClaudeEntry): string | undefined {
  if (entry.type !== 'user' || entry.isMeta === true || entry.isCompactSummary === true)
    return undefined;
  const content = entry.message?.content;
  // As blocksOf would give them, without making the blocks of every tool result entry.
  if (content === undefined || (Array.isArray(content) && content.length === 0)) return undefined;
  if (Array.isArray(content) && content.some(isToolResult)) return undefined;
  const text = contentText(content);
  return text.trim() === '' ? undefined : text;
}

const isToolResult = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'tool_result';

/** Subagents are found by their prompt: the Task (Agent) call's prompt, hashed. */
export function promptHash(text: string): string {
  return crypto.createHash('sha256').update(text.trim()).digest('hex');
}

/** Content blocks, narrowed by hand: one odd block must not cost the whole entry. */
export type ClaudeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'redacted_thinking' }
  | { type: 'tool_use'; id: string | undefined; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error: boolean }
  | { type: 'other'; kind: string; raw: Record<string, unknown> };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function toBlock(value: unknown): ClaudeBlock {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { type: 'text', text: typeof value === 'string' ? value : '' };
  }
  const raw = value as Record<string, unknown>;
  switch (raw.type) {
    case 'text':
      return { type: 'text', text: str(raw.text) ?? '' };
    case 'thinking':
      return { type: 'thinking', thinking: str(raw.thinking) ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking' };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: str(raw.id),
        name: str(raw.name) ?? 'unknown',
        input: raw.input,
      };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: str(raw.tool_use_id) ?? '',
        content: raw.content,
        is_error: raw.is_error === true,
      };
    default:
      return { type: 'other', kind: str(raw.type) ?? 'unknown', raw };
  }
}

export function blocksOf(content: string | unknown[] | undefined): ClaudeBlock[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map(toBlock);
}
