import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsArgs } from '../../../test/support/run-ts';
import { useTempDir } from '../../../test/support/temp-dir';
import { writeRequestFile } from './request-file';

const tempDir = useTempDir('cwb-llm-mem-');
const MB = 1024 * 1024;

/** Writes the big file in another process, so making it does not grow this one's heap. */
function writeLargeCurrentElsewhere(file: string, bytes: number, pad: number): number {
  const child = spawnSync(
    process.execPath,
    tsArgs('src/core/llm/test-support/write-large-current-cli.ts', [
      file,
      String(bytes),
      String(pad),
    ]),
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`generator failed: ${child.stderr}`);
  return Number(child.stdout.trim());
}

/**
 * A coarse guard that building request.json streams: RSS must not grow with the size of
 * current.jsonl (holding the context would add 100+ MB here). RSS also moves with the
 * garbage collector's mood, hence the generous bound; the real measurement (peak memory
 * against an in-memory agent, throughput against a plain copy) belongs to `npm run bench`.
 * This file runs in its own process (vitest pool 'forks').
 */
describe('writeRequestFile memory', () => {
  for (const provider of ['openai', 'ollama'] as const) {
    it(`${provider}: RSS grows by less than 50 MB while a ~100 MB context is written`, async () => {
      const dir = tempDir();
      const currentPath = path.join(dir, 'current.jsonl');
      const lines = writeLargeCurrentElsewhere(currentPath, 100 * MB, 20_000);
      expect(fs.statSync(currentPath).size).toBeGreaterThanOrEqual(100 * MB);

      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      try {
        const result = await writeRequestFile({
          currentPath,
          requestPath: path.join(dir, 'request.json'),
          provider,
          model: 'm',
          stream: true,
        });
        expect(result.messages).toBe(lines);
        expect(result.bytes).toBeGreaterThan(100 * MB);
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      const growth = (peak - before) / MB;
      console.log(
        `request.json from 100 MB (${provider}): RSS ${(before / MB).toFixed(0)} MB, peak +${growth.toFixed(1)} MB`,
      );
      expect(growth).toBeLessThan(50);
    });
  }
});
