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

/**
 * Returns a check to run between tool calls: when the heap has grown `slackBytes` past what
 * the last collection left, collect now.
 *
 * Why: left to itself, V8 ran its full collections when the process went idle, and a task
 * process is idle only between steps (waiting for the model). In a step of thousands of tool
 * calls, the little each call keeps long enough to be promoted piled up: `--trace-gc` showed
 * four full collections in the bench's 1 GB run, each at 15–19 MiB with ~8 MiB alive
 * (`npm run bench`, memory group). Collecting when the heap has grown 2 MiB costs a few
 * milliseconds every thousand calls or so.
 * It starts with one: what loading the bundle and opening the task left behind would
 * otherwise count as alive, and the first step's growth would come on top of it (the bench's
 * 100 MB run peaked there, at ~57 MiB against ~56 later).
 */
export function heapTrimmer(options: HeapTrimOptions): () => void {
  const used = options.usedBytes ?? (() => v8.getHeapStatistics().used_heap_size);
  options.gc();
  let base = used();
  return () => {
    if (used() - base < options.slackBytes) return;
    options.gc();
    base = used();
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
