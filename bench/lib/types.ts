/** What a benchmark group gets from the runner and gives back to the report. */

export type Verdict =
  /** No goal for this figure. */
  | { kind: 'none' }
  | { kind: 'met'; note?: string }
  /** `note` says how far off and why. */
  | { kind: 'missed'; note: string }
  /** Not measured in this run (no room on disk, a part that is not built yet, ...). */
  | { kind: 'skipped'; note: string };

export interface Row {
  /** What was measured (with its size). */
  what: string;
  ours: string;
  baseline: string;
  ratio: string;
  goal: string;
  verdict: Verdict;
}

export interface GroupResult {
  rows: Row[];
  /** Method, caveats and observations, one paragraph each. */
  notes: string[];
}

export interface BenchContext {
  /** --full: the 1 GB cases too. */
  readonly full: boolean;
  /** Runs per figure (each figure is the median of these). */
  readonly runs: number;
  /** A scratch folder for this group, removed after it. */
  readonly tmp: string;
  readonly repoRoot: string;
  /** The task process entry: a snapshot of out/main/worker.cjs taken when the bench started. */
  readonly workerFile: string;
  log(message: string): void;
  /** Bytes free on the file system of the scratch folder. */
  freeBytes(): number;
  /** A fixture several groups use (a large task), built once per bench run. */
  shared<T>(key: string, build: (dir: string) => Promise<T>): Promise<T>;
}

export interface BenchGroup {
  id: string;
  title: string;
  /** One paragraph: what the group measures and how. */
  about: string;
  run(ctx: BenchContext): Promise<GroupResult>;
}

export function row(
  what: string,
  ours: string,
  baseline = '—',
  ratio = '—',
  goal = '—',
  verdict: Verdict = { kind: 'none' },
): Row {
  return { what, ours, baseline, ratio, goal, verdict };
}

export function judge(met: boolean, missedNote: string, metNote?: string): Verdict {
  if (met) return metNote === undefined ? { kind: 'met' } : { kind: 'met', note: metNote };
  return { kind: 'missed', note: missedNote };
}
