import v8 from 'node:v8';

export interface HeapTrimOptions {
  /** How far the heap may grow past what was alive after the last collection. */
  slackBytes: number;
  /** A full collection (the task process's `gc`, exposed by `--expose-gc`). */
  gc: () => void;
  /** The heap in use now; V8's figure by default. */
  usedBytes?: () => number;
}

/** What a task process lets its heap grow by during a step before it collects. */
export const TASK_HEAP_SLACK_BYTES = 2 * 1024 * 1024;

export interface HeapTrimmer {
  /** Collects when the heap has grown `slackBytes` past what the last collection left. */
  check(): void;
  /** Collects now: at a point where much was just let go (startup, a sent request). */
  collect(): void;
}

/**
 * Collections at points the task process chooses: `check` between tool calls and while a
 * request body is sent, `collect` once startup is over and once a request is all sent.
 *
 * Why: left to itself, V8 ran its full collections when the process went idle, and a task
 * process is idle only between steps (waiting for the model). In a step of thousands of tool
 * calls, the little each call keeps long enough to be promoted piled up: `--trace-gc` showed
 * four full collections in the bench's 1 GB run, each at 15–19 MiB with ~8 MiB alive
 * (`npm run bench`, memory group). Collecting when the heap has grown 2 MiB costs a few
 * milliseconds every thousand calls or so. Sending a gigabyte body piles up the same way
 * (thousands of reads and writes, each alive across an await), and what starting up left,
 * or a sent request's buffers, would otherwise count as alive until the next check.
 */
export function heapTrimmer(options: HeapTrimOptions): HeapTrimmer {
  const used = options.usedBytes ?? (() => v8.getHeapStatistics().used_heap_size);
  let base = used();
  const collect = (): void => {
    options.gc();
    base = used();
  };
  return {
    check: () => {
      if (used() - base >= options.slackBytes) collect();
    },
    collect,
  };
}

/**
 * The full collection `--expose-gc` puts on the global object (TASK_PROCESS_V8_FLAGS), or
 * undefined where the process was started without it (tests, tools run in-process).
 */
export function exposedGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => void gc() : undefined;
}
