// Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary, so
// CI logs state the count without colour codes.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLine implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const m of modules) for (const t of m.children.allTests()) count[t.result().state]++;
    process.stdout.write(`\n${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
