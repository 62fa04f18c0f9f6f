import { jsonOfText } from '../jsonl/json-text-memo';
import path from 'node:path';
import type { ToolRecord } from '../../shared/task-types';
import { RecordLog } from './record-log';
import { TASK_FILES } from './contexts-layout';
import { isoTimestamp } from '../iso-timestamp';

export interface NewToolCall {
  tool: string;
  args: unknown;
  result: string | null;
  status: 'success' | 'error';
  error?: string | null;
  duration_ms: number;
  tool_call_id?: string;
  /**
   * The message of messages.jsonl that holds `result` as its content: the record then refers
   * to it instead of holding a third copy of the output (readers fill `result` back in).
   */
  result_seq?: number;
  /** When the call ended, for calls read from a transcript; now when absent. */
  timestamp?: string;
}

/** tools.jsonl: one record per tool execution, written with both seeds' field names. */
export class ToolStore {
  private readonly log: RecordLog<ToolRecord>;

  /** `lazy`: the file is made at the first record; `batched`: records written together (RecordLog). */
  constructor(dir: string, fsync = false, lazy = false, batched = false) {
    const file = path.join(dir, TASK_FILES.tools);
    this.log = new RecordLog<ToolRecord>(file, 'seq', fsync, lazy, batched);
  }

  add(input: NewToolCall): ToolRecord {
    return this.log.append(
      (seq) => ({
        seq,
        tool: input.tool,
        tool_name: input.tool,
        args: input.args,
        arguments: input.args,
        result: input.result_seq !== undefined ? null : input.result,
        ...(input.result_seq !== undefined && { result_seq: input.result_seq }),
        status: input.status,
        error: input.error ?? null,
        duration_ms: Math.round(input.duration_ms),
        timestamp: input.timestamp ?? isoTimestamp(),
        ...(input.tool_call_id !== undefined && { tool_call_id: input.tool_call_id }),
      }),
      toolLine,
    );
  }

  count(): number {
    return this.log.count();
  }

  list(offset?: number, limit?: number): ReturnType<RecordLog<ToolRecord>['list']> {
    return this.log.list(offset, limit);
  }

  close(): void {
    this.log.close();
  }
}

/**
 * JSON.stringify(record), byte for byte, as the parts of its line: the arguments are encoded
 * once although both seeds' names (`args`, `arguments`) hold them (they can be a whole file
 * an agent wrote), and the parts are written one after the other instead of being joined
 * into one more copy of a tool's output first.
 */
export function toolLine(record: ToolRecord): string[] {
  const { seq, tool, tool_name, args, arguments: _same, result, ...rest } = record;
  const head = JSON.stringify({ seq, tool, tool_name });
  const json = JSON.stringify(args) as string | undefined;
  const parts = [head.slice(0, -1)];
  if (json !== undefined) parts.push(',"args":', json, ',"arguments":', json);
  // The output was most likely encoded just before, as its message's content.
  const output = typeof result === 'string' ? jsonOfText(result) : JSON.stringify(result);
  if (output !== undefined) parts.push(',"result":', output);
  const tail = JSON.stringify(rest);
  parts.push(tail.length > 2 ? `,${tail.slice(1)}` : '}');
  return parts;
}
