// The conformance suite (test/conformance/) on Dawn: src/ in Node, the device found by Cleave
// itself through the `webgpu` package. The same cases run on wgpu in test/wgpu/deno.test.ts.
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as cleave from '../../src/index.js';
import { conformanceCases } from '../conformance/cases.js';
import { type Harness, openHarness, runCase } from '../conformance/suite.js';

const cases = conformanceCases();
let harness: Harness | undefined;

// No adapter fails here, and with it every case.
beforeAll(async () => {
  harness = await openHarness(cleave);
});
afterAll(() => harness?.close());

test('the suite: a control case first, every name once, 500 cases or more', () => {
  expect(cases[0]!.family).toBe('control');
  expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  expect(cases.length).toBeGreaterThanOrEqual(500);
});

for (const c of cases) {
  test(c.name, async () => {
    const r = await runCase(harness!, c);
    expect(r.problem ?? 'exact, by GPU work', JSON.stringify(r.stats)).toBe('exact, by GPU work');
  });
}
