/**
 * Shared pieces of the reliability suite (test/reliability): a seeded random source (every
 * fault test prints its seed; CWB_FAULT_SEED=<n> replays a run), self-checking message
 * contents, and the checks run after every kill.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import type { ContextStore } from '../../src/core/store/context-store';
import { STATUS_FOLDERS, statusFolder } from '../../src/core/store/contexts-layout';
import { isTaskUuid } from '../../src/shared/uuid';
import type { MessageRecord, StatusFolder } from '../../src/shared/task-types';
import { contentIsIntact } from './checked-content';

export { checkedContent, contentIsIntact } from './checked-content';

/** mulberry32: small, fast, good enough to pick kill points reproducibly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: CWB_FAULT_SEED when set (to replay a failure), else the clock. */
export function faultSeed(): number {
  const fixed = Number(process.env.CWB_FAULT_SEED);
  return Number.isInteger(fixed) && fixed > 0 ? fixed : Date.now() % 2_147_483_647;
}

/** The bytes of a file up to and including its last '\n': its complete lines. */
export function completeLines(file: string): Buffer {
  if (!fs.existsSync(file)) return Buffer.alloc(0);
  const bytes = fs.readFileSync(file);
  return bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
}

/** Every line of a JSONL file, parsed; throws on a torn or malformed line. */
export function parseJsonl<T>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  if (text === '') return [];
  expect(text.endsWith('\n'), `${file} ends with a complete line`).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as T;
      } catch (err) {
        throw new Error(`${file} line ${i + 1} is not JSON: ${(err as Error).message}`, {
          cause: err,
        });
      }
    });
}

/**
 * messages.jsonl after a crash: every line parses, seq equals the line number, and every
 * self-checking content matches its checksum. Returns the records.
 */
export function assertMessagesIntact(file: string): MessageRecord[] {
  const records = parseJsonl<MessageRecord>(file);
  records.forEach((record, i) => {
    expect(record.seq, `${file} line ${i + 1}`).toBe(i + 1);
    if (record.content?.startsWith('{"i":')) {
      expect(contentIsIntact(record.content), `checksum of seq ${record.seq}`).toBe(true);
    }
  });
  return records;
}

/**
 * tasks.db agrees with the folders: every row has its folder exactly where its status
 * says (and nowhere else), and every task folder has a row.
 */
export function assertDbMatchesFolders(store: ContextStore): void {
  const rows = store.repo.allStatuses();
  const found = new Map<string, StatusFolder[]>();
  for (const folder of STATUS_FOLDERS) {
    const dir = path.join(store.root, folder);
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (!isTaskUuid(name)) continue;
      found.set(name, [...(found.get(name) ?? []), folder]);
    }
  }
  for (const [uuid, row] of rows) {
    expect(found.get(uuid), `folder of task ${uuid} (${row.status})`).toEqual([
      statusFolder(row.status),
    ]);
  }
  for (const uuid of found.keys()) expect(rows.has(uuid), `row of folder ${uuid}`).toBe(true);
}

/** Temp files of interrupted atomic rewrites (`.current.jsonl.tmp-<pid>-<hex>`). */
export function tempFilesIn(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => /^\..+\.tmp-/.test(n)) : [];
}

/** Collects a child's stdout lines and resolves when one matches. */
export class LineWatcher {
  readonly lines: string[] = [];
  private waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  private buffer = '';
  private ended = false;

  constructor(child: ChildProcess) {
    child.stdout!.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        for (const w of this.waiters.filter((w) => w.test(line))) w.resolve(line);
        this.waiters = this.waiters.filter((w) => !w.test(line));
      }
    });
    child.on('exit', () => {
      this.ended = true;
    });
  }

  /** Resolves with the first line (seen already or to come) that matches, or undefined if the child ends first. */
  waitFor(test: (line: string) => boolean, timeoutMs = 30_000): Promise<string | undefined> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no line matching within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs `count` jobs with at most `lanes` at once (children are CPU-bound at startup). */
export async function inLanes<T>(
  count: number,
  lanes: number,
  job: (lane: number, index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (next < count) {
        const i = next++;
        results[i] = await job(lane, i);
      }
    }),
  );
  return results;
}
