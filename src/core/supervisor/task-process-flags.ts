/**
 * V8 flags every task process starts with (node fork and Electron utility process alike).
 *
 * A task process keeps nothing of its context in memory, but it streams all of it through
 * at every model call (request.json, the HTTP body) and encodes and tokenizes every message
 * it appends: a lot of short-lived garbage. By default V8 lets the heap grow well past what
 * is alive before it collects, so the peak followed the garbage, not the live data
 * (`npm run bench`, memory group: 174 MiB at 10 MB of context, growing with the context).
 * `--optimize-for-size` makes V8 keep the young generation small and collect sooner; it
 * caps nothing, so a task that legitimately needs memory (compacting a huge view) still
 * gets it. Measured on the bench's scripted run: ~105 MiB at 10 MB, ~118 MiB at 100 MB,
 * with no measurable loss of speed (the run is dominated by tokenizing and file I/O).
 */
export const TASK_PROCESS_V8_FLAGS: readonly string[] = ['--optimize-for-size'];
