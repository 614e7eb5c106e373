// The test-case builder itself: a key given twice would silently overwrite the first, so it is refused.
import { expect, test } from 'vitest';
import { ParamsBuilder } from '../helpers/cases.js';

test('combine and expand build every case once; a duplicate key is refused', () => {
  const b = ParamsBuilder.start()
    .combine('a', [1, 2])
    .expand('b', (p) => [p.a * 10]);
  expect(b.cases).toEqual([
    { a: 1, b: 10 },
    { a: 2, b: 20 },
  ]);
  expect(() => b.combine('a', [3])).toThrow(/parameter 'a' is already set/);
  expect(() => b.expand('b', () => [0])).toThrow(/parameter 'b' is already set/);
});
