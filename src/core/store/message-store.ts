import path from 'node:path';
import type {
  CurrentMessage,
  MessageKind,
  MessageRecord,
  TokenUsage,
  ToolCall,
  MessageRole,
} from '../../shared/task-types';
import { AppendLog } from '../jsonl/append-log';
import { encodeLinePair, partText } from '../jsonl/write-line';
import { OffsetIndex, SIDECAR_MIN_BYTES } from '../jsonl/offset-index';
import { readLinesSync } from '../jsonl/line-reader';
import { countCompleteLines } from '../jsonl/count-lines';
import {
  readCurrentWindow,
  readMessageWindow,
  isPartial,
  parseEntry,
  type CurrentWindow,
  type MessageWindow,
} from './message-window';
import { asCurrentMessage, isToolCall } from './message-shape';
import {
  countCharacters,
  estimateTokens,
  tokensOf,
  type CharacterCounts,
} from '../tokens/estimate';
import { DEFAULT_MAX_LINE_BYTES } from '../jsonl/constants';
import { TASK_FILES } from './contexts-layout';
import { runAll } from './run-all';
import { badInput } from '../errors';
import { readView } from '../compaction/read-view';
import { currentLines } from '../compaction/materialize';
import { writeFileAtomicChunks } from '../jsonl/atomic-write';
import { lineChunks } from '../jsonl/line-chunks';
import { flagHeldLines, rewriteHistoryOnly } from './history-only-rewrite';
import { HeldCurrentLines } from './held-current-lines';
import { jsonOfText } from '../jsonl/json-text-memo';
import { activeRecords } from '../compaction/compaction-record';
import { isoTimestamp } from '../iso-timestamp';

export interface NewMessage {
  role: MessageRole;
  content: string | null;
  tool_name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  kind?: MessageKind;
  usage?: TokenUsage;
  compaction_id?: number;
  output_ref?: string;
  /** Keep the message out of current.jsonl (e.g. a summary whose view is rebuilt separately). */
  historyOnly?: boolean;
  timestamp?: string;
  /** The model that wrote this reply (MessageRecord.model). */
  model?: string;
}

/**
 * messages.jsonl (every message, append-only, never rewritten) and current.jsonl (what the
 * model sees now, OpenAI-compatible). Nothing of the conversation is kept in memory: only
 * the next seq and the running token count of current.jsonl. seq equals the line number
 * in messages.jsonl, so the offset index finds any seq in O(1).
 */
export class MessageStore {
  private readonly logs: { messages: AppendLog; current: AppendLog } | undefined;
  private index: OffsetIndex;
  private currentTokens: number | undefined;
  /** Lines of current.jsonl, counted once and then kept like currentTokens (writer only). */
  private currentLines: number | undefined;
  private readonly fsync: boolean;
  private readonly batched: boolean;
  /** A new session held whole: its current.jsonl lines by message (held-current-lines.ts). */
  private heldCurrent: HeldCurrentLines | undefined;

  private constructor(
    readonly dir: string,
    options: { fsync: boolean; readonly: boolean; batched: boolean },
  ) {
    this.fsync = options.fsync;
    const indexPath = path.join(dir, TASK_FILES.messagesIndex);
    const logOptions = {
      fsync: options.fsync,
      batched: options.batched,
      ...(options.batched && { batchBytes: HELD_BYTES }),
    };
    this.batched = options.batched;
    this.logs = options.readonly
      ? undefined
      : {
          messages: new AppendLog(this.messagesPath, logOptions),
          // A current.jsonl line never reaches the disk before its message's line: a kill
          // then leaves current.jsonl behind messages.jsonl, which opening for writing repairs.
          current: new AppendLog(this.currentPath, {
            ...logOptions,
            ...(options.batched && { beforeWrite: () => this.writeHeldMessages() }),
          }),
        };
    this.index = this.openIndex(indexPath, options.readonly);
    // An empty context (a new task) holds nothing to count: the running totals start at 0
    // instead of reading current.jsonl back at the first statistics.
    if (this.logs?.current.size === 0) {
      this.currentTokens = 0;
      this.currentLines = 0;
    }
    if (this.batched && this.logs?.messages.size === 0 && this.logs.current.size === 0)
      this.heldCurrent = new HeldCurrentLines();
  }

