import { OPERATION_NAMES, type OperationName } from '../../../shared/api/operation-names';
import type { WorkbenchApi } from '../../../shared/api/workbench-api';

/**
 * An early answer unclaimed for this long is dropped and the UI asks again: the view mounts
 * well within it, and a change made meanwhile is not shown as current for long.
 */
const KEEP_MS = 5_000;

export interface EarlyCalls {
  /** The API the UI uses: a call identical to one started early gets that call's answer. */
  api: WorkbenchApi;
  /** Starts a call now, before the view that needs it has rendered. */
  start<N extends OperationName>(name: N, input: Parameters<WorkbenchApi[N]>[0]): void;
}

type AnyOperation = (input?: unknown) => Promise<unknown>;

/**
 * The first view's calls, started while the page's script is still setting up React: on a
 * slow machine that is a few hundred milliseconds in which the server already answers.
 * Each early answer is handed out once, to the first identical call, and only while fresh.
 */
export function withEarlyCalls(api: WorkbenchApi, now: () => number = Date.now): EarlyCalls {
  const early = new Map<string, { answer: Promise<unknown>; at: number }>();
  // Every operation is a one-argument function returning a promise (see buildApiObject).
  const operations = api as unknown as Record<OperationName, AnyOperation>;
  const wrapped: Record<string, unknown> = { onEvent: api.onEvent.bind(api) };
  for (const name of OPERATION_NAMES) {
    wrapped[name] = (input?: unknown) => {
      const key = callKey(name, input);
      const found = early.get(key);
      early.delete(key);
      if (found && now() - found.at <= KEEP_MS) return found.answer;
      return operations[name](input);
    };
  }
  return {
    // The loop above creates exactly the keys of WorkbenchApi.
    api: wrapped as unknown as WorkbenchApi,
    start(name, input) {
      const answer = operations[name](input);
      // Unclaimed, a failure must not surface as an unhandled rejection; a claimer sees it.
      answer.catch(() => undefined);
      early.set(callKey(name, input), { answer, at: now() });
    },
  };
}

/** The operation and its input with keys sorted: equal inputs give equal keys. */
export function callKey(name: string, input: unknown): string {
  return `${name}:${JSON.stringify(input ?? {}, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  )}`;
}
