// Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary, so
// CI logs state the count without colour codes. A failure outside a test (a beforeAll or afterAll
// hook, a file that fails to load, an unhandled error) counts as a failure and is named: its tests
// report "skipped", and a line of only skips must not hide a red run.
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export default class SummaryLine implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError> = []): void {
    const count = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    const outside: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) count[t.result().state]++;
      if (m.errors().length > 0) outside.push(m.relativeModuleId);
      for (const s of m.children.allSuites()) {
        if (s.errors().length > 0) outside.push(`${m.relativeModuleId} > ${s.fullName}`);
      }
    }
    outside.push(...unhandled.map((e) => `unhandled: ${e.message}`));
    const failed = count.failed + outside.length;
    const where = outside.length ? ` (${outside.length} outside tests: ${outside.join('; ')})` : '';
    process.stdout.write(`\n${count.passed} passed, ${failed} failed${where}, ${count.skipped} skipped\n`);
  }
}
