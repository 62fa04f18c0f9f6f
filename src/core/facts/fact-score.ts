import type { Fact } from './fact-types';

/** A name the agent was only shown: listed when the budget has room after what it did. */
const SEEN_BASE = 1;
/**
 * What the agent typed itself comes first: measured on 77 real Claude Code compactions,
 * most facts it typed after a compaction it had typed before (docs/benchmarks.md).
 */
const TYPED_BONUS = 6;

/** Higher first: what the agent needs to carry on. */
export function factScore(fact: Fact, laterText: string): number {
  let base: number;
  switch (fact.kind) {
    case 'instruction':
      // The user's words matter, but the digest or summary states the request already; a
      // long message must not crowd out the errors and files that prove what happened.
      base = 8;
      break;
    case 'error':
      base = 10;
      break;
    case 'command':
      base = fact.failed ? 10 : 6;
      break;
    case 'path':
      base = fact.written ? 9 : 4;
      break;
    case 'number':
    case 'url':
      base = 4;
      break;
    case 'identifier':
      base = 3;
  }
  // Only shown to the agent (a name in a file it read): a candidate, behind what it did.
  if (fact.seen && !fact.typed && !fact.written && !fact.failed) base = SEEN_BASE;
  const typed = fact.typed || fact.kind === 'command' ? TYPED_BONUS : 0;
  const again = laterText && laterText.includes(fact.text) ? 5 : 0;
  return base + typed + Math.min(4, fact.mentions - 1) + again + 3 * fact.recency;
}
