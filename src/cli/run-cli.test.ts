import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';
import type { Output } from './output';
import { useTempDir } from '../../test/support/temp-dir';

const tempDir = useTempDir();

function capture(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => void stdout.push(t), err: (t) => void stderr.push(t) };
}

describe('runCli', () => {
  // A NUL byte cannot travel through a real argv, so this path is tested in process.
  it('refuses ids with a NUL byte, absolute paths and .. with exit code 2', async () => {
    const root = path.join(tempDir(), 'contexts');
    for (const command of ['show', 'messages']) {
      for (const bad of [
        'a\0b',
        '/etc/passwd',
        '../../x',
        `550e8400-e29b-41d4-a716-446655440000\0`,
      ]) {
        const io = capture();
        expect(
          await runCli(
            ['--contexts', root, '--config', path.join(root, 'none.yaml'), command, bad],
            io,
          ),
        ).toBe(2);
        expect(io.stderr).toHaveLength(1);
        expect(io.stderr[0]).toMatch(/^cwb: error: .* is not a task id/);
      }
    }
  });

  it('a contexts folder path with a NUL byte is bad input, not a crash', async () => {
    const io = capture();
    expect(await runCli(['--contexts', 'x\0y', 'tasks'], io)).toBe(2);
    expect(io.stderr[0]).toMatch(/NUL/);
  });
});
