import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends a run with the plain line "N passed, N failed, N skipped" so CI logs state the
 * outcome in one greppable line whatever the default reporter prints.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is still a failure.
      if (mod.state() === 'failed' && ![...mod.children.allTests()].length) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