  /**
   * `readonly` never writes (not even the index), so it is safe beside the task's own writer.
   * `batched` (the sources' sync): lines are held in memory and written together, at the
   * latest when the store is closed; nothing reads the task's files meanwhile but this store,
   * which writes what it holds before it reads.
   */
  static open(
    dir: string,
    options: { fsync?: boolean; readonly?: boolean; batched?: boolean } = {},
  ): MessageStore {
    return new MessageStore(dir, {
      fsync: options.fsync ?? false,
      readonly: options.readonly ?? false,
      batched: options.batched ?? false,
    });
  }

  /** The offset index; a writer's entries reach the disk only after their lines (writeHeld). */
  private openIndex(indexPath: string, readonly: boolean): OffsetIndex {
    return OffsetIndex.open(this.messagesPath, indexPath, {
      readonly,
      ...(this.logs && { beforeWrite: () => this.writeHeldMessages() }),
      // A short session's task has no sidecar until a writer of a longer one makes it.
      ...(this.batched && { pendingEntries: HELD_ENTRIES, withoutSidecarBelow: SIDECAR_MIN_BYTES }),
    });
  }

  /**
   * Writes the messages.jsonl lines held in memory. When that fails they are lost, so the
   * index forgets them too: an entry must never point past the file.
   */
  private writeHeldMessages(): void {
    try {
      this.logs!.messages.flush();
    } catch (error) {
      this.forgetLostLines();
      throw error;
    }
  }

  /**
   * After a failed write of held lines: the index keeps only the lines in messages.jsonl, and
   * the held current.jsonl lines go too (with those of messages written before, which opening
   * the task for writing puts back: current.jsonl may lag messages.jsonl, never lead it).
   */
  private forgetLostLines(): void {
    const logs = this.logs!;
    const size = logs.messages.size;
    let kept = this.index.count;
    while (kept > 0 && this.index.offsetOf(kept) >= size) kept--;
    if (kept < this.index.count) this.index.truncate(kept);
    logs.current.truncateTo(logs.current.onDisk);
    this.heldCurrent = undefined;
  }

  /**
   * Writes every held line before a read: messages.jsonl, current.jsonl (each throws when
   * its lines are lost), then the index entries (derived: a failure is repaired on open).
   */
  private writeHeld(): void {
    if (!this.logs) return;
    this.writeHeldMessages();
    this.logs.current.flush();
    this.flushIndex();
  }

  get messagesPath(): string {
    return path.join(this.dir, TASK_FILES.messages);
  }

  get currentPath(): string {
    return path.join(this.dir, TASK_FILES.current);
  }

  /** Number of messages in messages.jsonl (and the last seq). */
  get count(): number {
    return this.index.count;
  }

