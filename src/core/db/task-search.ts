import { writeTx, type Db } from './open-database';

/**
 * Search over task titles and prompts: a case-insensitive (ASCII) substring match, exactly
 * what `title LIKE '%…%' OR prompt LIKE '%…%'` matches. LIKE alone reads every title and
 * prompt; the trigram index (tasks_search, schema v3) narrows that to the rows holding
 * every trigram of the text, and LIKE then decides on those few. The index folds case by
 * Unicode rules and LIKE by ASCII ones, so the candidates are a superset of the matches
 * and the LIKE check keeps the answer the same as before.
 */

/** The trigram tokenizer indexes runs of 3 characters: shorter text cannot use it. */
export const MIN_INDEXED_SEARCH_CHARS = 3;

/**
 * Trigrams looked up per search. Any subset still gives a superset of the matches, so a
 * long search text costs a bounded number of index lookups; LIKE checks the rest.
 */
const MAX_TRIGRAMS = 12;

/** Rows tokenized per backfill transaction (~tens of ms), so other writers wait little. */
const BACKFILL_BATCH = 100;

/** The LIKE pattern for `text`, with LIKE's wildcards (and the escape) made literal. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The FTS5 query that finds the candidates for `text`: its distinct trigrams ANDed, each
 * a quoted string so no character of the user's text is read as query syntax. Undefined
 * when the text is too short for the index.
 */
export function trigramQuery(text: string): string | undefined {
  const chars = Array.from(text); // code points, as the tokenizer counts them
  if (chars.length < MIN_INDEXED_SEARCH_CHARS) return undefined;
  const trigrams = [
    ...new Set(chars.slice(0, chars.length - 2).map((_, i) => chars.slice(i, i + 3).join(''))),
  ];
  // Spread the kept trigrams over the whole text rather than keeping its start only.
  const kept =
    trigrams.length <= MAX_TRIGRAMS
      ? trigrams
      : Array.from(
          { length: MAX_TRIGRAMS },
          (_, i) => trigrams[Math.round((i * (trigrams.length - 1)) / (MAX_TRIGRAMS - 1))]!,
        );
  return [...new Set(kept)].map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
}

/** True once every task is in the trigram index (the migration's backfill is finished). */
export function searchIndexReady(db: Db): boolean {
  return db.prepare('SELECT 1 FROM tasks_search_backfill').get() === undefined;
}

/**
 * Indexes the tasks the v3 migration left to index, a batch per BEGIN IMMEDIATE
 * transaction, until done or `budgetMs` has passed; returns whether the index is
 * complete. Safe from any number of processes at once: each batch reads and advances the
 * shared cursor under the write lock, so no row is indexed twice, and the triggers index
 * only the rows the cursor has passed (or that were added after the migration).
 */
export function backfillSearchIndex(db: Db, budgetMs: number): boolean {
  // The usual case, read without taking the write lock.
  if (searchIndexReady(db)) return true;
  const started = performance.now();
  for (;;) {
    const finished = writeTx(db, () => {
      const state = pendingRange(db);
      if (!state) return true;
      const { last } = db
        .prepare(
          `SELECT MAX(rowid) AS last FROM
             (SELECT rowid FROM tasks WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?)`,
        )
        .get(state.done, state.upto, BACKFILL_BATCH) as { last: number | null };
      const next = last ?? state.upto;
      db.prepare(
        `INSERT INTO tasks_search (rowid, title, prompt)
         SELECT rowid, title, prompt FROM tasks WHERE rowid > ? AND rowid <= ?`,
      ).run(state.done, next);
      if (next >= state.upto) {
        db.prepare('DELETE FROM tasks_search_backfill').run();
        return true;
      }
      db.prepare('UPDATE tasks_search_backfill SET done = ?').run(next);
      return false;
    });
    if (finished) return true;
    if (performance.now() - started >= budgetMs) return false;
  }
}

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Runs `insert` (rows added to tasks) with the search index of those rows left to
 * backfillSearchIndex. The insert trigger tokenizes a ~1 KiB prompt in about a millisecond,
 * which is nothing for one new task but minutes for 100,000 imported or generated at once,
 * all under the write lock; the backfill does the same work in short transactions later,
 * and search answers through LIKE alone until it is done. Only possible when no indexed row
 * would fall inside the pending range, i.e. when the pending range (if any) ends at the last
 * row; otherwise the rows are indexed by the trigger as usual.
 */
export function withSearchIndexDeferred<T>(db: Db, insert: () => T): T {
  return writeTx(db, () => {
    const last = lastRowid(db);
    const pending = pendingRange(db);
    if (pending && pending.upto !== last) return insert();
    const done = pending?.done ?? last;
    openRange(db, done);
    const result = insert();
    endRange(db, done);
    return result;
  });
}

/**
 * Runs `work` (many tasks made over many write transactions: a first sync of many sessions,
 * one commit per file) with the search entries of the rows it inserts left to the backfill,
 * then indexes them in BACKFILL_BATCH-row transactions. The insert trigger wrote each row's
 * trigrams (a prompt of up to 8,000 characters) as a segment of their own, in its own
 * transaction, for FTS5 to merge again and again: a third of each new row's insert. Search
 * answers through LIKE alone meanwhile, as during any backfill.
 *
 * The pending range is left open-ended while `work` runs (rows of other processes inserted
 * meanwhile are indexed by the backfill too) and ends at the last row afterwards. Another
 * process doing the same at once shares the range; the first to finish ends it, and rows
 * inserted after that are indexed by the trigger. A process that dies in between leaves the
 * range open: the next backfill (any listing) indexes what it holds and closes it. With a
 * pending range that ends before the last row (an unfinished v3 backfill), rows are indexed
 * by the trigger as usual.
 */
export async function withSearchIndexLater<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const deferred = writeTx(db, () => {
    const pending = pendingRange(db);
    if (pending?.upto === NO_LIMIT) return true;
    const last = lastRowid(db);
    if (pending && pending.upto !== last) return false;
    openRange(db, pending?.done ?? last);
    return true;
  });
  try {
    return await work();
  } finally {
    if (deferred) {
      try {
        writeTx(db, () => {
          const pending = pendingRange(db);
          if (pending?.upto === NO_LIMIT) endRange(db, pending.done);
        });
        backfillSearchIndex(db, NO_LIMIT);
      } catch {
        // The work is done and its rows are searchable (through LIKE); the pending range stays
        // for the next backfill (a listing, a host opening the store) to finish.
      }
    }
  }
}

/** The trigger skips rowids in (done, upto]: open-ended while rows go in. */
function openRange(db: Db, done: number): void {
  db.prepare('INSERT OR REPLACE INTO tasks_search_backfill (id, done, upto) VALUES (1, ?, ?)').run(
    done,
    NO_LIMIT,
  );
}

/** An open range ended at the last row, or dropped when no row went in after `done`. */
function endRange(db: Db, done: number): void {
  const upto = lastRowid(db);
  if (upto > done) db.prepare('UPDATE tasks_search_backfill SET upto = ?').run(upto);
  else db.prepare('DELETE FROM tasks_search_backfill').run();
}

function pendingRange(db: Db): { done: number; upto: number } | undefined {
  return db.prepare('SELECT done, upto FROM tasks_search_backfill').get() as
    { done: number; upto: number } | undefined;
}

function lastRowid(db: Db): number {
  const row = db.prepare('SELECT MAX(rowid) AS last FROM tasks').get() as { last: number | null };
  return row.last ?? 0;
}
