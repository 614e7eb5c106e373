// OpenVINO VariadicSplit-1: data, an axis tensor (scalar or shape [1], any integer dtype) and
// split_lengths (1-D, any integer dtype, at most one -1 that takes what the others leave).
// No attributes and no opset: the node's `opset` is ignored.

import { SplitError, check } from '../errors.js';
import { normalizeAxis, planSplit } from '../planner.js';
import type { ResolvedNode, SplitNode } from './types.js';
import { checkAttributes, checkOutputCount, declaredOutputs, inputSlots } from './node-rules.js';
import { ALL_DTYPES, INTEGER_DTYPES, type TypeParam, checkDType, checkRank, dataInput, hostParam, readIntegers } from './inputs.js';

const WHO = 'VariadicSplit-1';
const T1: TypeParam = { name: 'type T1', dtypes: ALL_DTYPES };
const T2: TypeParam = { name: 'type T2 (any integer type)', dtypes: INTEGER_DTYPES };

export function resolveVariadicSplit(node: SplitNode): ResolvedNode {
  checkAttributes(node, WHO, [], {
    axis: "the axis is VariadicSplit's second input, a scalar or shape-[1] integer tensor",
    split: "the lengths are VariadicSplit's third input, 'split_lengths'",
  });
  const [x, axisInput, lengthsInput] = inputSlots(node, WHO, ['data', 'axis', 'split_lengths'], 3);
  const data = dataInput(x!, WHO, 'data', T1);
  const declared = declaredOutputs(node, WHO);

  // Each parameter may use its own integer type: the spec names both T2 but OpenVINO's
  // implementation checks each for being integral only.
  const axisT = hostParam(axisInput!, WHO, 'axis');
  checkDType(axisT.dtype, T2, WHO, 'axis');
  checkRank(axisT, WHO, 'axis', [0, 1], 'a scalar or a tensor of shape [1]');
  check(axisT.shape.length === 0 || axisT.shape[0] === 1, 'BAD_INPUT',
    () => `${WHO}: input 'axis' must be a scalar or a tensor of shape [1], got shape [${axisT.shape.join(', ')}]`);
  const axis = readIntegers(axisT, WHO, 'axis', 'AXIS_RANGE')[0]!;
  const ax = normalizeAxis(axis, data.shape.length, WHO);
  const dim = data.shape[ax]!;

  const lengthsT = hostParam(lengthsInput!, WHO, 'split_lengths');
  checkDType(lengthsT.dtype, T2, WHO, 'split_lengths');
  checkRank(lengthsT, WHO, 'split_lengths', [1], 'a 1-D tensor with one length per output');
  const lengths = readIntegers(lengthsT, WHO, 'split_lengths', 'BAD_SIZE');
  check(lengths.length >= 1, 'BAD_SIZE', () => `${WHO}: 'split_lengths' is empty, but VariadicSplit has at least one output`);
  for (const [i, v] of lengths.entries()) {
    check(v >= -1, 'BAD_SIZE', () => `${WHO}: 'split_lengths' value ${v} at index ${i} must be >= 0, or -1 for the remainder`);
  }
  const inferred = lengths.flatMap((v, i) => (v === -1 ? [i] : []));
  check(inferred.length <= 1, 'BAD_SIZE',
    () => `${WHO}: 'split_lengths' [${lengths.join(', ')}] has ${inferred.length} entries of -1 (at ${inferred.join(', ')}); at most one may be -1`);
  const sizes = [...lengths];
  if (inferred.length === 1) {
    const rest = dim - lengths.reduce((a, v) => (v === -1 ? a : a + v), 0);
    if (rest < 0) {
      throw new SplitError('SIZE_SUM', `${WHO}: 'split_lengths' [${lengths.join(', ')}] without its -1 already sums to ` +
        `${dim - rest}, more than dimension ${ax} of the input, which has length ${dim}`);
    }
    sizes[inferred[0]!] = rest;
  }
  checkOutputCount(declared, sizes.length, WHO, `'split_lengths' with ${sizes.length} entr${sizes.length === 1 ? 'y' : 'ies'}`);
  const plan = planSplit(data.dtype, data.shape, axis, sizes, WHO);
  return { label: WHO, plan, outputShapes: plan.outputShapes };
}
