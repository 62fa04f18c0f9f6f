import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh directory per test, removed after it. Call at describe level. */
export function useTempDir(): () => string {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-'));
    return dir;
  };
}
