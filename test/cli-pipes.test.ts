/**
 * `cwb … | head`: when the reader of stdout goes away, every printing command ends quietly
 * with status 0 — no EPIPE stack trace — as Unix tools do.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, REPO_ROOT, runCwb } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir('cwb-pipes-');

/** Runs cwb with stdout read until its first chunk, then closed (what `head -c1` does). */
function closedAfterFirstChunk(
  args: string[],
): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, CWB_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let read = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', (d: Buffer) => {
      read = d.length;
      child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, read }));
  });
}

describe('cwb … | head', () => {
  let root: string;
  let uuid: string;
  beforeAll(() => {
    root = path.join(tempDir(), 'contexts');
    // 200 conversations: listings and transcripts far longer than a pipe's buffer.
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      realFixture('openai-chat', 'tau-bench-gpt-4o-airline.json'),
      '--json',
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    const big = runCwb([
      '--contexts',
      root,
      'tasks',
      '--json',
      '--sort',
      'total_messages',
      '--limit',
      '1',
    ]);
    uuid = (JSON.parse(big.stdout) as { tasks: { uuid: string }[] }).tasks[0]!.uuid;
  });

  const commands = (): string[][] => [
    ['tasks', '--limit', '200'],
    ['tasks', '--json', '--limit', '200'],
    ['show', uuid, '--json'],
    ['messages', uuid, '--full', '--json'],
    ['messages', uuid, '--current', '--full'],
    ['export', uuid, '--format', 'markdown', '-o', '-'],
    ['export', uuid, '--format', 'openai', '-o', '-'],
    ['compact', uuid, '--dry-run', '--offline', '--json'],
    ['eval-compaction', uuid, '--json'],
    ['--help'],
  ];

  it('ends with status 0 and no stack trace when the reader goes away', async () => {
    for (const args of commands()) {
      const r = await closedAfterFirstChunk(['--contexts', root, ...args]);
      const label = `cwb ${args.join(' ')}`;
      expect(r.read, label).toBeGreaterThan(0);
      expect(r.stderr, label).not.toMatch(/EPIPE|\n\s+at /);
      expect(r.code, `${label}: ${r.stderr}`).toBe(0);
    }
  });
});
