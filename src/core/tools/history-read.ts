import type { MessageRecord } from '../../shared/task-types';
import { allLines, headAndTail } from './fit-lines';
import { callText, messageHeader } from './history-format';
import { shortenLine } from './output-limits';
import type { History } from './history-source';
import type { ToolResult } from './tool-types';
import { failure, success } from './tool-types';

export interface ReadRequest {
  fromSeq: number;
  toSeq: number;
  /** to_seq as the model gave it, when it did: past the end, the output says where it ends. */
  askedToSeq: number | undefined;
  budgetBytes: number;
  signal: AbortSignal | undefined;
}

/** Room kept for the note under a message that had to be shortened. */
const NOTE_BYTES = 512;

/** Between two messages: a blank line, so a header is not read as a line of the one before. */
const SEPARATOR = '\n\n';

/**
 * Messages fromSeq..toSeq in order, as many whole ones as fit in the budget; the output ends
 * saying which seq continues. A first message too long for the budget on its own is shown
 * shortened (its first and last lines), with a note saying how to find the rest.
 */
export async function readHistory(history: History, request: ReadRequest): Promise<ToolResult> {
  const blocks: string[] = [];
  let bytes = 0;
  let lastShown = request.fromSeq;
  let continueAt: number | undefined;
  for await (const entry of history.entries(request.fromSeq, request.toSeq)) {
    if (request.signal?.aborted) return failure('history_recall was cancelled');
    const room = request.budgetBytes - bytes - SEPARATOR.length;
    const block =
      'unreadable' in entry
        ? fitted(
            `#${entry.seq} [this line of the history cannot be read: ${entry.unreadable}]`,
            room,
          )
        : messageBlock(entry.seq, entry.message, room);
    if (block === undefined) {
      if (blocks.length > 0) {
        continueAt = entry.seq;
        break;
      }
      // Nothing shown yet: one message is longer than the whole budget.
      blocks.push(
        shortenedBlock(entry.seq, 'unreadable' in entry ? undefined : entry.message, room),
      );
      lastShown = entry.seq;
      if (entry.seq < Math.min(request.toSeq, history.count)) continueAt = entry.seq + 1;
      break;
    }
    blocks.push(block);
    bytes += Buffer.byteLength(block) + SEPARATOR.length;
    lastShown = entry.seq;
  }
  const footer: string[] = [];
  if (continueAt !== undefined) {
    footer.push(
      `[messages #${request.fromSeq}-#${lastShown} shown; more follow: continue with from_seq=${continueAt}]`,
    );
  } else if (request.askedToSeq !== undefined && request.askedToSeq > history.count) {
    footer.push(`[the history ends at #${history.count}]`);
  }
  return success([blocks.join(SEPARATOR), ...footer].join('\n'));
}

/** The header and the body of a message when they fit in `room` bytes. */
function messageBlock(seq: number, message: MessageRecord, room: number): string | undefined {
  const header = messageHeader(seq, message);
  const body = allLines(messageBody(message), room - Buffer.byteLength(header) - 1);
  return body === undefined ? undefined : `${header}\n${body}`;
}

function fitted(text: string, room: number): string | undefined {
  return Buffer.byteLength(text) <= room ? text : undefined;
}

/** A message's content, then each tool call as "→ name(arguments)". */
function messageBody(message: MessageRecord): string {
  const calls = (message.tool_calls ?? []).map((call) => `→ ${callText(call)}`);
  const content = message.content === null || message.content === '' ? [] : [message.content];
  const parts = [...content, ...calls];
  return parts.length > 0 ? parts.join('\n') : '(no content)';
}

function shortenedBlock(seq: number, message: MessageRecord | undefined, room: number): string {
  if (message === undefined) return `#${seq} [this line of the history cannot be read]`;
  const header = messageHeader(seq, message);
  const view = headAndTail(messageBody(message), room - Buffer.byteLength(header) - NOTE_BYTES);
  const ref =
    message.output_ref === undefined
      ? ''
      : `; the whole output is also saved: tool_output_cache with ref_id=${shortenLine(message.output_ref, 100)}`;
  const left =
    view.omittedLines > 0 ? `: ${view.omittedLines} lines in its middle are left out` : '';
  const note = `[message #${seq} is too long to show whole${left}; find lines in it with pattern and from_seq=${seq}, to_seq=${seq}${ref}]`;
  return `${header}\n${view.text}\n${note}`;
}
