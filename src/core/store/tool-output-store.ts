import fs from 'node:fs';
import path from 'node:path';
import { TASK_FILES } from './contexts-layout';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { readLinesSync } from '../jsonl/line-reader';
import { fsyncDirectory } from '../jsonl/fsync-dir';
import { badInput, notFound } from '../errors';
import { randomHex } from '../random-hex';

const REF_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SavedOutput {
  ref: string;
  bytes: number;
}

/**
 * tool_outputs/: full tool outputs kept on disk so the context can hold a short view and a
 * reference (seed 002 ToolOutputRef). Refs are checked against a fixed alphabet before they
 * become file names.
 */
export class ToolOutputStore {
  readonly dir: string;
  /** Files written by saveCopy that sync() has not made durable yet. */
  private readonly unsynced = new Set<string>();

  constructor(taskDir: string) {
    this.dir = path.join(taskDir, TASK_FILES.toolOutputs);
  }

  /** Saves an output that exists nowhere else (a tool's cut output): durable on return. */
  save(content: string, prefix = 'out'): SavedOutput {
    const ref = this.newRef(prefix);
    writeFileAtomic(this.file(ref), content);
    return { ref, bytes: Buffer.byteLength(content) };
  }

  /**
   * Saves a copy of an output messages.jsonl already holds (a compaction trimming it). One
   * fsync per file made a trim of thousands of outputs take half a minute, so the copies are
   * written straight away and made durable together by sync(), which the caller awaits before
   * it records the refs. A crash before that leaves only files no record names (their fresh
   * random refs are unknown to every reader), which `cwb gc` removes.
   */
  saveCopy(content: string, prefix = 'out'): SavedOutput {
    const ref = this.newRef(prefix);
    const file = this.file(ref);
    fs.writeFileSync(file, content, { flag: 'wx' });
    this.unsynced.add(file);
    return { ref, bytes: Buffer.byteLength(content) };
  }

  /** Makes every saveCopy so far durable: the files' fsyncs run together, then the folder's. */
  async sync(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const files = [...this.unsynced];
    const parallel = 32;
    for (let i = 0; i < files.length; i += parallel) {
      await Promise.all(files.slice(i, i + parallel).map(fsyncFile));
    }
    fsyncDirectory(this.dir);
    for (const file of files) this.unsynced.delete(file);
  }

  exists(ref: string): boolean {
    return fs.existsSync(this.file(ref));
  }

  /** Lines [offset, offset + limit) of an output, 0-based, without reading the rest. */
  readLines(ref: string, offset = 0, limit = 200): { lines: string[]; more: boolean } {
    const file = this.requireFile(ref);
    const lines: string[] = [];
    let more = false;
    for (const entry of readLinesSync(file)) {
      const i = entry.lineNo - 1;
      if (i < offset) continue;
      if (lines.length >= limit) {
        more = true;
        break;
      }
      lines.push('tooLong' in entry ? `[line of ${entry.bytes} bytes omitted]` : entry.text);
    }
    return { lines, more };
  }

  /** Lines matching a regular expression, with their 1-based numbers; at most `max`. */
  grep(ref: string, pattern: string, max = 200): { lineNo: number; text: string }[] {
    const file = this.requireFile(ref);
    let re: RegExp;
    try {
      re = new RegExp(pattern);
    } catch (err) {
      throw badInput(`invalid pattern ${JSON.stringify(pattern)}: ${(err as Error).message}`);
    }
    const hits: { lineNo: number; text: string }[] = [];
    for (const entry of readLinesSync(file)) {
      if ('tooLong' in entry) continue;
      if (re.test(entry.text)) hits.push({ lineNo: entry.lineNo, text: entry.text });
      if (hits.length >= max) break;
    }
    return hits;
  }

  remove(ref: string): void {
    fs.rmSync(this.file(ref), { force: true });
  }

  private newRef(prefix: string): string {
    fs.mkdirSync(this.dir, { recursive: true });
    return `${prefix.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 20) || 'out'}_${randomHex(6)}`;
  }

  private requireFile(ref: string): string {
    const file = this.file(ref);
    if (!fs.existsSync(file)) throw notFound(`no tool output with ref ${ref}`);
    return file;
  }

  private file(ref: string): string {
    if (!REF_ID.test(ref)) throw badInput(`${JSON.stringify(ref)} is not a tool output ref`);
    return path.join(this.dir, `${ref}.txt`);
  }
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
