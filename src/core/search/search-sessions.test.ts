import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realTranscriptFiles } from '../../../test/support/real-transcript-files';
import { importPaths } from '../import';
import { ContextStore } from '../store/context-store';
import { indexedText } from './message-text';
import { indexPendingMessages, pendingTasks } from './message-index';
import { searchSessions } from './search-sessions';
import { wordsOf } from './search-query';
import type { MessageRecord } from '../../shared/task-types';

let root: string;
let store: ContextStore;

const dirOf = (row: { uuid: string; status: MessageRecord['role'] | string }) =>
  store.taskPath(row as never);

function search(query: string, extra: Partial<Parameters<typeof searchSessions>[2]> = {}) {
  return searchSessions(store.db, dirOf, { query, exact: false, limit: 200, ...extra });
}

/** Every (uuid, seq) whose indexed text holds all the words, read straight from the files. */
function bruteForce(test: (body: string) => boolean): Set<string> {
  const found = new Set<string>();
  for (const row of store.listTasks({ limit: 1000 }).rows) {
    const messages = store.readTask(row.uuid).messages(1, 100_000).messages;
    for (const m of messages) if (test(indexedText(m).body)) found.add(`${row.uuid}:${m.seq}`);
  }
  return found;
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-search-'));
  store = ContextStore.open(path.join(root, 'contexts'));
  const run = await importPaths(store, realTranscriptFiles());
  expect(run.results.length).toBeGreaterThan(8);
  pendingBefore = pendingTasks(store.db);
  firstCatchUp = indexPendingMessages(store.db, dirOf);
}, 120_000);

let pendingBefore = 0;
let firstCatchUp = { indexed: 0, remaining: -1 };

/** The hits are the expected matches (all of them, or the first 200 when more match). */
function expectHits(hits: ReturnType<typeof search>, expected: Set<string>): void {
  const got = new Set(hits.hits.map((h) => `${h.uuid}:${h.seq}`));
  expect(got.size).toBe(Math.min(200, expected.size));
  for (const id of got) expect(expected.has(id), id).toBe(true);
  expect(hits.more).toBe(expected.size > 200);
}

afterAll(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('search across sessions', () => {
  it('indexes every imported task, then nothing is pending', () => {
    expect(pendingBefore).toBeGreaterThan(0);
    expect(firstCatchUp.indexed).toBeGreaterThan(100);
    expect(firstCatchUp.remaining).toBe(0);
    expect(indexPendingMessages(store.db, dirOf).indexed).toBe(0);
  });

  it('finds exactly the messages holding a word, in every agent', () => {
    const hits = search('error');
    const expected = bruteForce((body) => wordsOf(body.toLowerCase()).includes('error'));
    expect(expected.size).toBeGreaterThan(5);
    expectHits(hits, expected);
    for (const h of hits.hits) {
      expect(h.match).not.toBeNull();
      expect(h.snippet.slice(h.match![0], h.match![1]).toLowerCase()).toBe('error');
    }
    expect(new Set(hits.hits.map((h) => h.agent)).size).toBeGreaterThan(2);
  });

  it('matches a path as its words in a row, and exact mode as typed', () => {
    const hits = search('pydicom/dataset.py');
    expect(hits.hits.length).toBeGreaterThan(0);
    const exact = searchSessions(store.db, dirOf, {
      query: 'pydicom/dataset.py',
      exact: true,
      limit: 200,
    });
    const expected = bruteForce((body) => body.includes('pydicom/dataset.py'));
    expectHits(exact, expected);
    for (const h of exact.hits) expect(h.snippet.slice(...h.match!)).toBe('pydicom/dataset.py');
    // Exact is case-sensitive; words are not.
    expect(
      searchSessions(store.db, dirOf, { query: 'PYDICOM/DATASET.PY', exact: true, limit: 10 }).hits,
    ).toEqual([]);
    expect(search('PYDICOM/DATASET.PY').hits.length).toBe(hits.hits.length);
  });

  it('supports phrases, prefixes and the filters', () => {
    const phrase = search('"no such file"');
    const expected = bruteForce((b) =>
      / no such file/i.test(` ${wordsOf(b.toLowerCase()).join(' ')}`),
    );
    expectHits(phrase, expected);
    const prefix = search('pydic*');
    expect(prefix.hits.length).toBeGreaterThanOrEqual(search('pydicom').hits.length);
    const all = search('the', { limit: 200 });
    const codex = search('the', { agent: 'codex', limit: 200 });
    expect(codex.hits.length).toBeGreaterThan(0);
    expect(codex.hits.every((h) => h.agent === 'codex')).toBe(true);
    expect(all.hits.some((h) => h.agent !== 'codex')).toBe(true);
    const users = search('the', { role: 'user' });
    expect(users.hits.length).toBeGreaterThan(0);
    expect(users.hits.every((h) => h.role === 'user')).toBe(true);
    const tools = search('the', { role: 'tool' });
    expect(tools.hits.every((h) => h.role === 'tool')).toBe(true);
    const limited = search('the', { limit: 3 });
    expect(limited.hits).toHaveLength(3);
    expect(limited.more).toBe(true);
  });

  it('refuses text with nothing to look for, never reading it as query syntax', () => {
    expect(() => search('"*()')).toThrow(/no letters or digits/);
    expect(() => search('NEAR(a b) OR "x')).not.toThrow();
  });

  it('finds an exact match behind many candidates that fail the check', async () => {
    // Newer tasks hold the path's words in another case: the index offers them first, the
    // exact check turns them down, and the search asks for more until it reaches the match.
    const older = store.createTask({ title: 'exact older' });
    older.addMessage({ role: 'user', content: 'open qwzkx/Store-Path.ts please' });
    await older.complete();
    for (let t = 0; t < 3; t++) {
      const newer = store.createTask({ title: `exact newer ${t}` });
      for (let i = 0; i < 40; i++)
        newer.addMessage({ role: 'tool', content: `line ${i}: QWZKX/store-path.ts` });
      await newer.complete();
    }
    indexPendingMessages(store.db, dirOf);
    const found = searchSessions(store.db, dirOf, {
      query: 'qwzkx/Store-Path.ts',
      exact: true,
      limit: 2,
    });
    expect(found.hits.map((h) => [h.uuid, h.seq])).toEqual([[older.uuid, 1]]);
    expect(found.more).toBe(false);
    expect(search('qwzkx/store-path.ts', { limit: 200 }).hits).toHaveLength(121);
  });

  it('keeps the index current when a task grows and drops a deleted task', () => {
    const row = store.listTasks({ limit: 1 }).rows[0]!;
    const task = store.openForMaintenance(row.uuid);
    task.addMessage({ role: 'user', content: 'zyxwvut marker for the search test' });
    task.flushStats();
    task.close();
    expect(pendingTasks(store.db)).toBe(1);
    indexPendingMessages(store.db, dirOf);
    const hits = search('zyxwvut');
    expect(hits.hits.map((h) => h.uuid)).toEqual([row.uuid]);
    store.repo.write(() => store.repo.delete(row.uuid));
    expect(search('zyxwvut').hits).toEqual([]);
  });
});
