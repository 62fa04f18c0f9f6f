import { wordsOf, type SearchPlan } from '../search/search-query';

/**
 * Message search on PostgreSQL with tasks.db's words (pg-schema.ts v6). PostgreSQL's own
 * parser reads `src/core/x.ts` as one file token and `a.b.c` as a host name, where FTS5's
 * unicode61 sees words; so the catch-up builds each message's tsvector here from the words
 * search-query.ts splits (unicode61's: letters, digits, marks), folded as unicode61
 * `remove_diacritics 2` folds them, and a query is a tsquery of the same words. Nothing
 * goes through a text search configuration, so both indexes find the same messages.
 */

/** PostgreSQL's limits: a lexeme's bytes, a position, positions kept per lexeme. */
const MAX_LEXEME_BYTES = 2046;
const MAX_POSITION = 16383;
const MAX_POSITIONS = 256;

/** Latin letters with their combining marks (after NFD): the diacritics unicode61 removes. */
const LATIN_WITH_MARKS = /([A-Za-z\u00C0-\u024F\u1E00-\u1EFF])\p{M}+/gu;

/** A word as the index holds it: lower case, Latin diacritics removed (é → e, ß stays). */
export function foldWord(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(LATIN_WITH_MARKS, '$1').normalize('NFC');
}

function lexeme(word: string): string {
  // Words hold only letters, digits and marks: no quote or backslash to escape.
  return `'${word}'`;
}

/**
 * A text's words as a tsvector literal (`'word':1,5 'other':2`): positions count words as
 * unicode61 does, so phrases match as in FTS5. PostgreSQL keeps positions up to 16,383
 * and 256 per word; past them a word is still found, a phrase over them is not.
 */
export function tsvectorOf(text: string): string {
  const positions = new Map<string, number[]>();
  let at = 0;
  for (const raw of wordsOf(text)) {
    at++;
    const word = foldWord(raw);
    if (Buffer.byteLength(word) > MAX_LEXEME_BYTES) continue;
    let list = positions.get(word);
    if (!list) positions.set(word, (list = []));
    if (list.length < MAX_POSITIONS && at <= MAX_POSITION) list.push(at);
  }
  const parts: string[] = [];
  for (const [word, list] of positions)
    parts.push(list.length > 0 ? `${lexeme(word)}:${list.join(',')}` : lexeme(word));
  return parts.join(' ');
}

/** One term of a plan as a tsquery: its words in a row, the last a prefix when asked. */
function termQuery(words: readonly string[], prefix: boolean): string {
  const folded = words.map(foldWord);
  const last = folded.length - 1;
  const parts = folded.map((w, i) => `${lexeme(w)}${prefix && i === last ? ':*' : ''}`);
  return parts.length === 1 ? parts[0]! : `(${parts.join(' <-> ')})`;
}

/** The plan's terms as a tsquery literal: every term must match. */
export function tsqueryOf(plan: SearchPlan): string {
  return plan.terms.map((t) => termQuery(t.words, t.prefix)).join(' & ');
}

/** The tool filter as a tsquery over a message's tool names (their words in a row). */
export function toolQueryOf(tool: string): string | undefined {
  const words = wordsOf(tool);
  return words.length > 0 ? termQuery(words, false) : undefined;
}
