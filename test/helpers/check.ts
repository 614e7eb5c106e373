// Assertions shared by the GPU tiers: outputs compared byte for byte with the reference split.
import { expect } from 'vitest';
import type { HostTensor } from '../../src/index.js';
import { bitsOf, referenceSplit } from './cases.js';

export { downloadAll } from './download.js';

export function expectSplitOf(
  outs: readonly HostTensor[],
  x: HostTensor,
  axis: number,
  sizes: readonly number[],
): void {
  const want = referenceSplit(x, axis, sizes);
  expect(outs.map((o) => o.dtype)).toEqual(sizes.map(() => x.dtype));
  expect(outs.map((o) => o.shape)).toEqual(
    sizes.map((s) => x.shape.map((d, i) => (i === (axis + x.shape.length) % x.shape.length ? s : d))),
  );
  outs.forEach((o, i) => expect(bitsOf(o), `output ${i}`).toEqual(want[i]));
}