  /** seed 000 add_message: assigns the next seq, counts tokens, appends to both files. */
  append(input: NewMessage): MessageRecord {
    if (!this.logs) throw new Error(`messages of ${this.dir} were opened read-only`);
    if (input.content !== null && typeof input.content !== 'string') {
      throw badInput('message content must be a string or null');
    }
    // Each part is encoded once and shared by both lines and the estimate: a tool output is
    // stringified once instead of twice, and no spread copies of the record are made.
    const contentJson =
      typeof input.content === 'string' ? jsonOfText(input.content) : JSON.stringify(input.content);
    const toolCallsJson =
      input.tool_calls !== undefined ? JSON.stringify(input.tool_calls) : undefined;
    // The message's estimate counts its content and its calls apart; current.jsonl's total
    // counts them as one text, as currentTokenCount() reads them back. Both come from one
    // scan of each part.
    const contentCounts = input.content ? countCharacters(input.content) : NO_CHARACTERS;
    const callCounts =
      toolCallsJson !== undefined && input.tool_calls ? countCharacters(toolCallsJson) : undefined;
    let tokens = tokensOf(contentCounts);
    if (callCounts && !(Array.isArray(input.tool_calls) && input.tool_calls.length === 0)) {
      tokens += tokensOf(callCounts);
    }
    const seq = this.index.count + 1;
    const timestamp = input.timestamp ?? isoTimestamp();
    const record: MessageRecord = {
      seq,
      role: input.role,
      content: input.content,
      timestamp,
      tokens,
      token_counter: 'estimate',
    };
    // The fields current.jsonl shares with messages.jsonl, in the same order in both. Both
    // lines are written as parts, never joined: an answer's tool calls or a tool's output
    // would otherwise be copied once more per line (at 4,000 tool calls, ~0.5 MB each).
    const shared: string[] = [];
    if (input.tool_name !== undefined) {
      record.tool_name = input.tool_name;
      shared.push(`,"tool_name":${JSON.stringify(input.tool_name)}`);
    }
    if (toolCallsJson !== undefined) {
      record.tool_calls = input.tool_calls;
      shared.push(',"tool_calls":', toolCallsJson);
    }
    if (input.tool_call_id !== undefined) {
      record.tool_call_id = input.tool_call_id;
      shared.push(`,"tool_call_id":${JSON.stringify(input.tool_call_id)}`);
    }
    if (input.name !== undefined) {
      record.name = input.name;
      shared.push(`,"name":${JSON.stringify(input.name)}`);
    }
    let own = '';
    if (input.kind !== undefined && input.kind !== 'message') {
      record.kind = input.kind;
      own += `,"kind":${JSON.stringify(input.kind)}`;
    }
    if (input.usage !== undefined) {
      record.usage = input.usage;
      own += `,"usage":${JSON.stringify(input.usage)}`;
    }
    if (input.compaction_id !== undefined) {
      record.compaction_id = input.compaction_id;
      own += `,"compaction_id":${JSON.stringify(input.compaction_id)}`;
    }
    if (input.output_ref !== undefined) {
      record.output_ref = input.output_ref;
      own += `,"output_ref":${JSON.stringify(input.output_ref)}`;
    }
    if (input.historyOnly) {
      record.history_only = true;
      own += ',"history_only":true';
    }
    if (input.model !== undefined) {
      record.model = input.model;
      own += `,"model":${JSON.stringify(input.model)}`;
    }
    const role = JSON.stringify(input.role);
    // Line first, index second: after a crash between the two, opening the index catches up.
    // A crash before the current.jsonl line is caught up when the task is next opened for
    // writing (syncCurrent).
    const messageLine = [
      `{"seq":${seq},"role":${role},"content":`,
      contentJson,
      `,"timestamp":${JSON.stringify(timestamp)},"tokens":${tokens},"token_counter":"estimate"`,
    ];
    for (const part of shared) messageLine.push(part);
    messageLine.push(`${own}}`);
    // current.jsonl's line refers to the parts it shares with messages.jsonl's by index
    // (content is part 1, the shared fields start at 3): their bytes are encoded once.
    let currentLine: (string | number)[] | undefined;
    if (!input.historyOnly) {
      currentLine = [`{"role":${role},"content":`, 1];
      for (let i = 0; i < shared.length; i++) currentLine.push(3 + i);
      currentLine.push('}');
    }
    const encoded = currentLine ? encodeLinePair(messageLine, currentLine) : undefined;
    let offset: number;
    try {
      ({ offset } = encoded
        ? this.logs.messages.appendEncoded(encoded[0])
        : this.logs.messages.append(messageLine));
    } catch (error) {
      // A batched log may have lost the lines it held (written to make room for this one).
      this.forgetLostLines();
      throw error;
    }
    const indexed = this.index.count;
    let currentAt = -1;
    try {
      this.index.append(offset);
      if (encoded) currentAt = this.logs.current.appendEncoded(encoded[1]).offset;
      else if (currentLine) {
        // Too long to encode in one piece: written as parts, not kept among held lines.
        this.logs.current.append(currentLine.map((part) => partText(messageLine, part)));
        this.heldCurrent = undefined;
      }
    } catch (error) {
      // A write failed (disk full): the message was not stored, so it leaves no trace, and
      // the next append gets this seq and lands in both files.
      this.heldCurrent = undefined;
      this.rollBack(offset, indexed);
      throw error;
    }
    // The line's tokens as current.jsonl's total counts them, when it reads back as written.
    const readBack = readsBackAs(input, encoded?.[1].length)
      ? tokensOf(sumCounts(contentCounts, callCounts))
      : undefined;
    if (this.heldCurrent)
      this.holdCurrentLine(seq, currentAt, encoded?.[1].length ?? 0, readBack ?? NaN, input);
    if (!input.historyOnly) {
      if (this.currentTokens !== undefined)
        this.currentTokens = readBack !== undefined ? this.currentTokens + readBack : undefined;
      if (this.currentLines !== undefined) this.currentLines++;
    }
    return record;
  }

