import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { estimateTokens } from '../src/core/tokens/estimate';

const CWB = path.join(REPO_ROOT, 'bin', 'cwb.js');
let dir: string;

/** The transcript as it stands when Claude Code fires the hook: through the summary entry. */
function cutAtCompaction(file: string): string {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const boundary = lines.findLastIndex((l) => l.includes('"compact_boundary"'));
  const out = path.join(dir, `cut-${path.basename(file)}`);
  fs.writeFileSync(out, `${lines.slice(0, boundary + 2).join('\n')}\n`);
  return out;
}

function runHook(agent: string, stdin: string, args: string[] = []) {
  const run = spawnSync(process.execPath, [CWB, 'hook', agent, ...args], {
    input: stdin,
    encoding: 'utf8',
    env: { ...process.env, CWB_CONFIG: path.join(dir, 'config.yaml') },
    timeout: 30_000,
  });
  const log = path.join(dir, 'logs', 'hooks.log');
  return { ...run, log: fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '' };
}

const input = (transcript: string, source = 'compact') =>
  JSON.stringify({
    session_id: '53ea1606-cf60-417b-928a-068324ecc7b3',
    transcript_path: transcript,
    cwd: '/Users/alex/workspace/cli/.worktrees/2',
    hook_event_name: 'SessionStart',
    source,
  });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-hook-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cwb hook claude-code', () => {
  it('answers a compaction with the evidence Claude Code’s summary dropped', () => {
    const transcript = cutAtCompaction(
      realFixture('..', 'real', 'claude-code-compacted', 'entire-53ea1606-compacted.jsonl'),
    );
    const run = runHook('claude-code', input(transcript));
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const answer = JSON.parse(run.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(answer.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context = answer.hookSpecificOutput.additionalContext;
    expect(estimateTokens(context)).toBeLessThanOrEqual(4000);
    expect(context).toContain('`recall`');
    const summary = fs.readFileSync(transcript, 'utf8').split('\n').at(-2)!;
    // Names the agent typed again after this compaction; Claude Code's summary had none.
    for (const fact of ['BaseCommit', 'TranscriptPath', 'FilesTouched']) {
      expect(summary).not.toContain(fact);
      expect(context).toContain(fact);
    }
    expect(run.log).toMatch(/hook claude-code: \d+ of \d+ dropped facts injected \(\d+ tokens\)/);
  });

  it('says nothing for a session start that is not a compaction', () => {
    const transcript = realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
    const run = runHook('claude-code', input(transcript, 'startup'));
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
  });

  it.each([
    ['a missing transcript', input('/nonexistent/session.jsonl'), /cannot be read/],
    ['stdin that is not JSON', 'not json {', /stdin is not JSON/],
  ])('never disturbs the agent: %s exits 0 with no output and a log line', (_, stdin, line) => {
    const run = runHook('claude-code', stdin);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('');
    expect(run.log).toMatch(line);
  });

  it('gives up quietly when reading takes longer than its time limit', () => {
    const transcript = cutAtCompaction(
      realFixture('..', 'real', 'claude-code-compacted', '624a4a58-compacted.jsonl'),
    );
    const run = runHook('claude-code', input(transcript), ['--timeout-ms', '1']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.log).toMatch(/too long|time limit/);
  });
});

describe('cwb hook codex', () => {
  it('answers after a Codex compaction from its rollout file', () => {
    const rollout = path.join(dir, 'rollout-2026-11-28T04-00-00-0000.jsonl');
    const line = (type: string, payload: object) =>
      JSON.stringify({ timestamp: '2026-11-28T04:00:00.000Z', type, payload });
    const call = {
      type: 'function_call',
      name: 'shell',
      call_id: 'c1',
      arguments: JSON.stringify({ command: ['bash', '-lc', 'cargo test -p codex-hooks'] }),
    };
    fs.writeFileSync(
      rollout,
      [
        line('session_meta', { id: 's1', cwd: '/w' }),
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'fix the hook parser' }],
        }),
        line('response_item', call),
        line('response_item', {
          type: 'function_call_output',
          call_id: 'c1',
          output:
            'error[E0425]: cannot find value `matcherInput` in codex-rs/hooks/src/engine/dispatcher.rs',
        }),
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'The fix goes in parseSessionStart.' }],
        }),
        line('compacted', { message: 'We are fixing the hook parser.', replacement_history: [] }),
      ].join('\n') + '\n',
    );
    const run = runHook('codex', input(rollout));
    expect(run.status).toBe(0);
    const context = (
      JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } }
    ).hookSpecificOutput.additionalContext;
    expect(context).toContain('parseSessionStart');
    expect(context).toContain('cargo test -p codex-hooks');
    expect(context).toContain('codex-rs/hooks/src/engine/dispatcher.rs');
  });
});

describe('cwb hooks install claude-code, then a compaction as Claude Code runs the hook', () => {
  it('the command written to settings.json answers with the dropped evidence', () => {
    const home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    const env = { ...process.env, HOME: home, CWB_CONFIG: path.join(dir, 'config.yaml') };
    const install = spawnSync(process.execPath, [CWB, 'hooks', 'install', 'claude-code'], {
      encoding: 'utf8',
      env,
    });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
    const settings = JSON.parse(
      fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'),
    ) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } };
    const group = settings.hooks.SessionStart.find((g) => g.matcher === 'compact')!;
    const transcript = cutAtCompaction(
      realFixture('..', 'real', 'claude-code-compacted', 'entire-847ff7d2-compacted.jsonl'),
    );
    // Claude Code runs the command through a shell with the hook input on stdin.
    const run = spawnSync('/bin/sh', ['-c', group.hooks[0]!.command], {
      input: input(transcript),
      encoding: 'utf8',
      env,
    });
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(answer.hookSpecificOutput.additionalContext).toContain('## Fact ledger');
  });
});
