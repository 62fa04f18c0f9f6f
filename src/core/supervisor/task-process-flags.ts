import { allowListedEnv } from './allowed-env';

/**
 * V8 flags every task process starts with (node fork and Electron utility process alike).
 *
 * A task process keeps nothing of its context in memory, but it streams all of it through
 * at every model call (request.json, the HTTP body) and encodes every message it appends:
 * a lot of short-lived garbage. By default V8 lets the heap grow well past what is alive
 * before it collects, so the peak followed the garbage, not the live data (`npm run bench`,
 * memory group: 174 MiB at 10 MB of context, growing with the context).
 * `--optimize-for-size` makes V8 keep the young generation small and collect sooner; it
 * caps nothing, so a task that legitimately needs memory (compacting a huge view) still
 * gets it. Measured on the bench's scripted run: ~105 MiB at 10 MB, ~118 MiB at 100 MB,
 * with no measurable loss of speed (the run is dominated by file I/O and waiting for the
 * model).
 * `--no-sparkplug` leaves out V8's baseline compiler: code warm enough for it stays in the
 * interpreter until it is hot enough for the optimizing compiler, which is where a task
 * process's time goes (reading, projecting and sending lines). That saves the baseline code
 * and the compiler pages it touches: 66.4 → 62.8 MiB at 10 MB and ~1–3 MiB at 100 MB, for
 * no measurable CPU time (4 alternating 100 MB runs each on 2026-11-26: median 4.8 s of CPU
 * with it and 4.75 s without).
 * `--expose-gc` gives the process the full collection src/worker/heap-trim.ts runs between
 * tool calls once the heap has grown 2 MiB: V8 by itself waited for the end of a step, and
 * in the bench's 1 GB run (steps of 4,000 calls) the heap grew from ~8 to ~18 MiB before it
 * did (peak 71–74 → 66–68 MiB). Only the task process's own code runs in it; the commands
 * it runs are processes of their own.
 * `--interrupt-budget=800000` (V8's default: 67,584 bytes of bytecode run) lets a function
 * run about twelve times longer before V8 considers optimizing it. The loops a task spends
 * its time in (reading files, encoding lines, scanning request.json) are hot enough either
 * way; what no longer gets optimized is the code that runs a few hundred times in a step,
 * whose compilations filled glibc's arenas with the optimizing compiler's freed zones.
 * Measured on the bench's scripted run (2026-11-26, `--full`, two to three runs each):
 * 67–69 → 64 MiB at 1 GB, 64–65 → 60–61 MiB at 100 MB, in the same time (100 MB: 1.04–1.14×
 * the append-once JSONL agent against 1.08–1.17× without it). Twelve times less eager was
 * the knee: thirty times (2,000,000) saved one MiB more and cost ~15 % of the time.
 */
export const TASK_PROCESS_V8_FLAGS: readonly string[] = [
  '--optimize-for-size',
  '--no-sparkplug',
  '--expose-gc',
  '--interrupt-budget=800000',
];

/**
 * glibc malloc settings for the task process, used unless the environment sets its own.
 * Outside V8's heap the process allocates and frees buffers of a MiB or so at every model
 * call (reading current.jsonl, writing request.json, sending it); glibc by default raises
 * its mmap threshold after such frees and then serves them from arenas it never gives back,
 * and keeps an arena per thread (libuv's pool, V8's helpers). Measured on the bench's
 * scripted 100 MB run: peak ~118 MiB without these, ~104 MiB with them. Other C libraries
 * ignore the variables.
 */
export const TASK_PROCESS_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: String(128 * 1024),
};

/**
 * The environment of a task process: the allow-listed part of `env` (allowed-env.ts: no
 * key, no token, no NODE_OPTIONS), with the malloc settings it does not set. What config
 * loading needs beyond that is handed over in the `start` message (config-env.ts).
 */
export function taskProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...TASK_PROCESS_MALLOC_ENV, ...allowListedEnv(env) };
}