  /** Keeps where message `seq`'s current.jsonl line is held, while the store holds it all. */
  private holdCurrentLine(
    seq: number,
    at: number,
    length: number,
    tokens: number,
    input: NewMessage,
  ): void {
    if (!this.heldWhole()) {
      this.heldCurrent = undefined;
      return;
    }
    this.heldCurrent!.add(seq, at, length, tokens, input.compaction_id !== undefined);
  }

  /**
   * Writes the offset-index entries kept in memory (the task's step ends), so readers in other
   * processes find a complete index instead of scanning the tail. A failure is left for the
   * next flush or for open(), which rebuilds missing entries from messages.jsonl.
   */
  flushIndex(): void {
    try {
      this.index.flush();
    } catch {
      // Derived data: messages.jsonl already holds every line.
    }
  }

  private rollBack(offset: number, indexed: number): void {
    try {
      if (this.index.count > indexed) this.index.truncate(indexed);
      this.logs?.messages.truncateTo(offset);
    } catch {
      // Truncating frees space, so this hardly fails; if it does, reopening the task repairs
      // the index and brings current.jsonl up to date with the history.
    }
  }

  /** Up to `limit` messages starting at `fromSeq`, read through the offset index. */
  readWindow(fromSeq: number, limit: number): MessageWindow {
    this.writeHeld();
    return readMessageWindow(this.messagesPath, this.index, fromSeq, limit);
  }

  /** The last `n` messages. */
  readTail(n: number): MessageWindow {
    return this.readWindow(Math.max(1, this.index.count - n + 1), n);
  }

  /** Lines of current.jsonl from `fromIndex` (1-based). */
  readCurrent(fromIndex: number, limit: number): CurrentWindow {
    this.writeHeld();
    return readCurrentWindow(this.currentPath, fromIndex, limit);
  }

  /** seed 001 get_current_token_count: estimate over current.jsonl, streamed once then kept as a running total. */
  currentTokenCount(): number {
    if (this.currentTokens === undefined) {
      this.writeHeld();
      let total = 0;
      for (const entry of readLinesSync(this.currentPath)) {
        if ('tooLong' in entry) {
          total += Math.floor(entry.bytes / 4);
          continue;
        }
        if (isPartial(entry)) continue;
        const parsed = parseEntry(entry, this.currentPath, asCurrentMessage);
        if (parsed.ok) total += currentMessageTokens(parsed.value);
      }
      this.currentTokens = total;
    }
    return this.currentTokens;
  }

