// ONNX SplitToSequence, versions 11 and 24: chunks of 1 (no 'split'; keepdims=0 then drops the
// axis), chunks of a scalar 'split' with a smaller last one, or the lengths of a 1-D 'split'.
// The sequence's tensors are the engine's outputs, in order; a zero-length axis without a 1-D
// 'split' makes an empty sequence.

import { type SubjectKey, check } from '../errors.js';
import { ONNX_DTYPES } from '../dtype.js';
import { planSplit } from '../planner/split.js';
import { MAX_OUTPUTS } from '../shape.js';
import type { TensorView } from '../read/tensor.js';
import type { ReadNode } from './types.js';
import {
  type NodeFields,
  checkAttributes,
  checkOutputCount,
  declaredOutputs,
  inputsOf,
  intAttribute,
  pickVersion,
} from './node-rules.js';
import { ONNX_BUT_BFLOAT16, type TypeParam, type TypeT, checkData, readParam } from './inputs.js';

const VERSIONS = [11, 24] as const;
const T: TypeT = { 11: ONNX_BUT_BFLOAT16, 24: ONNX_DTYPES };
const I: TypeParam = { name: 'type I', dtypes: ['int32', 'int64'] };
const WHY = {
  split: "the lengths go in the optional 'split' input (int32 or int64), not in an attribute",
  num_outputs: "'num_outputs' belongs to Split-18; SplitToSequence takes a scalar 'split' input for equal chunks",
};

export function resolveSplitToSequence(n: NodeFields): ReadNode {
  const version = pickVersion('SplitToSequence', n.opset, VERSIONS);
  const who = `SplitToSequence-${version}`;
  checkAttributes(n, who, ['axis', 'keepdims'], WHY);
  const [data, split] = inputsOf(n, who, ['input', 'split'], 1) as [TensorView, TensorView?];
  checkData(data, 'SplitToSequence', version, T);
  // The node declares one output, the sequence; a count equal to the sequence's length is read as
  // the number of tensors in it, which is what a caller comparing outputs usually means.
  const declared = declaredOutputs(n, who, 0);
  const axis = intAttribute(n, 'axis', who);
  const keepdims = intAttribute(n, 'keepdims', who) ?? 1;
  check(
    keepdims === 0 || keepdims === 1,
    'BAD_ATTRIBUTE',
    () => `${who}: attribute 'keepdims' must be 0 or 1, got ${keepdims}`,
    'attribute:keepdims',
  );
  const sizesFrom = split ? 'input:split' : 'input:input.shape';
  const sizes = (dim: number, ax: number) => {
    // keepdims is ignored whenever 'split' is given, as the spec says.
    const s = split ? splitSizes(split, dim, ax, who) : chunks(dim, 1, who, sizesFrom);
    if (declared !== undefined && declared !== 1)
      checkOutputCount(declared, s.length, who, 'the sequence (declared as 1 output, or as its length)');
    return s;
  };
  const plan = () => {
    const p = planSplit(data.dtype, data.shape, axis, sizes, who, { axis: 'attribute:axis', sizes: sizesFrom });
    const outputShapes =
      !split && keepdims === 0 ? p.outputShapes.map((sh) => sh.filter((_, i) => i !== p.axis)) : p.outputShapes;
    return { label: who, plan: p, outputShapes };
  };
  return { label: who, data, read: [axis, keepdims, split, declared], plan };
}

/** The sizes a 'split' input gives: chunks of a scalar (a chunk length), or a 1-D tensor's values (one per chunk). */
function splitSizes(t: TensorView, dim: number, ax: number, who: string): number[] {
  const rule = 'a scalar (chunk length) or a 1-D tensor (one length per chunk)';
  const { values, rank } = readParam(t, who, 'split', I, [0, 1], rule, 'BAD_SIZE');
  if (rank === 1) {
    check(
      values.length > 0 || dim === 0,
      'SIZE_SUM',
      () => `${who}: 'split' is empty (sums to 0) but dimension ${ax} of the input has length ${dim}`,
      'input:split',
    );
    return values;
  }
  check(
    values[0]! >= 1,
    'BAD_SIZE',
    () => `${who}: a scalar 'split' is a chunk length and must be >= 1, got ${values[0]}`,
    'input:split',
  );
  return chunks(dim, values[0]!, who, 'input:split');
}

/** Chunks of k with a smaller last one (7 by 3 = [3, 3, 1]), at most MAX_OUTPUTS of them. */
function chunks(dim: number, k: number, who: string, subject: SubjectKey): number[] {
  const count = Math.ceil(dim / k);
  check(
    count <= MAX_OUTPUTS,
    'TOO_LARGE',
    () =>
      `${who}: chunks of ${k} cut the axis of length ${dim} into ${count} tensors; ` +
      `a split makes at most ${MAX_OUTPUTS}`,
    subject,
  );
  return Array.from({ length: count }, (_, i) => Math.min(k, dim - i * k));
}
