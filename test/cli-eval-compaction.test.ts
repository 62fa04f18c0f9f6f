import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalPoint } from '../src/core/compaction/evaluate-compaction';
import type { CandidateSummary } from '../src/shared/compaction-eval-summary';
import {
  FACT_KINDS,
  SCORED_KINDS,
  type CompactionQualityInfo,
  type FactKind,
} from '../src/shared/fact-kinds';
import { STRATEGY_NAMES } from '../src/shared/strategy-names';
import { realFixture } from './support/real-fixtures';
import { runCwb } from './support/run-ts';

const PIPELINE = 'tool-output-trim+summarize';
const UNKNOWN = '550e8400-e29b-41d4-a716-446655440000';

interface Imported {
  uuid: string;
  title: string | null;
  messages: number;
  file: string;
}

interface EvalJson {
  tasks: { uuid: string; title: string | null; points: EvalPoint[] }[];
  summary: CandidateSummary[];
}

let dir: string;
let root: string;
let config: string;
let tasks: Imported[];

function cwb(...args: string[]): ReturnType<typeof runCwb> {
  return runCwb(['--contexts', root, '--config', config, ...args]);
}

function importInto(contexts: string, ...files: string[]): Imported[] {
  const r = runCwb(['--contexts', contexts, '--config', config, 'import', '--json', ...files]);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { imported: Imported[] }).imported;
}

