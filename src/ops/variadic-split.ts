// OpenVINO VariadicSplit-1: data of any element type (the packed sub-byte ones included), an axis
// tensor (scalar or shape [1], any integer dtype) and split_lengths (1-D, any integer dtype, at
// most one -1 that takes what the others leave). No attributes and no opset: `opset` is ignored.

import { type SplitErrorCode, check } from '../errors.js';
import { planSplit } from '../planner/split.js';
import type { TensorView } from '../read/tensor.js';
import type { ReadNode } from './types.js';
import { type NodeFields, checkAttributes, checkOutputCount, declaredOutputs, inputsOf } from './node-rules.js';
import { INTEGER_DTYPES, ONE_PER_OUTPUT, type TypeParam, readParam } from './inputs.js';

const WHO = 'VariadicSplit-1';
// Each parameter may use its own integer type: the spec names both T2, but OpenVINO's
// implementation checks each for being integral only.
const T2: TypeParam = { name: 'type T2 (any integer type)', dtypes: INTEGER_DTYPES };
const SPLIT_LENGTHS = 'input:split_lengths';

export function resolveVariadicSplit(n: NodeFields): ReadNode {
  checkAttributes(n, WHO, [], {
    axis: "the axis is VariadicSplit's second input, a scalar or shape-[1] integer tensor",
    split: "the lengths are VariadicSplit's third input, 'split_lengths'",
  });
  const [data, axisT, sizesT] = inputsOf(n, WHO, ['data', 'axis', 'split_lengths'], 3) as TensorView[];
  const declared = declaredOutputs(n, WHO);
  const axis = readParam(axisT!, WHO, 'axis', T2, [0, 1], 'a scalar or a tensor of shape [1]', 'AXIS_RANGE').values;
  check(
    axis.length === 1,
    'BAD_INPUT',
    () => `${WHO}: input 'axis' must be a scalar or a tensor of shape [1], got shape [${axisT!.shape.join(', ')}]`,
    'input:axis.shape',
  );
  const resolve = (dim: number, ax: number) => {
    const values = readParam(sizesT!, WHO, 'split_lengths', T2, [1], ONE_PER_OUTPUT, 'BAD_SIZE').values;
    const sizes = resolveSizes(values, dim, ax);
    const count = `'split_lengths' with ${sizes.length} entr${sizes.length === 1 ? 'y' : 'ies'}`;
    checkOutputCount(declared, sizes.length, WHO, count);
    return sizes;
  };
  const plan = () => {
    const p = planSplit(data!.dtype, data!.shape, axis[0], resolve, WHO, { axis: 'input:axis', sizes: SPLIT_LENGTHS });
    return { label: WHO, plan: p, outputShapes: p.outputShapes };
  };
  return { label: WHO, data: data!, read: [axis[0], sizesT, declared], plan };
}

/** Sizes >= 0, or one -1 for what the others leave of the axis. */
function resolveSizes(values: number[], dim: number, ax: number): number[] {
  checkSplitLengths(values.length > 0, 'BAD_SIZE', () => 'is empty, but VariadicSplit has at least one output');
  const bad = values.findIndex((v) => v < -1);
  checkSplitLengths(
    bad < 0,
    'BAD_SIZE',
    () => `value ${values[bad]} at index ${bad} must be >= 0, or -1 for the remainder`,
  );
  const inferred = values.flatMap((v, i) => (v === -1 ? [i] : []));
  checkSplitLengths(
    inferred.length <= 1,
    'BAD_SIZE',
    () =>
      `[${values.join(', ')}] has ${inferred.length} entries of -1 (at ${inferred.join(', ')}); at most one may be -1`,
  );
  if (!inferred.length) return values;
  const rest = dim - values.reduce((a, v) => (v === -1 ? a : a + v), 0);
  checkSplitLengths(
    rest >= 0,
    'SIZE_SUM',
    () =>
      `[${values.join(', ')}] without its -1 already sums to ` +
      `${dim - rest}, more than the length ${dim} of dimension ${ax}`,
  );
  return values.map((v) => (v === -1 ? rest : v));
}

/** Refuses 'split_lengths' values that break a rule (`rule`: the message after "VariadicSplit-1: 'split_lengths' "). */
function checkSplitLengths(ok: boolean, code: SplitErrorCode, rule: () => string): asserts ok {
  check(ok, code, () => `${WHO}: 'split_lengths' ${rule()}`, SPLIT_LENGTHS);
}
