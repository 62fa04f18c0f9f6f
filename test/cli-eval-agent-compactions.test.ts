import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AgentCompactionRow,
  WhatIfReport,
} from '../src/core/compaction/agent-compaction-eval';
import { STRATEGY_NAMES } from '../src/shared/strategy-names';
import type { NeededNextInfo } from '../src/shared/needed-next-info';
import { realFixture } from './support/real-fixtures';
import { runCwb } from './support/run-ts';

/**
 * `cwb eval-compaction --agent-compactions` and `--at`: real Claude Code compactions scored
 * by what the agent needed next, in a real process over a real contexts folder.
 */
let dir: string;
let root: string;
let config: string;
let imported: { uuid: string; file: string; messages: number }[];

function cwb(...args: string[]): ReturnType<typeof runCwb> {
  return runCwb(['--contexts', root, '--config', config, ...args]);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-agent-eval-'));
  root = path.join(dir, 'contexts');
  config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, 'compaction:\n  pipeline: [tool-output-trim, summarize]\n');
  const r = cwb(
    'import',
    '--json',
    realFixture('claude-code-compacted', '624a4a58-compacted.jsonl'),
    // never compacted: no row
    realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'),
  );
  expect(r.status, r.stderr).toBe(0);
  imported = (JSON.parse(r.stdout) as { imported: typeof imported }).imported;
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cwb eval-compaction --agent-compactions', () => {
  it('prints one row per agent compaction with both FRRs and the re-reads', () => {
    const r = cwb('eval-compaction', '--agent-compactions', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { compactions } = JSON.parse(r.stdout) as { compactions: AgentCompactionRow[] };
    expect(compactions).toHaveLength(1);
    const row = compactions[0]!;
    const main = imported.find((t) => t.file.endsWith('624a4a58-compacted.jsonl'))!;
    expect(row).toMatchObject({
      agent: 'claude-code',
      task_uuid: main.uuid,
      agent_tokens_before_counter: 'agent',
      ours_pipeline: 'tool-output-trim+summarize',
    });
    // Claude Code's own figure of the context it compacted.
    expect(row.agent_tokens_before).toBeGreaterThan(100_000);
    expect(row.seq_range[0]).toBe(1);
    expect(row.needed).toBeGreaterThan(50);
    expect(row.agent_frr).toBeCloseTo(row.agent_kept! / row.needed, 9);
    expect(row.ours_frr).toBeCloseTo(row.ours_kept / row.needed, 9);
    expect(row.ours_frr!).toBeGreaterThan(row.agent_frr! + 0.3);
    expect(row.ours_tokens_after).toBeLessThan(row.ours_tokens_before * 0.12);
    expect(row.re_reads.count).toBeGreaterThan(0);
    expect(row.re_reads.tokens).toBeGreaterThan(0);

    const text = cwb('eval-compaction', '--agent-compactions');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^AGENT +TASK +SEQS +AGENT TOKENS +AGENT FRR +OURS TOKENS/m);
    expect(text.stdout).toContain(`claude-code  ${main.uuid.slice(0, 8)}`);
    const none = cwb('eval-compaction', '--agent-compactions', '--agent', 'codex');
    expect(none.stdout.trim()).toBe(
      'No compaction made by an agent in the synced or imported tasks.',
    );
  });

  it('runs every strategy as a what-if at a past point', () => {
    const main = imported.find((t) => t.file.endsWith('624a4a58-compacted.jsonl'))!;
    const r = cwb('eval-compaction', main.uuid, '--at', '60', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as WhatIfReport;
    expect(report).toMatchObject({ task_uuid: main.uuid, at_seq: 60, start_seq: 1 });
    expect(report.candidates.map((c) => c.label)).toEqual([
      ...STRATEGY_NAMES,
      'tool-output-trim+summarize',
    ]);
    expect(report.needed).toBeGreaterThan(0);
    for (const c of report.candidates) {
      if (c.applied) expect(c.frr).toBeCloseTo(c.kept / c.needed, 9);
    }
  });

  it('refuses what it cannot do, saying what and where', () => {
    const main = imported[0]!;
    const past = cwb('eval-compaction', main.uuid, '--at', '999999');
    expect(past.status).not.toBe(0);
    expect(past.stderr).toMatch(/--at 999999: task .* has \d+ messages/);
    expect(cwb('eval-compaction', '--at', '3').stderr).toMatch(/--at needs exactly one task id/);
    expect(cwb('eval-compaction', '--agent', 'codex').stderr).toMatch(
      /--agent goes with --agent-compactions/,
    );
  });
});

describe('cwb compact --dry-run --at', () => {
  it('previews the pipeline on the context of a past point and scores it by what the agent needed next', () => {
    const main = imported.find((t) => t.file.endsWith('624a4a58-compacted.jsonl'))!;
    const r = cwb('compact', main.uuid, '--dry-run', '--at', '120', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const run = JSON.parse(r.stdout) as {
      dryRun: boolean;
      atSeq: number;
      tokensBefore: number;
      tokensAfter: number;
      neededNext: NeededNextInfo;
    };
    expect(run).toMatchObject({ dryRun: true, atSeq: 120 });
    const info = run.neededNext;
    expect(info.needed).toBeGreaterThan(0);
    expect(info.frr).toBeCloseTo(info.kept / info.needed, 9);
    expect(info.tokensBefore).toBe(run.tokensBefore);
    expect(info.tokensAfter).toBe(run.tokensAfter);
    expect(info.lost).toHaveLength(Math.min(info.needed - info.kept, 30));
    expect(info.reReads.count).toBeGreaterThanOrEqual(0);
    // The task was not touched: its compactions are the one Claude Code made.
    const list = cwb('compactions', main.uuid, '--json');
    expect((JSON.parse(list.stdout) as { compactions: unknown[] }).compactions).toHaveLength(1);

    const text = cwb('compact', main.uuid, '--dry-run', '--at', '120');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(
      /^Needed next \(FRR\): keeps \d+ of the \d+ facts the agent typed after #120 \(\d+ %\)/m,
    );
    expect(text.stdout).toMatch(/^Re-reads after #120: \d+ reads or commands run again/m);
  });

  it('refuses --at without --dry-run, and past the last message', () => {
    const main = imported.find((t) => t.file.endsWith('624a4a58-compacted.jsonl'))!;
    expect(cwb('compact', main.uuid, '--at', '5').stderr).toMatch(/--at goes with --dry-run/);
    const past = cwb('compact', main.uuid, '--dry-run', '--at', '999999');
    expect(past.status).not.toBe(0);
    expect(past.stderr).toMatch(/--at 999999: task .* has \d+ messages/);
  });
});
