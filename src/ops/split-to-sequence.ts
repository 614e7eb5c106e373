// ONNX SplitToSequence, versions 11 and 24: chunks of 1 (no 'split'; keepdims=0 then drops the
// axis), chunks of a scalar 'split' with a smaller last one, or the lengths of a 1-D 'split'.
// The sequence's tensors are the engine's outputs, in order; a zero-length axis without a 1-D
// 'split' makes an empty sequence.

import { check } from '../errors.js';
import { normalizeAxis, planSplit } from '../planner.js';
import type { ResolvedNode, SplitNode } from './types.js';
import { checkAttributes, checkOutputCount, declaredOutputs, inputSlots, intAttribute, pickVersion } from './node-rules.js';
import {
  ALL_BUT_BFLOAT16, ALL_DTYPES, type TypeParam, checkDType, checkRank, dataInput, hostParam, laterVersion, readIntegers,
} from './inputs.js';

const VERSIONS = [11, 24] as const;
type Version = (typeof VERSIONS)[number];

const T: Readonly<Record<Version, TypeParam>> = {
  11: { name: 'type T', dtypes: ALL_BUT_BFLOAT16 },
  24: { name: 'type T', dtypes: ALL_DTYPES },
};
const I: TypeParam = { name: 'type I', dtypes: ['int32', 'int64'] };

export function resolveSplitToSequence(node: SplitNode): ResolvedNode {
  const version = pickVersion('SplitToSequence', node.opset, VERSIONS) as Version;
  const who = `SplitToSequence-${version}`;
  const attrs = checkAttributes(node, who, ['axis', 'keepdims'], {
    split: "the lengths go in the optional 'split' input (int32 or int64), not in an attribute",
    num_outputs: "'num_outputs' belongs to Split-18; SplitToSequence takes a scalar 'split' input for equal chunks",
  });
  const [x, splitInput] = inputSlots(node, who, ['input', 'split'], 1);
  const data = dataInput(x!, who, 'input', T[version], (d) => laterVersion('SplitToSequence', d, version, T));
  // The node declares one output, the sequence; a count equal to the sequence's length is read as
  // the number of tensors in it, which is what a caller comparing outputs usually means.
  const declared = declaredOutputs(node, who, 0);
  const axis = intAttribute(attrs, 'axis', who) ?? 0;
  const keepdims = intAttribute(attrs, 'keepdims', who) ?? 1;
  check(keepdims === 0 || keepdims === 1, 'BAD_ATTRIBUTE', () => `${who}: attribute 'keepdims' must be 0 or 1, got ${keepdims}`);
  const ax = normalizeAxis(axis, data.shape.length, who);
  const dim = data.shape[ax]!;

  let sizes: number[];
  let dropAxis = false;
  if (splitInput === undefined) {
    sizes = new Array<number>(dim).fill(1);
    dropAxis = keepdims === 0;
  } else {
    // keepdims is ignored whenever 'split' is given, as the spec says.
    const s = hostParam(splitInput, who, 'split');
    checkDType(s.dtype, I, who, 'split');
    checkRank(s, who, 'split', [0, 1], 'a scalar (chunk length) or a 1-D tensor (one length per chunk)');
    const values = readIntegers(s, who, 'split', 'BAD_SIZE');
    if (s.shape.length === 0) {
      const k = values[0]!;
      check(k >= 1, 'BAD_SIZE', () => `${who}: a scalar 'split' is a chunk length and must be >= 1, got ${k}`);
      sizes = chunks(dim, k);
    } else {
      check(values.length > 0 || dim === 0, 'SIZE_SUM',
        () => `${who}: 'split' is empty (sums to 0) but dimension ${ax} of the input has length ${dim}`);
      sizes = values;
    }
  }
  if (declared !== undefined && declared !== 1) {
    checkOutputCount(declared, sizes.length, who, 'the sequence (declared as 1 output, or as its length)');
  }

  const plan = planSplit(data.dtype, data.shape, axis, sizes, who);
  const outputShapes = dropAxis ? plan.outputShapes.map((sh) => sh.filter((_, i) => i !== ax)) : plan.outputShapes;
  return { label: who, plan, outputShapes };
}

/** Chunks of k with a smaller last one: 7 by 3 = [3, 3, 1]; a zero-length axis gives none. */
function chunks(dim: number, k: number): number[] {
  const out: number[] = [];
  for (let at = 0; at < dim; at += k) out.push(Math.min(k, dim - at));
  return out;
}
