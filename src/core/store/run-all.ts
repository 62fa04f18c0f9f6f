/**
 * Runs every step even when one throws, then throws the first failure: closing a task's
 * files must close all of them although writing what one held failed.
 */
export function runAll(steps: readonly (() => void)[]): void {
  let failure: unknown;
  for (const step of steps) {
    try {
      step();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
