/**
 * Runs one request at a time and only ever the newest: while one is on its way, a newer
 * request replaces any that waited (it is never sent), and an answer is handed on only if
 * nothing newer was asked for in the meantime. The API has no way to stop a call once sent,
 * so stale requests are cancelled before they leave, and stale answers dropped.
 */
export interface LatestOnly<I> {
  run(input: I): void;
  /** Forget the waiting request and drop whatever answer is on its way. */
  cancel(): void;
}

export function latestOnly<I, O>(
  send: (input: I) => Promise<O>,
  onAnswer: (result: { ok: true; value: O } | { ok: false; error: unknown }, input: I) => void,
): LatestOnly<I> {
  let generation = 0;
  let busy = false;
  let waiting: { input: I; generation: number } | null = null;
  const start = (input: I, mine: number): void => {
    busy = true;
    send(input).then(
      (value) => finish(mine, input, { ok: true, value }),
      (error: unknown) => finish(mine, input, { ok: false, error }),
    );
  };
  const finish = (
    mine: number,
    input: I,
    result: { ok: true; value: O } | { ok: false; error: unknown },
  ): void => {
    busy = false;
    if (mine === generation) onAnswer(result, input);
    const next = waiting;
    waiting = null;
    if (next && next.generation === generation) start(next.input, next.generation);
  };
  return {
    run(input) {
      generation += 1;
      if (busy) waiting = { input, generation };
      else start(input, generation);
    },
    cancel() {
      generation += 1;
      waiting = null;
    },
  };
}
