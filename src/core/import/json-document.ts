import fs from 'node:fs';
import path from 'node:path';
import { badInput } from '../errors';
import { printable } from '../jsonl/printable';
import { DEFAULT_MAX_JSON_BYTES } from './types';

/**
 * Reads a whole-document JSON file (OpenAI chat lists, SWE-agent .traj). These formats
 * cannot be parsed line by line, so instead of streaming, the size is checked first and
 * anything larger than the limit is refused with a clear error: a parsed document costs
 * several times its size in memory.
 */
export async function readJsonDocument(
  file: string,
  maxBytes = DEFAULT_MAX_JSON_BYTES,
): Promise<unknown> {
  // Read synchronously: the parse below blocks for longer anyway, and a sync reading many
  // documents waited more for the thread pool's turns (open, stat, read, close) than it read.
  const fd = fs.openSync(file, 'r');
  let text: string;
  try {
    const { size } = fs.fstatSync(fd);
    if (size > maxBytes) {
      // Also what a JSON Lines file whose first line is this long comes to: not sniffed as
      // JSONL, it would be read as one document.
      throw badInput(
        `${path.basename(file)} is ${formatBytes(size)} read as one JSON document (no line under 4 MiB says it is JSON Lines); a document or line larger than ${formatBytes(maxBytes)} is not imported (it would be held whole in memory)`,
      );
    }
    // Read at most maxBytes + 1 even if the file grew after stat.
    const buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) {
      throw badInput(`${path.basename(file)} grew beyond ${formatBytes(maxBytes)} while read`);
    }
    text = buffer.subarray(0, filled).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch (err) {
    const reason = printable((err as Error).message);
    throw badInput(
      `${path.basename(file)} is not valid JSON (${reason.length > 200 ? `${reason.slice(0, 200)}…` : reason})`,
    );
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}
