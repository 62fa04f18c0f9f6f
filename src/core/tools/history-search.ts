import type { MessageRole } from '../../shared/task-types';
import { show } from './confine-path';
import { messageHeader, searchableParts } from './history-format';
import type { History } from './history-source';
import { matchingLines } from './line-matches';
import { NewestHits, byMessageNewestFirst, type Hit } from './newest-hits';
import { UnreadableLines } from './unreadable-lines';
import type { ToolResult } from './tool-types';
import { failure, success } from './tool-types';

export interface SearchRequest {
  pattern: string;
  /** Built from `pattern` with the flags g and m (and i unless case-sensitive). */
  regex: RegExp;
  fromSeq: number;
  toSeq: number;
  role: MessageRole | undefined;
  maxMatches: number;
  /** history_recall's own calls and results: searching them would find old searches. */
  skipTool: string;
  budgetBytes: number;
  signal: AbortSignal | undefined;
}

/**
 * Every matching line of messages fromSeq..toSeq, newest message first. The whole range is
 * read to count the matches, but only the newest `maxMatches` are kept, each cut to a
 * snippet, so memory does not grow with the history.
 */
export async function searchHistory(history: History, request: SearchRequest): Promise<ToolResult> {
  const { regex, role, skipTool, signal } = request;
  const hits = new NewestHits(request.maxMatches);
  const unreadable = new UnreadableLines();
  let messagesMatched = 0;
  for await (const entry of history.entries(request.fromSeq, request.toSeq)) {
    if (signal?.aborted) return failure('history_recall was cancelled');
    if ('unreadable' in entry) {
      unreadable.add(entry.seq);
      continue;
    }
    const { seq, message } = entry;
    if (role !== undefined && message.role !== role) continue;
    if (message.role === 'tool' && message.tool_name === skipTool) continue;
    const header = messageHeader(seq, message);
    const before = hits.total;
    for (const part of searchableParts(message, skipTool)) {
      for (const match of matchingLines(regex, part.text)) {
        const where = part.kind === 'call' ? 'call' : `line ${match.lineNo}`;
        hits.add({ seq, line: `${header} ${where}: ${match.snippet}` });
      }
    }
    if (hits.total > before) messagesMatched++;
  }
  const range = rangeText(request, history.count);
  if (hits.total === 0) {
    return success(
      [`no matches for ${show(request.pattern)} in ${range}`, unreadable.note()]
        .filter(Boolean)
        .join('\n'),
    );
  }
  const shown = fitHits(hits.newestFirst(), request.budgetBytes);
  const lines = byMessageNewestFirst(shown.hits).map((hit) => hit.line);
  const found = `${count(hits.total, 'matching line')} in ${count(messagesMatched, 'message')} (${range})`;
  const nextUnshownSeq = shown.nextSeq ?? hits.newestDroppedSeq;
  if (nextUnshownSeq === undefined) {
    lines.push(`[${found}, newest first]`);
  } else {
    const left = hits.total - lines.length;
    const oldestShown = shown.hits.at(-1)?.seq;
    lines.push(
      `[${found}; ${lines.length} shown, newest first; ${left} older not shown: ${howToReach(nextUnshownSeq, oldestShown, hits.oldestSeq)}]`,
    );
  }
  const note = unreadable.note();
  if (note) lines.push(note);
  return success(lines.join('\n'));
}

/** The newest hits that fit in the budget, and the seq of the newest one left out. */
function fitHits(
  newestFirst: readonly Hit[],
  budgetBytes: number,
): { hits: Hit[]; nextSeq: number | undefined } {
  const hits: Hit[] = [];
  let bytes = 0;
  for (const hit of newestFirst) {
    const size = Buffer.byteLength(hit.line) + 1;
    if (bytes + size > budgetBytes) break;
    hits.push(hit);
    bytes += size;
  }
  return { hits, nextSeq: newestFirst[hits.length]?.seq };
}

/**
 * Every match left out is in message `nextSeq` or an older one. A seq range cannot split a
 * message, so when the oldest message shown still has matches left, the way to them is
 * reading that message or a narrower pattern.
 */
function howToReach(
  nextSeq: number,
  oldestShown: number | undefined,
  oldestSeq: number | undefined,
): string {
  if (nextSeq !== oldestShown) return `narrow the pattern or search again with to_seq=${nextSeq}`;
  const older =
    oldestSeq !== undefined && oldestSeq < nextSeq
      ? `; for older messages search again with to_seq=${nextSeq - 1}`
      : '';
  return `message #${nextSeq} has more matching lines (read it with from_seq=${nextSeq}, to_seq=${nextSeq}, or narrow the pattern)${older}`;
}

function rangeText(request: SearchRequest, count: number): string {
  const last = Math.min(request.toSeq, count);
  const roles = request.role === undefined ? '' : `, ${request.role} messages only`;
  return `messages #${request.fromSeq}-#${last}${roles}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
