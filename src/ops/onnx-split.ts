// ONNX Split, versions 1, 2, 11, 13 and 18: where each version takes the split lengths from
// (attribute, input, num_outputs, or equal parts by the declared output count) and which dtypes it
// accepts. The planner does the rest.

import { check } from '../errors.js';
import { type SplitPlan, equalParts, normalizeAxis, planSplit } from '../planner.js';
import type { ResolvedNode, SplitNode } from './types.js';
import {
  checkAttributes, checkOutputCount, declaredOutputs, inputSlots, intAttribute, intsAttribute, pickVersion,
} from './node-rules.js';
import {
  ALL_BUT_BFLOAT16, ALL_DTYPES, type TypeParam, checkDType, checkRank, dataInput, hostParam, laterVersion, readIntegers,
} from './inputs.js';

const VERSIONS = [1, 2, 11, 13, 18] as const;
type Version = (typeof VERSIONS)[number];

const T: Readonly<Record<Version, TypeParam>> = {
  1: { name: 'type T', dtypes: ['float16', 'float32', 'float64'] },
  2: { name: 'type T', dtypes: ALL_BUT_BFLOAT16 },
  11: { name: 'type T', dtypes: ALL_BUT_BFLOAT16 },
  13: { name: 'type T', dtypes: ALL_DTYPES },
  18: { name: 'type T', dtypes: ALL_DTYPES },
};

const INT64: TypeParam = { name: 'tensor(int64)', dtypes: ['int64'] };
const SPLIT_IS_INPUT = "from opset 13 'split' is an optional int64 input, no longer an attribute";
const NUM_OUTPUTS_LATER = "'num_outputs' exists from Split-18 (opset 18)";
const KEEPDIMS = "'keepdims' belongs to SplitToSequence; Split always keeps the axis";

const ATTRIBUTES: Readonly<Record<Version, readonly string[]>> = {
  1: ['axis', 'split'], 2: ['axis', 'split'], 11: ['axis', 'split'], 13: ['axis'], 18: ['axis', 'num_outputs'],
};

export function resolveSplit(node: SplitNode): ResolvedNode {
  const version = pickVersion('Split', node.opset, VERSIONS) as Version;
  const who = `Split-${version}`;
  const attrs = checkAttributes(node, who, ATTRIBUTES[version],
    { split: SPLIT_IS_INPUT, num_outputs: NUM_OUTPUTS_LATER, keepdims: KEEPDIMS });
  const hasSplitInput = version === 1 || version >= 13;
  const [x, splitInput] = inputSlots(node, who, hasSplitInput ? ['input', 'split'] : ['input'], 1);
  const data = dataInput(x!, who, 'input', T[version], (d) => laterVersion('Split', d, version, T));
  const declared = declaredOutputs(node, who);
  const axis = intAttribute(attrs, 'axis', who) ?? 0;
  const ax = normalizeAxis(axis, data.shape.length, who);
  const dim = data.shape[ax]!;

  const splitAttr = intsAttribute(attrs, 'split', who);
  const explicit = (sizes: number[]): number[] => {
    check(sizes.length >= 1, 'BAD_SIZE', () => `${who}: 'split' is empty, but Split has at least one output`);
    checkOutputCount(declared, sizes.length, who, `'split' with ${sizes.length} length${sizes.length === 1 ? '' : 's'}`);
    return sizes;
  };
  let sizes: number[];
  if (version === 18) {
    const numOutputs = intAttribute(attrs, 'num_outputs', who);
    check((splitInput === undefined) !== (numOutputs === undefined), 'BAD_OPTIONS', () => splitInput === undefined
      ? `${who}: give exactly one of the 'split' input or the 'num_outputs' attribute; neither is given`
      : `${who}: give exactly one of the 'split' input or the 'num_outputs' attribute, not both`);
    if (numOutputs !== undefined) {
      check(numOutputs >= 1, 'BAD_ATTRIBUTE', () => `${who}: attribute 'num_outputs' must be >= 1, got ${numOutputs}`);
      checkOutputCount(declared, numOutputs, who, `'num_outputs' = ${numOutputs}`);
      // Uneven: chunks of ceil(dim / n) with a smaller (possibly empty) tail, as the ONNX reference.
      sizes = equalParts(dim, numOutputs, who);
    } else {
      sizes = explicit(splitFromInput(splitInput!, who, INT64));
    }
  } else if (splitInput !== undefined) {
    check(splitAttr === undefined, 'BAD_OPTIONS',
      () => `${who}: 'split' is given both as an attribute and as an input; give one`);
    // Split-1 types its 'split' input T, like the data; Split-13 makes it int64.
    sizes = explicit(splitFromInput(splitInput, who,
      version === 1 ? { name: `type T (the dtype of 'input', ${data.dtype})`, dtypes: [data.dtype] } : INT64));
  } else if (splitAttr !== undefined) {
    sizes = explicit(splitAttr);
  } else {
    sizes = equalSplit(dim, ax, declared, who);
  }

  const plan: SplitPlan = planSplit(data.dtype, data.shape, axis, sizes, who);
  return { label: who, plan, outputShapes: plan.outputShapes };
}

/** The 'split' input: a 1-D host tensor of the given type, every value an integer. */
function splitFromInput(t: NonNullable<SplitNode['inputs'][number]>, who: string, type: TypeParam): number[] {
  const s = hostParam(t, who, 'split');
  checkDType(s.dtype, type, who, 'split');
  checkRank(s, who, 'split', [1], 'a 1-D tensor with one length per output');
  return readIntegers(s, who, 'split', 'BAD_SIZE');
}

/** Without 'split' (before opset 18), the declared outputs are equal parts that must divide the axis. */
function equalSplit(dim: number, ax: number, declared: number | undefined, who: string): number[] {
  check(declared !== undefined, 'OUTPUT_COUNT',
    () => `${who}: without 'split' the axis is cut into one equal part per declared output, but the node declares no output count`);
  check(dim % declared === 0, 'NOT_DIVISIBLE',
    () => `${who}: without 'split', dimension ${ax} of length ${dim} must cut into ${declared} equal parts, but ${declared} does not divide ${dim}`);
  return new Array<number>(declared).fill(dim / declared);
}
