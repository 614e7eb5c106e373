// OpenVINO VariadicSplit-1: data of any element type (the packed sub-byte ones included), an axis
// tensor (scalar or shape [1], any integer dtype) and split_lengths (1-D, any integer dtype, at
// most one -1 that takes what the others leave). No attributes and no opset: `opset` is ignored.

import { SplitError, check } from '../errors.js';
import { type PlanSubjects, normalizeAxis, planSplit } from '../planner/split.js';
import { DTYPES } from '../dtype.js';
import type { ResolvedRun } from './types.js';
import { type NodeFields, checkAttributes, checkOutputCount, declaredOutputs, inputSlots } from './node-rules.js';
import { INTEGER_DTYPES, type TypeParam, checkDType, checkRank, dataInput, hostParam, readIntegers } from './inputs.js';

const WHO = 'VariadicSplit-1';
const T1: TypeParam = { name: 'type T1', dtypes: DTYPES };
const T2: TypeParam = { name: 'type T2 (any integer type)', dtypes: INTEGER_DTYPES };
const SUBJECTS: PlanSubjects = { axis: { kind: 'input', name: 'axis' }, sizes: { kind: 'input', name: 'split_lengths' } };

export function resolveVariadicSplit(n: NodeFields): ResolvedRun {
  checkAttributes(n, WHO, [], {
    axis: "the axis is VariadicSplit's second input, a scalar or shape-[1] integer tensor",
    split: "the lengths are VariadicSplit's third input, 'split_lengths'",
  });
  const [x, axisInput, lengthsInput] = inputSlots(n, WHO, ['data', 'axis', 'split_lengths'], 3);
  const data = dataInput(x!, WHO, 'data', T1);
  const declared = declaredOutputs(n, WHO);

  // Each parameter may use its own integer type: the spec names both T2 but OpenVINO's
  // implementation checks each for being integral only.
  const axisT = hostParam(axisInput!);
  checkDType(axisT.dtype, T2, WHO, 'axis');
  checkRank(axisT, WHO, 'axis', [0, 1], 'a scalar or a tensor of shape [1]');
  check(axisT.shape.length === 0 || axisT.shape[0] === 1, 'BAD_INPUT',
    () => `${WHO}: input 'axis' must be a scalar or a tensor of shape [1], got shape [${axisT.shape.join(', ')}]`, { kind: 'input', name: 'axis', part: 'shape' });
  const axis = readIntegers(axisT, WHO, 'axis', 'AXIS_RANGE')[0]!;
  const ax = normalizeAxis(axis, data.shape.length, WHO, SUBJECTS.axis);
  const sizes = splitLengths(readLengths(lengthsInput!), data.shape[ax]!, ax);
  checkOutputCount(declared, sizes.length, WHO, `'split_lengths' with ${sizes.length} entr${sizes.length === 1 ? 'y' : 'ies'}`);
  const plan = planSplit(data.dtype, data.shape, axis, sizes, WHO, SUBJECTS);
  return { label: WHO, plan, outputShapes: plan.outputShapes, data };
}

function readLengths(t: NonNullable<ReturnType<typeof inputSlots>[number]>): number[] {
  const lengthsT = hostParam(t);
  checkDType(lengthsT.dtype, T2, WHO, 'split_lengths');
  checkRank(lengthsT, WHO, 'split_lengths', [1], 'a 1-D tensor with one length per output');
  return readIntegers(lengthsT, WHO, 'split_lengths', 'BAD_SIZE');
}

/** Lengths >= 0, or one -1 for what the others leave of the axis. */
function splitLengths(lengths: number[], dim: number, ax: number): number[] {
  const at = SUBJECTS.sizes;
  check(lengths.length >= 1, 'BAD_SIZE', () => `${WHO}: 'split_lengths' is empty, but VariadicSplit has at least one output`, at);
  for (const [i, v] of lengths.entries()) {
    check(v >= -1, 'BAD_SIZE', () => `${WHO}: 'split_lengths' value ${v} at index ${i} must be >= 0, or -1 for the remainder`, at);
  }
  const inferred = lengths.flatMap((v, i) => (v === -1 ? [i] : []));
  check(inferred.length <= 1, 'BAD_SIZE',
    () => `${WHO}: 'split_lengths' [${lengths.join(', ')}] has ${inferred.length} entries of -1 (at ${inferred.join(', ')}); at most one may be -1`, at);
  if (inferred.length === 0) return lengths;
  const rest = dim - lengths.reduce((a, v) => (v === -1 ? a : a + v), 0);
  if (rest < 0) {
    throw new SplitError('SIZE_SUM', `${WHO}: 'split_lengths' [${lengths.join(', ')}] without its -1 already sums to ` +
      `${dim - rest}, more than dimension ${ax} of the input, which has length ${dim}`, at);
  }
  const sizes = [...lengths];
  sizes[inferred[0]!] = rest;
  return sizes;
}
