import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rememberSecrets, scrubbingOutput } from './cli-secrets';
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

  describe('error lines never carry a known secret', () => {
    afterEach(() => vi.unstubAllEnvs());

    it("the environment's key echoed as a task id or as a command: scrubbed", async () => {
      const root = path.join(tempDir(), 'contexts');
      const key = 'sk-from-env-0123456789abcdef';
      vi.stubEnv('OPENAI_API_KEY', key);
      const io = capture();
      expect(
        await runCli(
          ['--contexts', root, '--config', path.join(root, 'none.yaml'), 'show', key],
          io,
        ),
      ).toBe(2);
      expect(io.stderr).toEqual([expect.stringMatching(/^cwb: error: "\*\*\*" is not a task id/)]);
      // An unknown command is echoed by commander before any config is read.
      const unknown = capture();
      expect(await runCli([key], unknown)).toBe(1);
      expect(unknown.stderr.join('\n')).toContain('***');
      expect(unknown.stderr.join('\n')).not.toContain(key);
    });

    it("what a command learns (its config's keys, serve's token) is scrubbed from stderr, not stdout", () => {
      const io = capture();
      const output = scrubbingOutput(io, {});
      rememberSecrets(['tok-0123456789abcdef']);
      output.err('failed near ?token=tok-0123456789abcdef');
      output.out('open http://127.0.0.1:4780/?token=tok-0123456789abcdef');
      expect(io.stderr).toEqual(['failed near ?token=***']);
      expect(io.stdout).toEqual(['open http://127.0.0.1:4780/?token=tok-0123456789abcdef']);
    });
  });
});
