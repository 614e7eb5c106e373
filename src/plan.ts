// The planner's public entry points, `planSplit` and `equalParts`, checking their arguments as any
// public call does (read once, SplitError on anything wrong). The engine and the operator
// front-ends call the unchecked planner directly, with arguments they have already read.

import { asInt, check, guardRead, show } from './errors.js';
import { type DType, isDType } from './dtype.js';
import { readCount, readLengths } from './read/options.js';
import { numelOf, readShape } from './read/tensor.js';
import { type SplitPlan, equalParts as equalPartsOf, planSplit as plan } from './planner/split.js';

/** Plans a split of `shape` along `axis` (negative counts from the back) into `sizes`, checking every rule. */
export function planSplit(dtype: DType, shape: readonly number[], axis: number, sizes: readonly number[]): SplitPlan {
  return guardRead('planSplit', () => {
    check(isDType(dtype), 'BAD_DTYPE', () => `planSplit: unknown dtype ${show(dtype)}`, 'option:dtype');
    const dims = readShape(shape, 'planSplit', 'option:shape');
    numelOf(dims, 'planSplit', 'option:shape');
    check(
      typeof axis === 'number',
      'AXIS_RANGE',
      () => `planSplit: axis must be an integer, got ${show(axis)}`,
      'option:axis',
    );
    return plan(dtype, dims, axis, readLengths(sizes, 'planSplit', 'option:sizes'));
  });
}

/**
 * `parts` chunks of ceil(dim / parts), clamped to what remains: 5 into 4 = [2, 2, 1, 0] (the ONNX reference's
 * rule).
 */
export function equalParts(dim: number, parts: number): number[] {
  const d = asInt(dim, 0);
  check(d !== undefined, 'BAD_SHAPE', () => `equalParts: dim must be an integer >= 0, got ${show(dim)}`, 'option:dim');
  return equalPartsOf(d, readCount(parts, 'equalParts', 'option:parts', 'BAD_PARTS'));
}
