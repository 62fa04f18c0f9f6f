import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readClaudeCodeSpan } from '../../src/core/hooks/claude-code-span';
import { estimateTokens } from '../../src/core/tokens/estimate';
import { frr, spanText, typedAfter } from '../lib/needed-next';
import { median, percentile } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

const FIXTURES = ['test', 'fixtures', 'real', 'claude-code-compacted'];
const TIMED_RUNS = 40;
const TARGET_BYTES = 4 * 1024 * 1024;

/** The transcript as it stands when the hook fires: through the summary after the boundary. */
function cut(lines: readonly string[]): string[] {
  const boundary = lines.findLastIndex((l) => l.includes('"compact_boundary"'));
  return lines.slice(0, boundary + 2);
}

/** The hook's command as `cwb hooks install claude-code` writes it into settings.json. */
function installedCommand(ctx: BenchContext, home: string): string {
  const cwb = path.join(ctx.repoRoot, 'bin', 'cwb.js');
  spawnSync(process.execPath, [cwb, 'hooks', 'install', 'claude-code'], {
    env: { ...process.env, HOME: home },
    encoding: 'utf8',
  });
  const settings = JSON.parse(
    fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'),
  ) as {
    hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] };
  };
  return settings.hooks.SessionStart.find((g) => g.matcher === 'compact')!.hooks[0]!.command;
}

/**
 * CPU time (ms) of this process's waited-for children, from /proc/self/stat (cutime +
 * cstime); undefined where there is no /proc. Load-independent, unlike the wall clock.
 */
function childCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of proc(5), counted from the pid; the slice starts at field 3.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux that Node runs on. */
const CLOCK_TICKS = 100;

function runHook(command: string, transcript: string, env: NodeJS.ProcessEnv): string {
  const input = JSON.stringify({
    session_id: 'bench',
    transcript_path: transcript,
    cwd: '/bench',
    hook_event_name: 'SessionStart',
    source: 'compact',
  });
  return spawnSync('/bin/sh', ['-c', command], { input, env, encoding: 'utf8' }).stdout;
}

export const compactionHookGroup: BenchGroup = {
  id: 'compaction-hook',
  title: 'Compaction hook: what Claude Code keeps, and what `cwb hook` adds',
  about:
    "Run as Claude Code runs it: `cwb hooks install claude-code` into a scratch home, the hook command read back from its settings.json and run through /bin/sh with the SessionStart/compact input on stdin, on each real compacted session of test/fixtures/real/claude-code-compacted cut where the hook fires (through the summary entry). FRR is the share of the facts the agent typed after the compaction that the compacted span held and the new context states verbatim (issue 30's definition; bench/lib/needed-next.ts). Time: wall clock of the whole process (Node's start included) on a 4 MB transcript.",
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const home = path.join(ctx.tmp, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    const env = { ...process.env, HOME: home, CWB_CONFIG: path.join(ctx.tmp, 'config.yaml') };
    const command = installedCommand(ctx, home);
    const dir = path.join(ctx.repoRoot, ...FIXTURES);
    const summaryFrr: number[] = [];
    const hookFrr: number[] = [];
    const tokens: number[] = [];
    for (const name of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()) {
      const file = path.join(dir, name);
      const full = readClaudeCodeSpan(file, { maxLineBytes: 1 << 26, deadline: Infinity });
      const transcript = path.join(ctx.tmp, name);
      fs.writeFileSync(
        transcript,
        `${cut(fs.readFileSync(file, 'utf8').split('\n')).join('\n')}\n`,
      );
      const answer = runHook(command, transcript, env);
      const extra = answer
        ? (JSON.parse(answer) as { hookSpecificOutput: { additionalContext: string } })
            .hookSpecificOutput.additionalContext
        : '';
      const held = spanText(full.span.map((s) => s.message));
      const needed = [...typedAfter(full.after.map((s) => s.message))].filter((t) =>
        held.includes(t),
      );
      const before = frr(needed, full.summary) ?? 0;
      const after = frr(needed, `${full.summary}\n${extra}`) ?? 0;
      summaryFrr.push(before);
      hookFrr.push(after);
      tokens.push(estimateTokens(extra));
      notes.push(
        `${name}: ${needed.length} facts needed next; Claude Code's summary ${(before * 100).toFixed(0)} %, with the hook ${(after * 100).toFixed(0)} % (${estimateTokens(extra)} tokens injected).`,
      );
    }
    const med = median(hookFrr);
    rows.push(
      row(
        `median FRR after a real Claude Code compaction (${hookFrr.length} sessions)`,
        `${(med * 100).toFixed(0)} % (summary + hook)`,
        `${(median(summaryFrr) * 100).toFixed(0)} % (summary alone)`,
        '—',
        '≥ 90 %',
        judge(med >= 0.9, `median ${(med * 100).toFixed(0)} %`),
      ),
      row(
        'tokens injected (largest)',
        String(Math.max(...tokens)),
        '—',
        '—',
        '≤ 4,000',
        judge(Math.max(...tokens) <= 4000, `${Math.max(...tokens)} tokens`),
      ),
    );
    // A 4 MB transcript: the longest fixture's compacted span repeated until it is that large.
    const source = fs.readFileSync(path.join(dir, '624a4a58-compacted.jsonl'), 'utf8').split('\n');
    const lines = cut(source);
    const boundary = lines.length - 2;
    const body = lines.slice(0, boundary);
    const big: string[] = [];
    let bytes = 0;
    while (bytes < TARGET_BYTES) {
      for (const l of body) {
        big.push(l);
        bytes += l.length + 1;
      }
    }
    big.push(...lines.slice(boundary));
    const bigFile = path.join(ctx.tmp, 'big.jsonl');
    fs.writeFileSync(bigFile, `${big.join('\n')}\n`);
    const size = fs.statSync(bigFile).size;
    const times: number[] = [];
    const cpu: number[] = [];
    const bare: number[] = [];
    let answered = 0;
    for (let i = 0; i < Math.max(TIMED_RUNS, ctx.runs); i++) {
      const cpuBefore = childCpuMs();
      const started = performance.now();
      if (runHook(command, bigFile, env)) answered++;
      times.push(performance.now() - started);
      const cpuAfter = childCpuMs();
      if (cpuBefore !== undefined && cpuAfter !== undefined) cpu.push(cpuAfter - cpuBefore);
      // Node's own start beside it, under the same load: what no hook can go below.
      const bareStart = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      bare.push(performance.now() - bareStart);
    }
    const p99 = percentile(times, 99);
    rows.push(
      row(
        `hook run on a ${(size / 1024 / 1024).toFixed(1)} MB transcript, median / p99 of ${times.length}`,
        `${(median(times) / 1000).toFixed(2)} s / ${(p99 / 1000).toFixed(2)} s`,
        `${(median(bare) / 1000).toFixed(2)} s / ${(percentile(bare, 99) / 1000).toFixed(2)} s (\`node -e 0\`)`,
        '—',
        '< 1 s',
        judge(p99 < 1000, `p99 ${(p99 / 1000).toFixed(2)} s`),
      ),
    );
    if (cpu.length > 0) {
      rows.push(
        row(
          'CPU time of one hook run (user + system, the shell and Node included), median / p99',
          `${(median(cpu) / 1000).toFixed(2)} s / ${(percentile(cpu, 99) / 1000).toFixed(2)} s`,
        ),
      );
    }
    notes.push(
      `${answered} of ${times.length} timed runs answered (the rest hit the hook's own 3 s limit); load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} (1 / 5 / 15 min) at the end, on ${os.cpus().length} cores.`,
    );
    return { rows, notes };
  },
};
