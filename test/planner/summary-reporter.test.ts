// The closing summary line counts a failure outside any test (a failed beforeAll leaves its tests
// "skipped") as a failure, and names it.
import { expect, test, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SummaryLine from '../helpers/summary-reporter.js';

const fakeModule = (states: string[], moduleErrors: number, suiteErrors: number) =>
  ({
    relativeModuleId: 'test/x.test.ts',
    errors: () => Array.from({ length: moduleErrors }, () => ({ message: 'boom' })),
    children: {
      *allTests() {
        for (const state of states) yield { result: () => ({ state }) };
      },
      *allSuites() {
        yield { fullName: 'suite s', errors: () => Array.from({ length: suiteErrors }, () => ({ message: 'boom' })) };
      },
    },
  }) as unknown as TestModule;

function lineOf(modules: TestModule[], unhandled: { message: string }[] = []): string {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    new SummaryLine().onTestRunEnd(modules, unhandled as never);
    return String(write.mock.calls[0]![0]).trim();
  } finally {
    write.mockRestore();
  }
}

test('tests only: their own counts', () => {
  expect(lineOf([fakeModule(['passed', 'passed', 'failed', 'skipped'], 0, 0)])).toBe('2 passed, 1 failed, 1 skipped');
});

test('a failed beforeAll of a file or a suite, and an unhandled error, are failures', () => {
  expect(lineOf([fakeModule(['skipped', 'skipped'], 1, 0)])).toBe(
    '0 passed, 1 failed (1 outside tests: test/x.test.ts), 2 skipped',
  );
  expect(lineOf([fakeModule(['passed'], 0, 1)], [{ message: 'late' }])).toBe(
    '1 passed, 2 failed (2 outside tests: test/x.test.ts > suite s; unhandled: late), 0 skipped',
  );
});
