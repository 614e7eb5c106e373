// The planner's public entry points, `planSplit` and `equalParts`, checking their arguments as any
// public call does (read once, SplitError on anything wrong). The engine and the operator
// front-ends call the unchecked planner directly, with arguments they have already read.

import { asInt, check, guardRead, show } from './errors.js';
import { type DType, readDType } from './dtype.js';
import { readCount, readSizes } from './read/options.js';
import { numelOf, readShape } from './read/tensor.js';
import { type SplitPlan, equalParts as equalPartsOf, planSplit as plan } from './planner/split.js';

/**
 * Plans a split without running it: every rule a split checks, no GPU, no data.
 *
 * @param dtype - The input's dtype.
 * @param shape - The input's shape.
 * @param axis - The axis to split; a negative one counts from the back.
 * @param sizes - Each output's length along the axis.
 * @returns The plan: the split as [outer, axis, inner], with each output's offset and shape.
 * @throws {@link SplitError} `BAD_DTYPE`, `BAD_SHAPE`, `RANK`, `AXIS_RANGE`, `BAD_SIZE`, `SIZE_SUM`: the argument that
 *   breaks its rule; `TOO_LARGE`: past `MAX_RANK`, `MAX_OUTPUTS` or 2^53 elements; `BAD_INPUT`: reading an
 *   argument threw.
 * @example
 * ```ts
 * import { planSplit } from 'cleave-gpu';
 *
 * const plan = planSplit('float32', [2, 6], -1, [2, 4]);
 * console.log(plan.axis, plan.outputShapes); // 1 [[2, 2], [2, 4]]
 * ```
 */
export function planSplit(dtype: DType, shape: readonly number[], axis: number, sizes: readonly number[]): SplitPlan {
  return guardRead('planSplit', () => {
    readDType(dtype, 'planSplit', 'option:dtype');
    const dims = readShape(shape, 'planSplit', 'option:shape');
    numelOf(dims, 'planSplit', 'option:shape');
    return plan(dtype, dims, axis, readSizes(sizes, 'planSplit', 'option:sizes'));
  });
}

/**
 * The lengths of `parts` equal parts with a smaller tail, as `split` with `parts` and Split-18's `num_outputs` cut
 * them: chunks of ceil(dim / parts), clamped to what remains, so trailing chunks may be empty (the ONNX reference's
 * rule).
 *
 * @param dim - The axis's length, an integer >= 0.
 * @param parts - The number of parts, an integer from 1 to `MAX_OUTPUTS`.
 * @returns The lengths, which sum to `dim`.
 * @throws {@link SplitError} `BAD_SHAPE`: `dim` is not an integer >= 0; `BAD_PARTS`: `parts` is not an integer >= 1;
 *   `TOO_LARGE`: `parts` is above `MAX_OUTPUTS`.
 * @example
 * ```ts
 * import { equalParts } from 'cleave-gpu';
 *
 * console.log(equalParts(5, 4), equalParts(7, 4)); // [2, 2, 1, 0] [2, 2, 2, 1]
 * ```
 */
export function equalParts(dim: number, parts: number): number[] {
  const d = asInt(dim, 0);
  check(d !== undefined, 'BAD_SHAPE', () => `equalParts: dim must be an integer >= 0, got ${show(dim)}`, 'option:dim');
  return equalPartsOf(d, readCount(parts, 'equalParts', 'option:parts', 'BAD_PARTS'));
}
