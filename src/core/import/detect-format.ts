import fs from 'node:fs';
import path from 'node:path';
import { readJsonl } from '../jsonl/jsonl-reader';
import { badInput } from '../errors';
import { ChatMessageSchema } from './chat-messages';
import { toCodexLine } from './codex-line';
import { isOpenAiChatDocument, runMessages } from './openai-chat';
import { DOCUMENT_SESSION_FORMATS, SESSION_FORMATS } from './session-formats';
import { isSweAgentDocument } from './swe-agent';
import { detectDatabase, isSqliteHead, type DatabaseFormatName } from './database-formats';
import { isRecord } from './text';
import { isCursorTextTranscript } from './cursor-text';
import { detectJsonlAgent, type JsonlAgentId } from './jsonl-agents';
import { isGeminiLogHead } from './gemini-cli-log';
import { isGooseJsonlHead } from './goose-jsonl';
import type { ImportFormat } from './types';

/** How a file is read: a zip, a stream of JSON lines, text (Aider's markdown), or one JSON document. */
export type Sniffed =
  | { kind: 'zip' }
  | { kind: 'jsonl'; format: 'claude-code' | 'codex' | JsonlAgentId }
  /** Read by its format's own parser, never as one JSON document (Gemini CLI's JSON Lines log). */
  | { kind: 'text'; format: 'aider' | 'gemini-cli' | 'goose' | 'cursor' }
  | { kind: 'database'; format: DatabaseFormatName }
  | { kind: 'document' };

/** Bytes of the head read to recognize text formats. */
const TEXT_HEAD_BYTES = 4096;

/** Lines looked at before deciding a file is not JSON Lines. */
const SNIFF_LINES = 20;
/** A first line longer than this is a minified document, not a JSONL entry worth parsing here. */
const SNIFF_LINE_BYTES = 4 * 1024 * 1024;

const CLAUDE_TYPES = new Set(['user', 'assistant', 'system', 'summary']);

/**
 * Decides from content, not the file name: zip magic → archive; a JSON line shaped like a
 * Claude Code entry (`type` user/assistant/system/summary with `sessionId`, `uuid` or
 * `leafUuid`) or a Codex rollout line (`{type, payload}` or the older bare session line)
 * → that JSONL format; anything else is read as one JSON document, whose shape then
 * decides (see detectDocument).
 */
export async function sniffFile(file: string): Promise<Sniffed> {
  const head = Buffer.alloc(TEXT_HEAD_BYTES);
  const handle = await fs.promises.open(file, 'r');
  let headBytes: number;
  try {
    headBytes = (await handle.read(head, 0, TEXT_HEAD_BYTES, 0)).bytesRead;
  } finally {
    await handle.close();
  }
  // PK\3\4 (a local file header) or PK\5\6 (an empty archive's end record)
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5))
    return { kind: 'zip' };
  if (isSqliteHead(head)) return { kind: 'database', format: detectDatabase(file) };
  if (
    SESSION_FORMATS.aider.sniff(head.subarray(0, headBytes).toString('utf8'), path.basename(file))
  )
    return { kind: 'text', format: 'aider' };
  if (isCursorTextTranscript(head.subarray(0, headBytes).toString('utf8'), path.basename(file)))
    return { kind: 'text', format: 'cursor' };
  let seen = 0;
  for await (const line of readJsonl(file, { maxLineBytes: SNIFF_LINE_BYTES })) {
    if (++seen > SNIFF_LINES) break;
    if (!line.ok) {
      // A pretty-printed document's first line ("{" or "[") does not parse on its own; a
      // first line too long to sniff may still be a JSONL entry, so look further then.
      if (seen === 1 && line.bytes <= SNIFF_LINE_BYTES) break;
      continue;
    }
    const value = line.value;
    if (!isRecord(value)) break;
    if (seen === 1 && isGeminiLogHead(value)) return { kind: 'text', format: 'gemini-cli' };
    if (seen === 1 && isGooseJsonlHead(value)) return { kind: 'text', format: 'goose' };
    const agent = detectJsonlAgent(value, file);
    if (agent) return { kind: 'jsonl', format: agent };
    if (
      typeof value.type === 'string' &&
      CLAUDE_TYPES.has(value.type) &&
      ('sessionId' in value || 'uuid' in value || 'leafUuid' in value)
    )
      return { kind: 'jsonl', format: 'claude-code' };
    const codex = toCodexLine(value, line.lineNo);
    if (codex && codex.kind !== 'other') return { kind: 'jsonl', format: 'codex' };
    // A first line that is a complete object of another kind: a one-line document.
    if (seen === 1 && !('type' in value)) break;
  }
  return { kind: 'document' };
}

/**
 * The format of a parsed JSON document, or a clear error naming what was expected. Each
 * format claims only its own shape, and the OpenAI chat fallback only lists whose first
 * messages really are chat messages, so nothing is read as the wrong format silently.
 */
export function detectDocument(
  file: string,
  doc: unknown,
): 'swe-agent' | 'openai' | 'roo-code' | (typeof DOCUMENT_SESSION_FORMATS)[number] {
  const name = path.basename(file);
  for (const format of DOCUMENT_SESSION_FORMATS) {
    if (SESSION_FORMATS[format].sniff(doc, name)) {
      return format === 'cline' && /roo-cline|roo-code/i.test(path.resolve(file))
        ? 'roo-code'
        : format;
    }
  }
  if (isSweAgentDocument(doc)) return 'swe-agent';
  if (isOpenAiChatDocument(doc) && looksLikeChat(doc)) return 'openai';
  throw badInput(
    `${name}: cannot tell its format (expected a Claude Code or Codex JSONL session, a Gemini CLI session, an OpenHands trajectory or event, a Cline/Roo Code api_conversation_history.json, an Aider chat history, an OpenAI chat message list or list of runs, a SWE-agent .traj, or a cwb archive); pass --format`,
  );
}

/** The first messages of the (first) list parse as OpenAI chat messages. */
function looksLikeChat(doc: unknown): boolean {
  let list: unknown[] | undefined;
  if (isRecord(doc)) list = Array.isArray(doc.messages) ? doc.messages : undefined;
  else if (Array.isArray(doc))
    list = isRecord(doc[0]) && 'role' in doc[0] ? doc : runMessages(doc[0]);
  if (!list) return false;
  const head = list.slice(0, 5);
  return head.length === 0 || head.every((m) => ChatMessageSchema.safeParse(m).success);
}

/** The format `--format auto` would choose; parses a JSON document to look at its shape. */
export async function detectFormat(
  file: string,
  parse: (file: string) => Promise<unknown>,
): Promise<ImportFormat> {
  const sniffed = await sniffFile(file);
  if (sniffed.kind === 'zip') return 'cwb';
  if (sniffed.kind === 'jsonl' || sniffed.kind === 'text' || sniffed.kind === 'database')
    return sniffed.format;
  return detectDocument(file, await parse(file));
}
