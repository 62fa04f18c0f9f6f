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
import { OffsetIndex } from '../jsonl/offset-index';
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
import { asCurrentMessage } from './message-shape';
import { countMessageTokens } from '../tokens';
import { estimateTokens } from '../tokens/estimate';
import { TASK_FILES } from './contexts-layout';
import { badInput } from '../errors';

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
}

/**
 * messages.jsonl (every message, append-only, never rewritten) and current.jsonl (what the
 * model sees now, OpenAI-compatible). Nothing of the conversation is kept in memory: only
 * the next seq and the running token count of current.jsonl. seq equals the line number
 * in messages.jsonl, so the offset index finds any seq in O(1).
 */
export class MessageStore {
  private readonly logs: { messages: AppendLog; current: AppendLog } | undefined;
  private readonly index: OffsetIndex;
  private currentTokens: number | undefined;
  /** Lines of current.jsonl, counted once and then kept like currentTokens (writer only). */
  private currentLines: number | undefined;

  private constructor(
    readonly dir: string,
    options: { fsync: boolean; readonly: boolean },
  ) {
    const indexPath = path.join(dir, TASK_FILES.messagesIndex);
    this.index = OffsetIndex.open(this.messagesPath, indexPath, { readonly: options.readonly });
    this.logs = options.readonly
      ? undefined
      : {
          messages: new AppendLog(this.messagesPath, { fsync: options.fsync }),
          current: new AppendLog(this.currentPath, { fsync: options.fsync }),
        };
  }

  /** `readonly` never writes (not even the index), so it is safe beside the task's own writer. */
  static open(dir: string, options: { fsync?: boolean; readonly?: boolean } = {}): MessageStore {
    return new MessageStore(dir, {
      fsync: options.fsync ?? false,
      readonly: options.readonly ?? false,
    });
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
    const counted = countMessageTokens(input);
    const record: MessageRecord = {
      seq: this.index.count + 1,
      role: input.role,
      content: input.content,
      timestamp: input.timestamp ?? new Date().toISOString(),
      tokens: counted.tokens,
      tokens_o200k: counted.tokens_o200k,
      ...(input.tool_name !== undefined && { tool_name: input.tool_name }),
      ...(input.tool_calls !== undefined && { tool_calls: input.tool_calls }),
      ...(input.tool_call_id !== undefined && { tool_call_id: input.tool_call_id }),
      ...(input.name !== undefined && { name: input.name }),
      ...(input.kind !== undefined && input.kind !== 'message' && { kind: input.kind }),
      ...(input.usage !== undefined && { usage: input.usage }),
      ...(input.compaction_id !== undefined && { compaction_id: input.compaction_id }),
      ...(input.output_ref !== undefined && { output_ref: input.output_ref }),
      ...(input.historyOnly && { history_only: true as const }),
    };
    // Line first, index second: after a crash between the two, opening the index catches up.
    // A crash before the current.jsonl line is caught up when the task is next opened for
    // writing (syncCurrent).
    const { offset } = this.logs.messages.append(JSON.stringify(record));
    const indexed = this.index.count;
    try {
      this.index.append(offset);
      if (!input.historyOnly) this.logs.current.append(JSON.stringify(toCurrent(record)));
    } catch (error) {
      // A write failed (disk full): the message was not stored, so it leaves no trace, and
      // the next append gets this seq and lands in both files.
      this.rollBack(offset, indexed);
      throw error;
    }
    if (!input.historyOnly) {
      if (this.currentTokens !== undefined) this.currentTokens += record.tokens;
      if (this.currentLines !== undefined) this.currentLines++;
    }
    return record;
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
    return readMessageWindow(this.messagesPath, this.index, fromSeq, limit);
  }

  /** The last `n` messages. */
  readTail(n: number): MessageWindow {
    return this.readWindow(Math.max(1, this.index.count - n + 1), n);
  }

  /** Lines of current.jsonl from `fromIndex` (1-based). */
  readCurrent(fromIndex: number, limit: number): CurrentWindow {
    return readCurrentWindow(this.currentPath, fromIndex, limit);
  }

  /** seed 001 get_current_token_count: estimate over current.jsonl, streamed once then kept as a running total. */
  currentTokenCount(): number {
    if (this.currentTokens === undefined) {
      let total = 0;
      for (const entry of readLinesSync(this.currentPath)) {
        if ('tooLong' in entry) {
          total += Math.floor(entry.bytes / 4);
          continue;
        }
        if (isPartial(entry)) continue;
        const parsed = parseEntry(entry, this.currentPath, asCurrentMessage);
        if (!parsed.ok) continue;
        const msg = parsed.value;
        total += estimateTokens(
          (msg.content ?? '') + (msg.tool_calls ? JSON.stringify(msg.tool_calls) : ''),
        );
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
    const lines = countCompleteLines(this.currentPath);
    if (this.logs) this.currentLines = lines;
    return lines;
  }

  /** Call after current.jsonl was replaced (compaction, undo): the running total is recomputed lazily. */
  currentReplaced(): void {
    this.currentTokens = undefined;
    this.currentLines = undefined;
    this.logs?.current.reopen();
  }

  close(): void {
    this.logs?.messages.close();
    this.logs?.current.close();
    this.index.close();
  }
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
