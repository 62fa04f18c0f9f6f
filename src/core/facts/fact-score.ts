import type { Fact } from './fact-types';

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
  const again = laterText && laterText.includes(fact.text) ? 5 : 0;
  return base + Math.min(4, fact.mentions - 1) + again + 3 * fact.recency;
}