  /**
   * Number of lines in current.jsonl. Compaction checks ask after every step, so it is
   * counted on the bytes once and then kept as a running total by the writer; a read-only
   * store (beside a running writer) counts each time.
   */
  currentCount(): number {
    if (this.currentLines !== undefined) return this.currentLines;
    this.writeHeld();
    const lines = countCompleteLines(this.currentPath);
    if (this.logs) this.currentLines = lines;
    return lines;
  }

  /**
   * Live source tasks only (src/core/sources): the other agent compacted its own context, so
   * its messages up to `throughSeq` — but `keep`, such as its system prompt — leave the
   * context as `cwb import` leaves them: history-only. messages.jsonl is rewritten once per
   * compaction, atomically, with the same lines and seqs plus the flag (readers that cache it
   * by inode read it again), and current.jsonl is rebuilt from the view. Repeating it (a sync
   * redone after a kill) changes nothing more. Both files are flushed to disk only with
   * durability 'fsync', as the lines appended before them are: the renames keep a killed
   * process from leaving a mix, and the session can be read again (four fsyncs per compacted
   * task were a tenth of a first sync, docs/benchmarks.md §14).
   */
  markHistoryOnly(throughSeq: number, keep: ReadonlySet<number>): void {
    if (!this.logs) throw new Error(`messages of ${this.dir} were opened read-only`);
    if (this.heldWhole()) {
      this.flagHeld(throughSeq, keep);
      return;
    }
    this.writeHeld();
    const indexPath = path.join(this.dir, TASK_FILES.messagesIndex);
    const durable = { fsync: this.fsync };
    if (rewriteHistoryOnly(this.messagesPath, this.index, indexPath, throughSeq, keep, durable)) {
      this.logs.messages.reopen();
      this.index.close();
      this.index = this.openIndex(indexPath, false);
    }
    // Also when every line was flagged already: a try cut short may have left current.jsonl.
    const made = this.viewLines();
    writeFileAtomicChunks(this.currentPath, lineChunks(made.lines), durable);
    this.currentReplaced();
    this.currentTokens = made.tokens();
    this.currentLines = made.count;
  }

  /**
   * current.jsonl's lines for the view the files hold now. Their token total is counted as
   * they are made, as currentTokenCount() would count them reading the file back (that read
   * was a tenth of a first sync's commits): `tokens()` once `lines` has been gone through.
   */
  private viewLines(): { lines: Generator<string>; count: number; tokens: () => number } {
    const { view } = readView(this.dir);
    let tokens = 0;
    const lines = function* (): Generator<string> {
      for (const line of currentLines(view)) {
        tokens += lineTokens(line);
        yield line;
      }
    };
    return { lines: lines(), count: view.length, tokens: () => tokens };
  }

  /** Nothing of messages.jsonl, its index or current.jsonl has reached the disk yet. */
  private heldWhole(): boolean {
    const logs = this.logs!;
    return (
      this.batched &&
      logs.messages.onDisk === 0 &&
      logs.current.onDisk === 0 &&
      this.index.allPending
    );
  }

  /**
   * markHistoryOnly for a new session held whole (the first sync of a compacted session):
   * the flags are set in the held lines, and current.jsonl is made from the view once, where
   * the file route would write both files a second time through temporary files. A process
   * killed on the way leaves files the sync's redo rewrites (the counts were not committed).
   */
  private flagHeld(throughSeq: number, keep: ReadonlySet<number>): void {
    const logs = this.logs!;
    const offsets: number[] = [];
    for (let seq = 1; seq <= this.index.count; seq++) offsets.push(this.index.offsetOf(seq));
    const flagged = flagHeldLines(logs.messages.heldBytes(), offsets, throughSeq, keep);
    if (flagged) {
      logs.messages.replaceHeld(flagged.lines);
      this.index.replacePending(flagged.offsets);
    }
    // current.jsonl is made anew from the held lines of the view, or from the view read back
    // from the files (the messages go first).
    const lines = this.heldCurrent?.count === this.index.count ? this.heldCurrent : undefined;
    const held = lines?.viewOf(
      logs.current.heldBytes(),
      activeRecords(this.dir).records.at(-1),
      (seq) => lines.lineless(seq) || (seq <= throughSeq && !keep.has(seq)),
    );
    this.heldCurrent = undefined;
    this.writeHeldMessages();
    this.flushIndex();
    if (held) {
      logs.current.replaceHeld(held.lines);
      this.currentTokens = held.tokens;
      this.currentLines = held.count;
      return;
    }
    logs.current.truncateTo(0);
    const made = this.viewLines();
    // Each line is made with its newline.
    for (const line of made.lines) logs.current.appendEncoded(Buffer.from(line, 'utf8'));
    this.currentTokens = made.tokens();
    this.currentLines = made.count;
  }

