/**
 * A user's search text as an FTS5 query over messages_search (unicode61 words). No
 * character of the text is ever read as FTS5 syntax: every word goes in as a quoted string.
 *
 * Words mode: each space-separated term must appear; a term of several words (a path,
 * `snake_case`, `a.b.c`) must appear as those words in a row; "quoted text" is a phrase; a
 * term ending in `*` is a prefix. Exact mode: the whole text as one phrase, its last word a
 * prefix, and the message must then contain the text as typed (case and punctuation
 * included): the index finds candidates, the message decides.
 */

/** A word as unicode61 splits text: letters, digits and combining marks. */
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export interface SearchPlan {
  /** The FTS5 MATCH expression for the message text. */
  match: string;
  /** Lowercased words to mark in a snippet (words mode). */
  words: string[];
  /** The exact text a message must contain (exact mode). */
  exact?: string;
  /** Every term must match: its words in a row, the last a prefix when `prefix` (for PostgreSQL). */
  terms: { words: string[]; prefix: boolean }[];
}

export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

function quoted(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

function phrase(words: readonly string[], prefix: boolean): string {
  return `${quoted(words.join(' '))}${prefix ? '*' : ''}`;
}

/** The terms of a words-mode query: quoted phrases and bare terms. */
function termsOf(query: string): { text: string; quoted: boolean }[] {
  const terms: { text: string; quoted: boolean }[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(query); m; m = re.exec(query)) {
    if (m[1] !== undefined) terms.push({ text: m[1], quoted: true });
    else terms.push({ text: m[2]!, quoted: false });
  }
  return terms;
}

/** Undefined when the text has no word to look for (only punctuation). */
export function planSearch(query: string, exact: boolean): SearchPlan | undefined {
  if (exact) {
    const text = query.trim();
    const words = wordsOf(text);
    if (words.length === 0) return undefined;
    // The text may end inside a word ("src/core/sto"): its last word is a prefix.
    const endsInWord = /[\p{L}\p{N}\p{M}\p{Co}]$/u.test(text);
    return {
      match: phrase(words, endsInWord),
      words: words.map((w) => w.toLowerCase()),
      exact: text,
      terms: [{ words, prefix: endsInWord }],
    };
  }
  const parts: string[] = [];
  const words: string[] = [];
  const terms: SearchPlan['terms'] = [];
  for (const term of termsOf(query)) {
    const prefix = !term.quoted && term.text.endsWith('*');
    const w = wordsOf(term.text);
    if (w.length === 0) continue;
    words.push(...w.map((x) => x.toLowerCase()));
    parts.push(w.length === 1 && !prefix ? quoted(w[0]!) : phrase(w, prefix));
    terms.push({ words: w, prefix });
  }
  if (parts.length === 0) return undefined;
  return { match: parts.join(' AND '), words: [...new Set(words)], terms };
}

/** The FTS5 expression for a plan with the role and tool filters (columns of the index). */
export function matchExpression(
  plan: SearchPlan,
  filters: { role?: string; tool?: string },
): string {
  const parts = [`body : (${plan.match})`];
  if (filters.role) parts.push(`role : ${quoted(filters.role)}`);
  const toolWords = filters.tool ? wordsOf(filters.tool) : [];
  if (toolWords.length > 0) parts.push(`tool : ${phrase(toolWords, false)}`);
  return parts.join(' AND ');
}
