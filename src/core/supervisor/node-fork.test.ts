import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { nodeForkWorker } from './node-fork';

const tempDir = useTempDir('cwb-fork-');

describe('nodeForkWorker', () => {
  it("starts the task process with the memory flags, a collector it can call and the malloc settings, the caller's first", async () => {
    const entry = path.join(tempDir(), 'worker.mjs');
    fs.writeFileSync(
      entry,
      'const { MALLOC_ARENA_MAX: arenas, MALLOC_MMAP_THRESHOLD_: mmap } = process.env;\n' +
        'process.send({ argv: process.execArgv, gc: typeof gc, arenas, mmap }, () => process.exit(0));\n',
    );
    // The environment's own malloc setting wins over the default.
    const handle = nodeForkWorker({ file: entry, execArgv: ['--no-warnings'] })({
      env: { ...process.env, MALLOC_ARENA_MAX: '4' },
    });
    const exited = new Promise((resolve) => handle.onExit(resolve));
    const message = await new Promise<unknown>((resolve) => handle.onMessage(resolve));
    expect(message).toEqual({
      argv: [
        '--optimize-for-size',
        '--no-sparkplug',
        '--expose-gc',
        '--interrupt-budget=800000',
        '--no-warnings',
      ],
      // heap-trim.ts collects through it between tool calls.
      gc: 'function',
      arenas: '4',
      mmap: '131072',
    });
    await exited;
  });
});
