import fs from 'node:fs';
import path from 'node:path';
import type { NewMessage } from '../../src/core/store/message-store';
import { ContextStore } from '../../src/core/store/context-store';
import { indexPendingMessages } from '../../src/core/search/message-index';
import { searchSessions } from '../../src/core/search/search-sessions';
import { indexedText } from '../../src/core/search/message-text';
import { wordsOf } from '../../src/core/search/search-query';
import { appendTasks, buildCorpus, dropSearchIndex, realMessagePool } from '../lib/search-corpus';
import { buildSourcesHome, firstSync } from './sources-sync';
import { removeTree } from '../lib/processes';
import { count, mb, ms, ratio } from '../lib/format';
import { median, pairedRatio, percentile, rng } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

const MESSAGES = 1_000_000;
const PER_TASK = 1_000;
const QUERY_GOAL_MS = 100;
const SIZE_GOAL = 1.5;
const QUERIES_PER_KIND = 20;
/** Hits a search returns (the UI's first page). */
const LIMIT = 50;

type Kind = 'word' | 'phrase' | 'path';

const UPKEEP_TASKS = 20;
const UPKEEP_PER_TASK = 1_000;
const COPIES = 5;
/** Pairs of the upkeep figures (writers of a few seconds move a lot on a shared machine). */
const UPKEEP_RUNS = 5;
const UPKEEP_GOAL = 0.9;

type Side = 'with' | 'without';

/** Times of one writer (append or sync) with the index and without, and the catch-up after it. */
interface UpkeepTimes {
  write: Record<Side, number[]>;
  catchUp: number[];
}

function catchUp(contexts: string): number {
  const store = ContextStore.open(contexts);
  try {
    const started = performance.now();
    indexPendingMessages(store.db, (r) => store.taskPath(r));
    return performance.now() - started;
  } finally {
    store.close();
  }
}

async function measureUpkeep(
  ctx: BenchContext,
  write: (contexts: string) => Promise<number>,
  name: string,
): Promise<UpkeepTimes> {
  const times: UpkeepTimes = { write: { with: [], without: [] }, catchUp: [] };
  for (let i = 0; i < Math.max(ctx.runs, UPKEEP_RUNS); i++) {
    const order: Side[] = i % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
    for (const side of order) {
      const contexts = path.join(ctx.tmp, `${name}-${side}-${i}`);
      ContextStore.open(contexts).close();
      if (side === 'without') dropSearchIndex(contexts);
      times.write[side].push(await write(contexts));
      if (side === 'with') times.catchUp.push(catchUp(contexts));
      removeTree(contexts);
    }
  }
  return times;
}

function upkeepRows(what: string, unit: string, amount: number, t: UpkeepTimes): Row[] {
  const perSecond = (msValue: number): string => `${count((amount / msValue) * 1000)} ${unit}/s`;
  const writer = pairedRatio(t.write.without, t.write.with);
  const whole = pairedRatio(
    t.write.without,
    t.write.with.map((w, i) => w + t.catchUp[i]!),
  );
  return [
    row(
      `${what}: the writer with the index (its triggers; indexing left to the catch-up) vs without`,
      perSecond(median(t.write.with)),
      `${perSecond(median(t.write.without))} without`,
      ratio(writer),
      `≥ ${UPKEEP_GOAL}× (the index costs ≤ 10 %)`,
      judge(writer >= UPKEEP_GOAL, `${ratio(writer)}`),
    ),
    row(
      `${what}: the writer and then the catch-up indexing it (total work) vs the writer without the index`,
      perSecond(median(t.write.with.map((w, i) => w + t.catchUp[i]!))),
      `${perSecond(median(t.write.without))} without`,
      ratio(whole),
      '— (reported; see the notes)',
    ),
  ];
}

/** Queries of each kind taken from the pool's own text, the same on every run. */
export function sampleQueries(pool: readonly NewMessage[], n: number): Record<Kind, string[]> {
  const random = rng(33);
  const texts = pool.map((m) => indexedText(m).body).filter((t) => t.length > 0);
  const out: Record<Kind, Set<string>> = { word: new Set(), phrase: new Set(), path: new Set() };
  const paths = new Set<string>();
  for (const t of texts)
    for (const p of t.match(/(?:[\w.-]+\/)+[\w.-]*[A-Za-z][\w-]*\.[A-Za-z]{1,5}\b/g) ?? [])
      if (p.length >= 8 && p.length <= 80) paths.add(p);
  const pathList = [...paths].sort();
  for (let tries = 0; tries < 100_000; tries++) {
    const done = Object.values(out).every((s) => s.size >= n);
    if (done) break;
    const words = wordsOf(texts[Math.floor(random() * texts.length)]!).filter(
      (w) => w.length >= 4 && w.length <= 20 && !/^\d+$/.test(w),
    );
    if (words.length < 3) continue;
    const i = Math.floor(random() * (words.length - 2));
    if (out.word.size < n) out.word.add(words[i]!.toLowerCase());
    if (out.phrase.size < n) out.phrase.add(`"${words.slice(i, i + 3).join(' ')}"`);
  }
  while (out.path.size < Math.min(n, pathList.length))
    out.path.add(pathList[Math.floor(random() * pathList.length)]!);
  return { word: [...out.word], phrase: [...out.phrase], path: [...out.path] };
}

