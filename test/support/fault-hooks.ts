/**
 * Fault injection for the reliability tests' child processes, controlled by environment
 * variables and active only in the process that imports this module (a test-support child
 * script imports it first). Nothing in src/ knows about it: the hooks replace functions on
 * the `fs` module object, which src/ calls through at call time (`fs.writeSync(...)`,
 * `fs.promises.rename(...)`).
 *
 * - CWB_FAULT_CAPTURE_DIR=<dir>: right before current.jsonl is replaced by a rename, copy
 *   the version in place to <dir>/old.jsonl and the temp file about to replace it to
 *   <dir>/new.jsonl, so the parent can byte-compare whatever survives a kill with both.
 * - CWB_FAULT_BLOCK_BEFORE_RENAME=<basename>: when a rename is about to replace a file of
 *   that name, print `blocked rename <temp>` on stdout and block forever (the parent then
 *   SIGKILLs us): the window between the temp write and the rename, hit every time.
 * - CWB_FAULT_BLOCK_AFTER_RENAME=<basename>: the same, right after a rename to that name
 *   (e.g. a task folder moved between status folders, before its transaction commits).
 * - CWB_FAULT_BLOCK_AFTER_WRITE=<basename>:<n>: after the n-th successful write to a file
 *   of that name, print `blocked write <basename>` and block forever: e.g. between a line
 *   of messages.jsonl and its line in current.jsonl, or between a tools.jsonl line and the
 *   tasks.db counter update that follows it.
 * - CWB_FAULT_TEAR_WRITE=<basename>:<n>:<fraction>: the n-th write to a file of that name
 *   writes only the first <fraction> of its bytes (at least one, never all), prints
 *   `torn write <basename>` and blocks forever: what a kill in the middle of a large write
 *   leaves behind, made to happen on demand (a real SIGKILL rarely lands inside a write).
 *
 * Blocking uses Atomics.wait on a SharedArrayBuffer, which parks the main thread without
 * letting any other JavaScript (timers, I/O callbacks) run: the process is frozen exactly
 * at that point. The line is written with write(2) (child-io.ts), so the parent has it
 * before we block.
 */
import fs from 'node:fs';
import path from 'node:path';
import { say } from './child-io';

function blockForever(): never {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0);
}

/** The path behind a file descriptor (Linux: /proc/self/fd). */
function fdPath(fd: number): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}

const captureDir = process.env.CWB_FAULT_CAPTURE_DIR;
const blockRename = process.env.CWB_FAULT_BLOCK_BEFORE_RENAME;
const blockAfterRename = process.env.CWB_FAULT_BLOCK_AFTER_RENAME;
const blockWrite = process.env.CWB_FAULT_BLOCK_AFTER_WRITE;

// The real rename, before it is replaced below: the captures and the replacement use it.
const realRenameSync = fs.renameSync.bind(fs);

/**
 * Copies `from` to `to` through a temp file and a rename: a kill at a random moment may land
 * in the middle of the copy, and must leave no half capture for the parent to compare.
 */
function capture(from: string, to: string): void {
  fs.copyFileSync(from, `${to}.part`);
  realRenameSync(`${to}.part`, to);
}

function beforeRename(from: string, to: string): void {
  if (path.basename(to) === 'current.jsonl' && captureDir) {
    if (fs.existsSync(to)) capture(to, path.join(captureDir, 'old.jsonl'));
    capture(from, path.join(captureDir, 'new.jsonl'));
  }
  if (blockRename && path.basename(to) === blockRename) {
    say(`blocked rename ${from}`);
    blockForever();
  }
}

function afterRename(to: string): void {
  if (blockAfterRename && path.basename(to) === blockAfterRename) {
    say(`blocked after rename ${to}`);
    blockForever();
  }
}

if (captureDir || blockRename || blockAfterRename) {
  const renameAsync = fs.promises.rename.bind(fs.promises);
  fs.promises.rename = async (from: fs.PathLike, to: fs.PathLike): Promise<void> => {
    beforeRename(String(from), String(to));
    await renameAsync(from, to);
    afterRename(String(to));
  };
  fs.renameSync = (from: fs.PathLike, to: fs.PathLike): void => {
    beforeRename(String(from), String(to));
    realRenameSync(from, to);
    afterRename(String(to));
  };
}

const tearWrite = process.env.CWB_FAULT_TEAR_WRITE;

if (blockWrite || tearWrite) {
  const [blockName, blockNth] = (blockWrite ?? '').split(':');
  const [tearName, tearNth, tearFraction] = (tearWrite ?? '').split(':');
  let blockLeft = Number(blockNth ?? '1');
  let tearLeft = Number(tearNth ?? '1');
  const writeSync = fs.writeSync.bind(fs) as (...args: unknown[]) => number;
  const patched = (...args: unknown[]): number => {
    const fd = args[0];
    const name = typeof fd === 'number' && fd > 2 ? path.basename(fdPath(fd)) : '';
    // src/ writes lines through writeAllSync: fs.writeSync(fd, buffer, offset, length).
    if (name !== '' && name === tearName && Buffer.isBuffer(args[1]) && --tearLeft === 0) {
      const offset = typeof args[2] === 'number' ? args[2] : 0;
      const length = typeof args[3] === 'number' ? args[3] : args[1].length - offset;
      const part = Math.min(length - 1, Math.max(1, Math.floor(length * Number(tearFraction))));
      if (part > 0) writeSync(fd, args[1], offset, part);
      say(`torn write ${name}`);
      blockForever();
    }
    const written = writeSync(...args);
    if (name !== '' && name === blockName && --blockLeft === 0) {
      say(`blocked write ${name}`);
      blockForever();
    }
    return written;
  };
  (fs as unknown as { writeSync: typeof patched }).writeSync = patched;
}