/** The one imported task from `file` (a file without sidechains). */
function taskFrom(fileName: string): Imported {
  const found = tasks.filter((t) => path.basename(t.file) === fileName);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function evalJson(...args: string[]): EvalJson {
  const r = cwb('eval-compaction', '--json', ...args);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as EvalJson;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Every file under `top` with its size and mtime; tasks.db is the store's, not a task's. */
function snapshot(top: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!e.name.startsWith('tasks.db')) {
        const st = fs.statSync(p);
        files.set(path.relative(top, p), `${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(top);
  return files;
}

function checkQuality(q: CompactionQualityInfo): void {
  expect(q.savedShare).toBeGreaterThanOrEqual(0);
  expect(q.savedShare).toBeLessThanOrEqual(1);
  expect(q.savedShare).toBeCloseTo(1 - q.replacementTokens / q.spanTokens, 9);
  expect(q.spanMessages).toBeGreaterThan(0);
  for (const kind of FACT_KINDS) {
    expect(q.facts.byKind[kind].kept).toBeLessThanOrEqual(q.facts.byKind[kind].total);
  }
  const salientTotal = SCORED_KINDS.reduce((n, k) => n + q.facts.byKind[k].total, 0);
  const salientKept = SCORED_KINDS.reduce((n, k) => n + q.facts.byKind[k].kept, 0);
  expect(q.facts.salient).toEqual({ total: salientTotal, kept: salientKept });
  const allTotal = FACT_KINDS.reduce((n, k) => n + q.facts.byKind[k].total, 0);
  const allKept = FACT_KINDS.reduce((n, k) => n + q.facts.byKind[k].kept, 0);
  expect(q.facts.lostCount).toBe(allTotal - allKept);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-eval-'));
  root = path.join(dir, 'contexts');
  // The configured pipeline, written out so a config on the machine cannot change it.
  config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, 'compaction:\n  pipeline: [tool-output-trim, summarize]\n');
  tasks = importInto(
    root,
    realFixture('swe-agent', 'pydicom__pydicom-1458.traj'),
    realFixture('swe-agent', 'function_calling_simple.traj'),
    realFixture('codex', 'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl'),
    // a session with sub-agent sidechains, one of them too short to compact
    realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
  );
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cwb eval-compaction', () => {
  it('scores every task, newest first, with each strategy and the configured pipeline', () => {
    const result = evalJson();
    const listed = JSON.parse(cwb('tasks', '--json', '--limit', '100').stdout) as {
      tasks: { uuid: string }[];
    };
    expect(result.tasks.map((t) => t.uuid)).toEqual(listed.tasks.map((t) => t.uuid));
    expect(new Set(result.tasks.map((t) => t.uuid))).toEqual(new Set(tasks.map((t) => t.uuid)));

    const labels = [...STRATEGY_NAMES, PIPELINE];
    for (const task of result.tasks) {
      expect(task.points.map((p) => p.label)).toEqual(labels);
      expect(task.points.filter((p) => p.isDefault).map((p) => p.label)).toEqual([PIPELINE]);
      for (const p of task.points) {
        expect(p.tokensAfter).toBeLessThanOrEqual(p.tokensBefore);
        if (p.applied) checkQuality(p.quality!);
        else {
          expect(p.quality).toBeUndefined();
          expect(p.reason).toMatch(/\w/);
        }
      }
    }
    // the 6-message sub-agent is too short for the pipeline, and is reported, not dropped
    const short = tasks.find((t) => t.messages < 10)!;
    const shortPoints = result.tasks.find((t) => t.uuid === short.uuid)!.points;
    expect(shortPoints.find((p) => p.isDefault)).toMatchObject({ applied: false });
    expect(shortPoints.find((p) => p.isDefault)!.reason).toMatch(/summarize: .*min_to_compress/);

    expect(result.summary.map((c) => c.label)).toEqual(labels);
    const pipeline = result.summary.find((c) => c.isDefault)!;
    const applied = result.tasks
      .map((t) => t.points.find((p) => p.isDefault)!)
      .filter((p) => p.applied);
    expect(pipeline).toMatchObject({
      label: PIPELINE,
      tasks: result.tasks.length,
      applied: applied.length,
    });
    expect(applied.length).toBeLessThan(result.tasks.length);
    expect(pipeline.medianSaved).toBeCloseTo(median(applied.map((p) => p.quality!.savedShare)), 9);
    expect(pipeline.minSaved).toBe(Math.min(...applied.map((p) => p.quality!.savedShare)));
    expect(pipeline.salient.total).toBe(
      applied.reduce((n, p) => n + p.quality!.facts.salient.total, 0),
    );
    expect(pipeline.salient.kept).toBeLessThanOrEqual(pipeline.salient.total);
    const shares = (kind: FactKind): number[] =>
      applied
        .map((p) => p.quality!.facts.byKind[kind])
        .filter((s) => s.total > 0)
        .map((s) => s.kept / s.total);
    for (const kind of SCORED_KINDS) {
      const s = shares(kind);
      expect(pipeline.byKind[kind].tasks).toBe(s.length);
      if (s.length) expect(pipeline.byKind[kind].medianShare).toBeCloseTo(median(s), 9);
      else expect(pipeline.byKind[kind].medianShare).toBeNull();
    }
  });

  it('prints a table per candidate with the pipeline marked, and per task for one task', () => {
    const task = taskFrom('pydicom__pydicom-1458.traj');
    const r = cwb('eval-compaction', task.uuid);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'Scored 9 candidates on 1 task (offline dry runs: extractive summaries, nothing written).',
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(r.stdout).toMatch(
      /^CANDIDATE +APPLIED +SAVED +MIN SAVED +SALIENT +PATHS +CMDS +ERRORS +NUMS +IDS$/m,
    );
    const marked = lines.filter((l) => /^\S+ \*\s/.test(l));
    expect(marked).toHaveLength(2); // the summary row and the task's row
    expect(marked.every((l) => l.startsWith(`${PIPELINE} *`))).toBe(true);

    const { summary } = evalJson(task.uuid);
    const pipeline = summary.find((c) => c.isDefault)!;
    const [, appliedCell, saved] = /^\S+ \* +(\S+) +(\d+) %/.exec(marked[0]!)!;
    expect(appliedCell).toBe('1/1');
    expect(Math.abs(Number(saved) - pipeline.medianSaved! * 100)).toBeLessThanOrEqual(1);

    const section = r.stdout.slice(r.stdout.indexOf(`Task ${task.uuid}`));
    expect(section).toMatch(/^CANDIDATE +SPAN TOKENS +SAVED +SALIENT +PATHS/m);
    const counts = [...section.matchAll(/\b(\d+)\/(\d+)\b/g)];
    expect(counts.length).toBeGreaterThan(20);
    for (const [, kept, total] of counts) expect(Number(kept)).toBeLessThanOrEqual(Number(total));
  });

  it('shows the per-task tables for several tasks only with --per-task', () => {
    const two = tasks.slice(0, 2).map((t) => t.uuid);
    const plain = cwb('eval-compaction', ...two);
    expect(plain.stdout).toMatch(/on 2 tasks/);
    expect(plain.stdout).not.toMatch(/^Task /m);
    const perTask = cwb('eval-compaction', ...two, '--per-task');
    expect(perTask.stdout.match(/^Task /gm)).toHaveLength(2);
    expect(evalJson('--limit', '1').tasks).toHaveLength(1);
  });

  it('takes candidates from --strategy: commas between them, + within a pipeline', () => {
    const task = taskFrom('function_calling_simple.traj');
    const result = evalJson(task.uuid, '--strategy', ` extractive,${PIPELINE},extractive `);
    expect(result.tasks[0]!.points.map((p) => [p.label, p.isDefault])).toEqual([
      ['extractive', false],
      [PIPELINE, true],
    ]);
    expect(result.tasks[0]!.points[1]!.strategies).toEqual(['tool-output-trim', 'summarize']);
    expect(result.summary.map((c) => c.label)).toEqual(['extractive', PIPELINE]);
  });

  it.each([
    ['magic', /^cwb: error: --strategy: unknown compaction strategy "magic" in "magic" \(use /],
    ['extractive+bogus', /^cwb: error: --strategy: unknown .* "bogus" in "extractive\+bogus"/],
    [',', /^cwb: error: --strategy: name at least one strategy or pipeline$/],
    ['+', /^cwb: error: --strategy: empty strategy in "\+"$/],
  ])('refuses --strategy %j with exit code 2', (value, message) => {
    const r = cwb('eval-compaction', '--strategy', value);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(message)]);
  });

  it('refuses an unknown or malformed task id with exit code 2, before scoring any', () => {
    const unknown = cwb('eval-compaction', tasks[0]!.uuid, UNKNOWN);
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(new RegExp(`^cwb: error: no task with id ${UNKNOWN}`));
    const malformed = cwb('eval-compaction', '../x');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toMatch(/^cwb: error: "\.\.\/x" is not a task id/);
  });

  it('writes nothing: every file of every task stays as it was', () => {
    const before = snapshot(root);
    expect(before.size).toBeGreaterThan(tasks.length * 3);
    expect(cwb('eval-compaction').status).toBe(0);
    expect(cwb('eval-compaction', '--json', '--strategy', 'truncate,condense').status).toBe(0);
    const codex = taskFrom(
      'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
    );
    expect(cwb('compact', codex.uuid, '--dry-run', '--offline').status).toBe(0);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('cwb compact reports quality', () => {
  const indentOf = (line: string): number => line.length - line.trimStart().length;

  /** The lines of one block: from the line starting with `start` to the next line as indented as it. */
  function block(lines: string[], start: string): string[] {
    const i = lines.findIndex((l) => l.startsWith(start));
    expect(i, `no line starts with ${JSON.stringify(start)}`).toBeGreaterThanOrEqual(0);
    const depth = indentOf(start);
    const end = lines.findIndex((l, j) => j > i && indentOf(l) <= depth);
    return lines.slice(i, end < 0 ? undefined : end);
  }

  /** The quality lines in `lines` say what `q` says. */
  function expectQualityLines(lines: string[], q: CompactionQualityInfo): void {
    const n = (x: number): string => x.toLocaleString('en-US');
    const span = lines.find((l) => l.trimStart().startsWith('span: '));
    expect(span?.trimStart()).toMatch(
      new RegExp(
        `^span: ${q.spanMessages} messages?, ${n(q.spanTokens)} → ${n(q.replacementTokens)} tokens \\((\\d+) % saved\\)$`,
      ),
    );
    const saved = Number(/\((\d+) % saved\)/.exec(span!)![1]);
    expect(Math.abs(saved - q.savedShare * 100)).toBeLessThanOrEqual(1);
    // the facts line and its continuation lines, indented deeper
    const from = lines.findIndex((l) => l.trimStart().startsWith('facts kept: '));
    const depth = indentOf(lines[from]!);
    let to = from + 1;
    while (to < lines.length && indentOf(lines[to]!) > depth) to++;
    const facts = lines
      .slice(from, to)
      .map((l) => l.trim())
      .join(' ');
    const { salient, byKind } = q.facts;
    expect(facts).toContain(`facts kept: ${salient.kept}/${salient.total} salient`);
    expect(facts).toContain(
      `paths ${byKind.path.kept}/${byKind.path.total}, commands ${byKind.command.kept}/${byKind.command.total}, error lines ${byKind.error.kept}/${byKind.error.total}, numbers ${byKind.number.kept}/${byKind.number.total}, identifiers ${byKind.identifier.kept}/${byKind.identifier.total}; instructions ${byKind.instruction.kept}/${byKind.instruction.total}, URLs ${byKind.url.kept}/${byKind.url.total}`,
    );
    const lost = lines.filter((l) => l.trimStart().startsWith('lost: '));
    expect(lost).toHaveLength(Math.min(5, q.facts.lostCount));
    q.facts.lost?.slice(0, lost.length).forEach((f, i) => {
      expect(lost[i]!.trim()).toContain(`lost: ${f.kind} "${f.text.slice(0, 20)}`);
    });
    const more = lines.find((l) => l.includes('more lost'));
    if (q.facts.lostCount > 5) expect(more).toContain(`… and ${q.facts.lostCount - 5} more lost`);
    else expect(more).toBeUndefined();
  }

  it('a dry run prints, under each step and for the run, what --json carries', () => {
    const codex = taskFrom(
      'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
    );
    const json = cwb('compact', codex.uuid, '--dry-run', '--offline', '--json');
    expect(json.status).toBe(0);
    const run = JSON.parse(json.stdout) as Record<string, unknown> & {
      quality: CompactionQualityInfo;
      steps: { strategy: string; applied: boolean; quality?: CompactionQualityInfo }[];
    };
    expect(run).not.toHaveProperty('view');
    const applied = run.steps.filter((s) => s.applied);
    expect(applied.map((s) => s.strategy)).toEqual(['tool-output-trim', 'summarize']);
    checkQuality(run.quality);
    expect(run.quality.facts.lostCount).toBeGreaterThan(0);

    const text = cwb('compact', codex.uuid, '--dry-run', '--offline');
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    for (const step of applied) {
      checkQuality(step.quality!);
      expectQualityLines(block(lines, `  ${step.strategy}:`), step.quality!);
    }
    expectQualityLines(block(lines, '  whole run:'), run.quality);
  });

  it('a real run prints its quality too, once when one step applied', () => {
    const own = path.join(dir, 'real-run');
    const [task] = importInto(own, realFixture('swe-agent', 'function_calling_simple.traj'));
    const r = runCwb([
      '--contexts',
      own,
      '--config',
      config,
      'compact',
      task!.uuid,
      '--strategy',
      'extractive',
      '--offline',
    ]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^ {2}extractive \[compaction 1\]: \d+ messages replaced/);
    expect(
      lines.filter((l) => /^ {4}span: \d+ messages, [\d,]+ → [\d,]+ tokens/.test(l)),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('    facts kept: '))).toHaveLength(1);
    expect(r.stdout).not.toContain('whole run:');
  });
});