const KINDS: { kind: Kind; label: string; exact: boolean }[] = [
  { kind: 'word', label: 'a word', exact: false },
  { kind: 'phrase', label: 'a phrase ("three words")', exact: false },
  { kind: 'path', label: 'a path, exact mode (`--exact`, the UI toggle)', exact: true },
  { kind: 'path', label: 'a path, words mode (its words in a row)', exact: false },
];

/** The index's pages in tasks.db (dbstat): the FTS5 table's shadow tables. */
function indexBytes(store: ContextStore): number {
  const { size } = store.db
    .prepare(
      `SELECT sum(pgsize) AS size FROM dbstat WHERE name IN
        ('messages_search_data', 'messages_search_idx', 'messages_search_docsize',
         'messages_search_config', 'messages_search_state')`,
    )
    .get() as { size: number };
  return size;
}

function queryRows(ctx: BenchContext, store: ContextStore, pool: readonly NewMessage[]): Row[] {
  const queries = sampleQueries(pool, QUERIES_PER_KIND);
  const rows: Row[] = [];
  for (const { kind, label, exact } of KINDS) {
    const times: number[] = [];
    let hits = 0;
    let empty = 0;
    for (let r = 0; r < ctx.runs; r++)
      for (const query of queries[kind]) {
        const started = performance.now();
        const result = searchSessions(store.db, (x) => store.taskPath(x), {
          query,
          exact,
          limit: LIMIT,
        });
        times.push(performance.now() - started);
        hits += result.hits.length;
        if (result.hits.length === 0) empty++;
      }
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    ctx.log(`  ${label}: p50 ${ms(p50)} p95 ${ms(p95)} max ${ms(Math.max(...times))}`);
    rows.push(
      row(
        `${label}: ${queries[kind].length} queries × ${ctx.runs} (${count(hits / times.length)} hits a query on average, ${Math.round(empty / ctx.runs)} with none)`,
        `p50 ${ms(p50)}, p95 ${ms(p95)}`,
        '—',
        '—',
        `p95 ≤ ${QUERY_GOAL_MS} ms`,
        judge(p95 <= QUERY_GOAL_MS, `p95 ${ms(p95)}`),
      ),
    );
  }
  return rows;
}

