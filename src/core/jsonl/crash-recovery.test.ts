import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readJsonlSync } from './jsonl-reader';
import { OffsetIndex, PENDING_ENTRIES } from './offset-index';
import type { CrashLine } from './test-support/crash-lines';
import { crashLine, crashLineBytes, fixedPad, sha256 } from './test-support/crash-lines';
import { useTempDir } from './test-support/temp-dir';
import { recoverTornTail } from './torn-tail';

const tempDir = useTempDir();
const CHILD = fileURLToPath(new URL('./test-support/append-child.ts', import.meta.url));
const KILL_AFTER_BYTES = 5 * 1024 * 1024;

function startChild(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.signalCode ?? child.exitCode);
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

/** Kills the child (if still running) and resolves with how it ended. */
async function killHard(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  child.kill('SIGKILL');
  return exited(child);
}

/** Resolves once `file` is larger than `bytes`; fails if the child dies first. */
async function grownPast(file: string, bytes: number, child: ChildProcess): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  const deadline = Date.now() + 30_000;
  while (!(fs.existsSync(file) && fs.statSync(file).size > bytes)) {
    if (child.exitCode !== null) throw new Error(`child exited early: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`file did not grow past ${bytes} bytes`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function stdoutLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => reject(new Error(`child exited before writing a line: ${out}`)));
  });
}

/** Reads every line back and checks it is whole: valid JSON, contiguous seq, matching sha. */
function verifiedLines(file: string): CrashLine[] {
  const lines: CrashLine[] = [];
  for (const entry of readJsonlSync(file)) {
    if (!entry.ok) throw new Error(entry.error);
    expect(entry.partial).toBeUndefined();
    const line = entry.value as CrashLine;
    expect(line.seq).toBe(lines.length + 1);
    expect(sha256(line.pad)).toBe(line.sha);
    lines.push(line);
  }
  return lines;
}

describe('crash recovery with a real SIGKILLed writer', () => {
  it.each([1, 2, 3, 4, 5])('run %i: every surviving line is whole and contiguous', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const child = startChild('random', file);
    try {
      await grownPast(file, KILL_AFTER_BYTES, child);
      // Vary the kill point beyond the threshold.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20)));
    } finally {
      expect(await killHard(child)).toBe('SIGKILL');
    }

    const result = recoverTornTail(file);
    const lines = verifiedLines(file);
    expect(lines.length).toBeGreaterThan(0);
    expect(fs.statSync(file).size).toBeGreaterThan(KILL_AFTER_BYTES / 2);

    const index = OffsetIndex.open(file);
    expect(index.count).toBe(lines.length);
    index.close();

    if (result.recovered) {
      const corrupt = fs.readFileSync(result.corruptPath);
      expect(corrupt.length).toBe(result.bytes + 1);
      expect(corrupt.at(-1)).toBe(0x0a);
      expect(result.offset).toBe(fs.statSync(file).size);
      const fragment = corrupt.subarray(0, -1).toString('utf8');
      // The fragment is the start of the next line, never a complete line of its own.
      const prefix = `{"seq":${lines.length + 1},"pad":"`;
      expect(fragment.startsWith(prefix) || prefix.startsWith(fragment)).toBe(true);
      expect(isCompleteLine(fragment, lines.length + 1)).toBe(false);
    } else {
      expect(fs.existsSync(`${file}.corrupt`)).toBe(false);
    }
  });

  it('moves exactly the half-written line to .corrupt and keeps the complete ones', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const complete = 25;
    const child = startChild('half', file, String(complete));
    try {
      expect(await stdoutLine(child)).toBe('ready');
    } finally {
      expect(await killHard(child)).toBe('SIGKILL');
    }

    const expectedLines = Array.from({ length: complete }, (_, i) =>
      crashLine(i + 1, fixedPad(i + 1)),
    );
    const torn = crashLineBytes(crashLine(complete + 1, fixedPad(complete + 1)));
    const half = torn.subarray(0, Math.floor(torn.length / 2));

    const result = recoverTornTail(file);
    const intact = Buffer.concat(expectedLines.map(crashLineBytes));
    expect(result).toEqual({
      recovered: true,
      bytes: half.length,
      corruptPath: `${file}.corrupt`,
      offset: intact.length,
    });
    expect(
      fs.readFileSync(`${file}.corrupt`).equals(Buffer.concat([half, Buffer.from('\n')])),
    ).toBe(true);
    expect(fs.readFileSync(file).equals(intact)).toBe(true);
    expect(verifiedLines(file)).toEqual(expectedLines);
  });

  it('a writer killed with offset-index entries still in memory: readers find every line', async () => {
    const file = path.join(tempDir(), 'messages.jsonl');
    const idx = `${file}.idx`;
    const complete = PENDING_ENTRIES * 2 + 37;
    const child = startChild('indexed', file, String(complete));
    try {
      expect(await stdoutLine(child)).toBe('ready');
    } finally {
      expect(await killHard(child)).toBe('SIGKILL');
    }
    const lines = verifiedLines(file);
    expect(lines).toHaveLength(complete);
    // The last entries were never written: the sidecar is short of the file.
    const onDisk = fs.statSync(idx).size / 8;
    expect(onDisk).toBeLessThan(complete);

    const lineAt = (offset: number): CrashLine => {
      const [first] = readJsonlSync(file, { start: offset });
      if (!first?.ok) throw new Error(`no line at ${offset}`);
      return first.value as CrashLine;
    };
    // A reader beside the (dead) writer: never writes the sidecar, still sees every line.
    const reader = OffsetIndex.open(file, idx, { readonly: true });
    expect(reader.count).toBe(complete);
    for (const seq of [1, onDisk, onDisk + 1, complete]) {
      expect(lineAt(reader.offsetOf(seq)).seq).toBe(seq);
    }
    reader.close();
    expect(fs.statSync(idx).size / 8).toBe(onDisk);

    // The next writer fills the sidecar in.
    const writer = OffsetIndex.open(file, idx);
    expect(writer.count).toBe(complete);
    writer.close();
    expect(fs.statSync(idx).size / 8).toBe(complete);
  });
});

function isCompleteLine(text: string, seq: number): boolean {
  try {
    const value = JSON.parse(text) as Partial<CrashLine>;
    return value.seq === seq && typeof value.pad === 'string' && sha256(value.pad) === value.sha;
  } catch {
    return false;
  }
}
