import type { CurrentMessage } from '../../shared/task-types';
import { ledgerTokens, withDroppedFacts, type LedgerBudget } from '../facts/fact-ledger';
import { RECALL_NOTE } from '../facts/fact-ledger';
import { LEDGER_HEADING, splitLedger } from '../facts/fact-ledger-text';
import type { SpanMessage } from '../facts/span-facts';
import { RECALL_TOOL_NAME } from '../tools/history-recall-tool';
import { estimateTokens } from '../tokens/estimate';
import { entrySeq, viewTokens, type ViewEntry } from './view';

const SHORT_NOTE_BELOW = 400;
/** Beside a carried ledger, what the new messages add gets at least this much room. */
const MIN_NEW_FACT_TOKENS = 150;

/** The entries of a span as the fact extractor reads them. */
export function spanMessages(entries: readonly ViewEntry[]): SpanMessage[] {
  return entries.map((e) => {
    const kind = e.record?.kind ?? e.create;
    const stored = e.record?.content;
    const shortened = typeof stored === 'string' && stored !== e.message.content;
    return {
      message: e.message,
      ...(kind !== undefined && { kind }),
      ...(shortened && { original: stored }),
    };
  });
}

/** Everything a context shows, as one text: where a fact is looked for to tell whether it survived. */
export function contextText(entries: readonly ViewEntry[]): string {
  return entries.map(messageText).join('\n');
}

export function messageText(message: { message: CurrentMessage } | CurrentMessage): string {
  const m = 'message' in message ? message.message : message;
  const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`);
  return [m.content ?? '', ...calls].join('\n');
}

/**
 * A summary of `span` with the facts it does not state appended as a ledger, under the
 * budget the config sets; `later` (the messages kept after the span) tells which facts are
 * referred to again; `alsoStated` is text beside the summary whose facts need no repeating.
 * The same for the extractive digest and for a model's summary.
 */
export function withFactLedger(
  summary: string,
  span: readonly ViewEntry[],
  later: readonly ViewEntry[],
  budget: LedgerBudget,
  alsoStated?: string,
): string {
  if (budget.max_tokens <= 0) return summary;
  const seqs = span.map(entrySeq).filter((s): s is number => s !== undefined);
  const seqRange = seqs.length > 0 ? `#${Math.min(...seqs)}–#${Math.max(...seqs)}` : '';
  const range = seqRange ? ` (${seqRange})` : '';
  // Earlier ledgers in the span are evidence already condensed: they carry over at their
  // size (up to max_tokens), or summarizing a summary would shrink its ledger every time.
  const carried = carriedLedgerTokens(span);
  const fresh = ledgerTokens(viewTokens(span) - carried, budget);
  const maxTokens = Math.min(
    budget.max_tokens,
    carried > 0 ? Math.max(fresh, MIN_NEW_FACT_TOKENS) + carried : fresh,
  );
  // A small budget is better spent on facts than on explaining them.
  const note =
    maxTokens < SHORT_NOTE_BELOW
      ? `From ${seqRange || 'the compacted messages'}; \`${RECALL_TOOL_NAME}\` reads them all.`
      : `Facts of the ${span.length} compacted messages${range} not stated above. ${RECALL_NOTE(RECALL_TOOL_NAME)}`;
  const out = withDroppedFacts(summary, spanMessages(span), {
    maxTokens,
    laterText: contextText(later),
    note,
    ...(alsoStated && { alsoStated }),
  });
  // A summary that states every fact still tells the model where the originals are.
  return out.includes(LEDGER_HEADING)
    ? out
    : `${out}\n\n(\`${RECALL_TOOL_NAME}\` searches or reads the ${span.length} compacted messages${range}.)`;
}

function carriedLedgerTokens(span: readonly ViewEntry[]): number {
  let tokens = 0;
  for (const e of span) {
    const content = e.message.content ?? '';
    const { body, ledger } = splitLedger(content);
    if (ledger.length > 0) tokens += estimateTokens(content.slice(body.length));
  }
  return tokens;
}

/** Tokens the ledger added to a text (for dry runs, whose summary is only an estimate). */
export function ledgerPart(withLedger: string, without: string): number {
  return Math.max(0, estimateTokens(withLedger) - estimateTokens(without));
}
