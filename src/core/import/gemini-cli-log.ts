/**
 * A Gemini CLI chat as a list of what happened in it, from either file the CLI writes:
 *
 * - the JSON document of releases before 0.38 (`session-*.json`, rewritten whole): its
 *   `messages` in order;
 * - the JSON Lines log of newer releases (`session-*.jsonl`, and sub-agent chats
 *   `chats/<parent session id>/<id>.jsonl`; gemini-cli's chatRecordingService): a first
 *   line with the session's metadata, then records appended as the chat goes —
 *   a message (it has an `id`; the same id again is that message rewritten: tool calls,
 *   their results and tokens arrive this way), `{$set: {...}}` (metadata; with `messages`, a
 *   checkpoint: the model's history is now exactly that list), `{$rewindTo: id}` (the
 *   history is cut before that message).
 *
 * A checkpoint that drops messages and brings a `<state_snapshot>` summary is the CLI's
 * compression: the new history is the summary, the model's acknowledgement and the turns
 * it kept, each first appended as a message of its own just before the checkpoint (the
 * summary first). Those
 * messages belong to the compaction (its new context), not to the conversation.
 */
import { readJsonl } from '../jsonl/jsonl-reader';
import { contentText, isRecord } from './text';

export type GeminiRecord = Record<string, unknown>;

export type GeminiItem =
  | { type: 'message'; id: string; index: number }
  /** The CLI's own compression, as the JSON Lines log records it. */
  | { type: 'checkpoint'; line: number; list: GeminiRecord[] }
  | { type: 'ignore'; what: string }
  | { type: 'skip'; where: string; reason: string };

export interface GeminiLog {
  head: GeminiRecord;
  items: GeminiItem[];
  /** Each message's last version, by id. */
  latest: Map<string, GeminiRecord>;
}

const SNAPSHOT = '<state_snapshot>';

/** A first line that starts a JSON Lines chat (not a whole document on one line). */
export function isGeminiLogHead(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.sessionId === 'string' &&
    typeof value.projectHash === 'string' &&
    !Array.isArray(value.messages) &&
    !('type' in value)
  );
}

/** The legacy document: its messages, in order (ids made up where a message has none). */
export function geminiDocumentLog(doc: GeminiRecord): GeminiLog {
  const { messages, ...head } = doc;
  const items: GeminiItem[] = [];
  const latest = new Map<string, GeminiRecord>();
  (Array.isArray(messages) ? messages : []).forEach((m, index) => {
    const id = isRecord(m) && typeof m.id === 'string' ? m.id : `#${index}`;
    if (!isRecord(m)) {
      items.push({ type: 'skip', where: `message ${index + 1}`, reason: 'not an object' });
      return;
    }
    if (latest.has(id)) return;
    latest.set(id, m);
    items.push({ type: 'message', id, index });
  });
  return { head, items, latest };
}

export function isSnapshotMessage(m: GeminiRecord): boolean {
  return m.type === 'user' && contentText(m.content).includes(SNAPSHOT);
}

/** Reads a JSON Lines chat line by line (only each message's last version is kept). */
export async function readGeminiLog(file: string, maxLineBytes?: number): Promise<GeminiLog> {
  const log: GeminiLog = { head: {}, items: [], latest: new Map() };
  const firstItem = new Map<string, number>();
  let live: string[] = [];
  let index = 0;
  const addMessage = (m: GeminiRecord & { id: string }): void => {
    if (!log.latest.has(m.id)) {
      firstItem.set(m.id, log.items.length);
      log.items.push({ type: 'message', id: m.id, index: index++ });
    }
    log.latest.set(m.id, m);
    if (!live.includes(m.id)) live.push(m.id);
  };
  for await (const entry of readJsonl(file, maxLineBytes !== undefined ? { maxLineBytes } : {})) {
    // The CLI appends whole lines: a last line without its newline is still being written.
    if (entry.partial) break;
    if (!entry.ok) {
      log.items.push({ type: 'skip', where: `line ${entry.lineNo}`, reason: entry.error });
      continue;
    }
    const value = entry.value;
    if (!isRecord(value)) {
      log.items.push({ type: 'skip', where: `line ${entry.lineNo}`, reason: 'not an object' });
    } else if (typeof value.$rewindTo === 'string') {
      const at = live.indexOf(value.$rewindTo);
      live = at >= 0 ? live.slice(0, at) : [];
      log.items.push({ type: 'ignore', what: 'gemini rewind' });
    } else if (typeof value.id === 'string') {
      addMessage(value as GeminiRecord & { id: string });
    } else if (isRecord(value.$set)) {
      const { messages, ...meta } = value.$set;
      Object.assign(log.head, meta);
      if (Array.isArray(messages)) {
        const list = messages.filter(
          (m): m is GeminiRecord & { id: string } => isRecord(m) && typeof m.id === 'string',
        );
        live = checkpoint(log, live, list, firstItem, entry.lineNo);
      }
    } else if (typeof value.sessionId === 'string') {
      const { messages, ...meta } = value;
      Object.assign(log.head, meta);
      // A legacy record migrated onto one line keeps its messages there.
      if (Array.isArray(messages))
        for (const m of messages)
          if (isRecord(m) && typeof m.id === 'string')
            addMessage(m as GeminiRecord & { id: string });
    } else
      log.items.push({ type: 'skip', where: `line ${entry.lineNo}`, reason: 'unknown record' });
  }
  return log;
}

/**
 * A `$set` of `messages`: the history is now that list. When it drops messages and carries
 * a state snapshot, it is a compression; the list's messages appended for it (after every
 * message it dropped) leave the conversation's flow to become its new context. Otherwise
 * (a turn rolled back, thoughts stripped, results refreshed) the conversation is unchanged.
 */
function checkpoint(
  log: GeminiLog,
  live: string[],
  list: (GeminiRecord & { id: string })[],
  firstItem: Map<string, number>,
  lineNo: number,
): string[] {
  const ids = new Set(list.map((m) => m.id));
  const removed = live.filter((id) => !ids.has(id));
  const snapshot = list.find(isSnapshotMessage);
  if (removed.length > 0 && snapshot) {
    // The CLI appends the new history in its order, the summary first: from there on, a
    // message of the list is one of those (turns it kept under their own ids come before).
    const from = firstItem.get(snapshot.id) ?? Infinity;
    for (const m of list) {
      const at = firstItem.get(m.id);
      if (at !== undefined && at >= from)
        log.items[at] = { type: 'ignore', what: 'gemini compression history (its new context)' };
    }
    log.items.push({ type: 'checkpoint', line: lineNo, list });
  } else if (removed.length > 0)
    log.items.push({ type: 'ignore', what: 'gemini history rollback' });
  else log.items.push({ type: 'ignore', what: 'gemini history checkpoint' });
  return list.map((m) => m.id);
}