  /** Call after current.jsonl was replaced (compaction, undo): the running total is recomputed lazily. */
  currentReplaced(): void {
    this.currentTokens = undefined;
    this.currentLines = undefined;
    this.heldCurrent = undefined;
    this.logs?.current.reopen();
  }

  /**
   * Writes what is held and closes the files. Throws when held lines could not be written
   * (a batched store): they are lost, and the caller must not count them as stored.
   */
  close(): void {
    runAll([
      () => this.writeHeld(),
      () => this.logs?.messages.close(),
      () => this.logs?.current.close(),
      () => this.index.close(),
    ]);
  }
}

const NO_CHARACTERS: CharacterCounts = { characters: 0, japanese: 0 };
/**
 * What a batched store (the sources' sync) holds before it writes: a new session's files,
 * whole up to this size, so the flags of the agent's own compactions are set in memory
 * instead of by rewriting the file (markHistoryOnly).
 */
const HELD_BYTES = 4 * 1024 * 1024;
/** Index entries held as long: lines of ~64 bytes or more fill HELD_BYTES first. */
const HELD_ENTRIES = 64 * 1024;

/** What currentTokenCount() counts for one message of current.jsonl. */
function currentMessageTokens(msg: CurrentMessage): number {
  return estimateTokens(
    (msg.content ?? '') + (msg.tool_calls ? JSON.stringify(msg.tool_calls) : ''),
  );
}

/** What currentTokenCount() counts for one line of current.jsonl (with its '\n'), read back. */
function lineTokens(line: string): number {
  const bytes = Buffer.byteLength(line) - 1;
  if (bytes > DEFAULT_MAX_LINE_BYTES) return Math.floor(bytes / 4);
  const parsed = asCurrentMessage(JSON.parse(line));
  return parsed.ok ? currentMessageTokens(parsed.value) : 0;
}

function sumCounts(a: CharacterCounts, b: CharacterCounts | undefined): CharacterCounts {
  return b ? { characters: a.characters + b.characters, japanese: a.japanese + b.japanese } : a;
}

/**
 * Whether currentTokenCount() reading this message's current.jsonl line back counts its
 * content and calls as written: not for a line too long for the reader (it estimates those
 * from their bytes) or calls it drops as malformed. Otherwise the running total is dropped
 * and read back once, so it always equals what reading the file gives.
 */
function readsBackAs(input: NewMessage, lineBytes: number | undefined): boolean {
  if (lineBytes === undefined || lineBytes >= DEFAULT_MAX_LINE_BYTES) return false;
  const calls: unknown = input.tool_calls;
  if (calls === undefined || calls === null) return true;
  return Array.isArray(calls) && calls.every(isToolCall);
}

/** The OpenAI-compatible projection of a message (seed 000 §3.3: no seq, timestamp or tokens). */
export function toCurrent(record: MessageRecord | NewMessage): CurrentMessage {
  return {
    role: record.role,
    content: record.content,
    ...(record.tool_name !== undefined && { tool_name: record.tool_name }),
    ...(record.tool_calls !== undefined && { tool_calls: record.tool_calls }),
    ...(record.tool_call_id !== undefined && { tool_call_id: record.tool_call_id }),
    ...(record.name !== undefined && { name: record.name }),
  };
}
