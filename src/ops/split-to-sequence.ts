// ONNX SplitToSequence, versions 11 and 24: chunks of 1 (no 'split'; keepdims=0 then drops the
// axis), chunks of a scalar 'split' with a smaller last one, or the lengths of a 1-D 'split'.
// The sequence's tensors are the engine's outputs, in order; a zero-length axis without a 1-D
// 'split' makes an empty sequence.

import { check } from '../errors.js';
import { MAX_OUTPUTS, type PlanSubjects, normalizeAxis, planSplit } from '../planner/split.js';
import type { TensorView } from '../tensor.js';
import type { ResolvedRun } from './types.js';
import { type NodeFields, checkAttributes, checkOutputCount, declaredOutputs, inputSlots, intAttribute, pickVersion } from './node-rules.js';
import {
  ONNX_ALL, ONNX_BUT_BFLOAT16, type TypeParam, checkDType, checkRank, dataInput, hostParam, laterVersion, readIntegers,
} from './inputs.js';

const VERSIONS = [11, 24] as const;
type Version = (typeof VERSIONS)[number];

const T: Readonly<Record<Version, TypeParam>> = {
  11: { name: 'type T', dtypes: ONNX_BUT_BFLOAT16 },
  24: { name: 'type T', dtypes: ONNX_ALL },
};
const I: TypeParam = { name: 'type I', dtypes: ['int32', 'int64'] };
const AXIS = { kind: 'attribute', name: 'axis' } as const;
const SPLIT = { kind: 'input', name: 'split' } as const;

export function resolveSplitToSequence(n: NodeFields): ResolvedRun {
  const version = pickVersion('SplitToSequence', n.opset, VERSIONS) as Version;
  const who = `SplitToSequence-${version}`;
  checkAttributes(n, who, ['axis', 'keepdims'], {
    split: "the lengths go in the optional 'split' input (int32 or int64), not in an attribute",
    num_outputs: "'num_outputs' belongs to Split-18; SplitToSequence takes a scalar 'split' input for equal chunks",
  });
  const [x, splitInput] = inputSlots(n, who, ['input', 'split'], 1);
  const data = dataInput(x!, who, 'input', T[version], (d) => laterVersion('SplitToSequence', d, version, T));
  // The node declares one output, the sequence; a count equal to the sequence's length is read as
  // the number of tensors in it, which is what a caller comparing outputs usually means.
  const declared = declaredOutputs(n, who, 0);
  const axis = intAttribute(n, 'axis', who) ?? 0;
  const keepdims = intAttribute(n, 'keepdims', who) ?? 1;
  check(keepdims === 0 || keepdims === 1, 'BAD_ATTRIBUTE', () => `${who}: attribute 'keepdims' must be 0 or 1, got ${keepdims}`,
    { kind: 'attribute', name: 'keepdims' });
  const ax = normalizeAxis(axis, data.shape.length, who, AXIS);
  const dim = data.shape[ax]!;
  // keepdims is ignored whenever 'split' is given, as the spec says.
  const sizes = splitInput === undefined ? ones(dim, who) : lengths(splitInput, dim, ax, who);
  if (declared !== undefined && declared !== 1) {
    checkOutputCount(declared, sizes.length, who, 'the sequence (declared as 1 output, or as its length)');
  }
  const subjects: PlanSubjects = { axis: AXIS, sizes: splitInput === undefined ? { kind: 'input', name: 'input', part: 'shape' } : SPLIT };
  const plan = planSplit(data.dtype, data.shape, axis, sizes, who, subjects);
  const dropAxis = splitInput === undefined && keepdims === 0;
  const outputShapes = dropAxis ? plan.outputShapes.map((sh) => sh.filter((_, i) => i !== ax)) : plan.outputShapes;
  return { label: who, plan, outputShapes, data };
}

/** No 'split': chunks of length 1, one per position along the axis. */
function ones(dim: number, who: string): number[] {
  check(dim <= MAX_OUTPUTS, 'TOO_LARGE', () => `${who}: without 'split' the axis of length ${dim} becomes ${dim} tensors; ` +
    `a split makes at most ${MAX_OUTPUTS}`, { kind: 'input', name: 'input', part: 'shape' });
  return new Array<number>(dim).fill(1);
}

/** A scalar 'split' (chunk length) or a 1-D 'split' (one length per chunk). */
function lengths(t: TensorView, dim: number, ax: number, who: string): number[] {
  const s = hostParam(t);
  checkDType(s.dtype, I, who, 'split');
  checkRank(s, who, 'split', [0, 1], 'a scalar (chunk length) or a 1-D tensor (one length per chunk)');
  const values = readIntegers(s, who, 'split', 'BAD_SIZE');
  if (s.shape.length === 1) {
    check(values.length > 0 || dim === 0, 'SIZE_SUM',
      () => `${who}: 'split' is empty (sums to 0) but dimension ${ax} of the input has length ${dim}`, SPLIT);
    return values;
  }
  const k = values[0]!;
  check(k >= 1, 'BAD_SIZE', () => `${who}: a scalar 'split' is a chunk length and must be >= 1, got ${k}`, SPLIT);
  check(Math.ceil(dim / k) <= MAX_OUTPUTS, 'TOO_LARGE',
    () => `${who}: chunks of ${k} cut the axis of length ${dim} into ${Math.ceil(dim / k)} tensors; a split makes at most ${MAX_OUTPUTS}`, SPLIT);
  const out: number[] = [];
  for (let at = 0; at < dim; at += k) out.push(Math.min(k, dim - at));
  return out;
}