export const searchGroup: BenchGroup = {
  id: 'search',
  title: 'Search across sessions at 1,000,000 messages',
  about: `The messages of the real session fixtures (what a first sync of the sources-sync group's Claude Code, Codex, Gemini CLI, Cline and OpenHands files writes: ~560 messages, a median of ~0.4 KiB and up to ~40 KiB each) appended again through the task API (\`TaskContextManager.addMessage\`) until there are ${count(MESSAGES)} messages in tasks of ${count(PER_TASK)}, each task starting at another place in them, one task's files open at a time; then the index built to the end by the catch-up the product runs (\`indexPendingMessages\`, batches of ≤ 400 messages). Each query is \`searchSessions\` as \`cwb search\` and the API call it (a page of ${LIMIT} hits, each with its snippet read from messages.jsonl), ${QUERIES_PER_KIND} different queries of each kind taken from the messages' own text with a fixed seed (words and three-word phrases of ≥ 4 letters, some phrases matching nothing; paths such as \`swc/helpers/_/_defaults/package.json\`), each run once per bench run (three by default); p50 and p95 over all of them. Index size: the FTS5 table's pages in tasks.db (dbstat) against the characters it indexed. Upkeep: ${count(UPKEEP_TASKS * UPKEEP_PER_TASK)} messages appended in ${UPKEEP_TASKS} tasks, and a first sync of the sources-sync group's fixtures ×${COPIES}, each into a new contexts folder with the index (schema v8) and without it (its triggers and table dropped), taking turns, ${UPKEEP_RUNS} pairs; then the catch-up that indexes what the writer wrote, timed apart.`,
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const pool = await realMessagePool(ctx.repoRoot, ctx.tmp);
    ctx.log(`  pool: ${count(pool.length)} messages`);
    const contexts = path.join(ctx.tmp, 'contexts');
    const corpus = buildCorpus(contexts, pool, MESSAGES, PER_TASK, ctx.log);
    ctx.log(
      `  corpus: ${count(corpus.messages)} messages, ${mb(corpus.bytes)} in ${ms(corpus.ms)}`,
    );
    const store = ContextStore.open(contexts);
    let backfill: { ms: number; chars: number; size: number };
    try {
      const started = performance.now();
      indexPendingMessages(store.db, (r) => store.taskPath(r));
      const indexMs = performance.now() - started;
      const { chars } = store.db
        .prepare('SELECT sum(chars) AS chars FROM messages_search_state')
        .get() as { chars: number };
      backfill = { ms: indexMs, chars, size: indexBytes(store) };
      ctx.log(`  indexed in ${ms(indexMs)}: ${mb(backfill.size)} for ${count(chars)} characters`);
      rows.push(...queryRows(ctx, store, pool));
    } finally {
      store.close();
    }
    removeTree(contexts);
    const sizeRatio = backfill.size / backfill.chars;
    rows.push(
      row(
        `index size against the text it covers (${count(corpus.messages)} messages, ${mb(corpus.bytes)} of messages.jsonl)`,
        mb(backfill.size),
        `${mb(backfill.chars)} of text (${count(backfill.chars)} characters)`,
        ratio(sizeRatio),
        `≤ ${SIZE_GOAL}×`,
        judge(sizeRatio <= SIZE_GOAL, ratio(sizeRatio)),
      ),
      row(
        `building the index of ${count(corpus.messages)} messages (the backfill of existing tasks; its batches interleave with other writers)`,
        `${count((corpus.messages / backfill.ms) * 1000)} msg/s (${ms(backfill.ms)})`,
        `${count((corpus.messages / corpus.ms) * 1000)} msg/s appending them (${ms(corpus.ms)})`,
        ratio(corpus.ms / backfill.ms),
      ),
    );
    const appended = UPKEEP_TASKS * UPKEEP_PER_TASK;
    const append = await measureUpkeep(
      ctx,
      async (dir) => appendTasks(dir, pool, UPKEEP_TASKS, UPKEEP_PER_TASK),
      'append',
    );
    rows.push(...upkeepRows(`append, ${count(appended)} messages`, 'msg', appended, append));
    const home = path.join(ctx.tmp, 'home');
    const files = buildSourcesHome(ctx.repoRoot, home, COPIES);
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    const sync = await measureUpkeep(ctx, async (dir) => (await firstSync(home, dir)).ms, 'sync');
    rows.push(
      ...upkeepRows(
        `first sync of the sources, ${count(files.length)} files (${mb(bytes)})`,
        'file',
        files.length,
        sync,
      ),
    );
    return { rows, notes: NOTES };
  },
};

const NOTES: string[] = [
  'Writers never tokenize (docs/search-and-usage.md): a trigger marks a task whose message count changed, and the catch-up (`cwb serve` and the app every 2 s for ≤ 200 ms, `cwb import` after importing, a search before answering) reads the new lines and indexes them. So the writer rows measure what the index costs an appending task process or a sync, and the "total work" rows add the catch-up that indexes the same messages afterwards. The goal is judged on the writer: tokenizing text into FTS5 costs more than writing it to a file (the total work rows), and no full-text index can be kept by a writer at ≤ 10 % of an append; keeping it off the writer\'s path is how the index meets the goal, and the catch-up\'s share of a host is bounded by its 200 ms slices.',
  "The corpus repeats ~560 real messages: the index's dictionary is smaller than a million distinct messages would make it (its posting lists, most of the index, are not), and a query's hits are spread like those of a word that is common in real sessions. Queries are taken from the same text, so every word and path has hits (a tenth of the phrases have none: their words are adjacent only after short words are dropped, which makes FTS5 read their posting lists to the end).",
  "Tried for the path goal (2026-11-28): an exact search first asked FTS5 for 4× the limit (200) candidates at once; it now asks for the limit + 1 and grows the page only when candidates fail the exact check (a path's candidates nearly all contain it), and a hit reads only its own line of messages.jsonl (the reader allocated and read a 64 KiB chunk for a ~1 KiB line). At 200,000 messages the paths' mean went from 70 to 31 ms on the loaded machine.",
];
