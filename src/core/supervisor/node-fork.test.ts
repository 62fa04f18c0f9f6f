import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { nodeForkWorker } from './node-fork';

const tempDir = useTempDir('cwb-fork-');

describe('nodeForkWorker', () => {
  it("starts the task process with the memory flags, before the entry's own", async () => {
    const entry = path.join(tempDir(), 'worker.mjs');
    fs.writeFileSync(entry, 'process.send({ argv: process.execArgv }, () => process.exit(0));\n');
    const handle = nodeForkWorker({ file: entry, execArgv: ['--no-warnings'] })({
      env: process.env,
    });
    const exited = new Promise((resolve) => handle.onExit(resolve));
    const message = await new Promise<unknown>((resolve) => handle.onMessage(resolve));
    expect(message).toEqual({ argv: ['--optimize-for-size', '--no-warnings'] });
    await exited;
  });
});
