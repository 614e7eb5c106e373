// ONNX Split, versions 1, 2, 11, 13 and 18: where each version takes the split lengths from
// (attribute, input, num_outputs, or equal parts by the declared output count) and which dtypes it
// accepts. The planner does the rest.

import { check } from '../errors.js';
import { readCount } from '../options.js';
import { type PlanSubjects, equalParts, normalizeAxis, planSplit } from '../planner/split.js';
import type { HostView, TensorView } from '../tensor.js';
import type { ResolvedRun } from './types.js';
import {
  type NodeFields, checkAttributes, checkOutputCount, declaredOutputs, inputSlots, intAttribute, intsAttribute, pickVersion,
} from './node-rules.js';
import {
  ONNX_ALL, ONNX_BUT_BFLOAT16, type TypeParam, checkDType, checkRank, dataInput, hostParam, laterVersion, readIntegers,
} from './inputs.js';

const VERSIONS = [1, 2, 11, 13, 18] as const;
type Version = (typeof VERSIONS)[number];

const T: Readonly<Record<Version, TypeParam>> = {
  1: { name: 'type T', dtypes: ['float16', 'float32', 'float64'] },
  2: { name: 'type T', dtypes: ONNX_BUT_BFLOAT16 },
  11: { name: 'type T', dtypes: ONNX_BUT_BFLOAT16 },
  13: { name: 'type T', dtypes: ONNX_ALL },
  18: { name: 'type T', dtypes: ONNX_ALL },
};

const INT64: TypeParam = { name: 'tensor(int64)', dtypes: ['int64'] };
const SPLIT_IS_INPUT = "from opset 13 'split' is an optional int64 input, no longer an attribute";
const NUM_OUTPUTS_LATER = "'num_outputs' exists from Split-18 (opset 18)";
const KEEPDIMS = "'keepdims' belongs to SplitToSequence; Split always keeps the axis";

const ATTRIBUTES: Readonly<Record<Version, readonly string[]>> = {
  1: ['axis', 'split'], 2: ['axis', 'split'], 11: ['axis', 'split'], 13: ['axis'], 18: ['axis', 'num_outputs'],
};

const AXIS = { kind: 'attribute', name: 'axis' } as const;

export function resolveSplit(n: NodeFields): ResolvedRun {
  const version = pickVersion('Split', n.opset, VERSIONS) as Version;
  const who = `Split-${version}`;
  checkAttributes(n, who, ATTRIBUTES[version], { split: SPLIT_IS_INPUT, num_outputs: NUM_OUTPUTS_LATER, keepdims: KEEPDIMS });
  const hasSplitInput = version === 1 || version >= 13;
  const [x, splitInput] = inputSlots(n, who, hasSplitInput ? ['input', 'split'] : ['input'], 1);
  const data = dataInput(x!, who, 'input', T[version], (d) => laterVersion('Split', d, version, T));
  const declared = declaredOutputs(n, who);
  const axis = intAttribute(n, 'axis', who) ?? 0;
  const dim = data.shape[normalizeAxis(axis, data.shape.length, who, AXIS)]!;
  const { sizes, subject } = splitLengths(n, version, who, data, splitInput, declared, dim);
  const subjects: PlanSubjects = { axis: AXIS, sizes: subject };
  const plan = planSplit(data.dtype, data.shape, axis, sizes, who, subjects);
  return { label: who, plan, outputShapes: plan.outputShapes, data };
}

type Lengths = { sizes: number[]; subject: PlanSubjects['sizes'] };

/** Where this version takes its lengths from, checked against the declared output count. */
function splitLengths(n: NodeFields, version: Version, who: string, data: TensorView, splitInput: TensorView | undefined,
  declared: number | undefined, dim: number): Lengths {
  const explicit = (sizes: number[], subject: PlanSubjects['sizes']): Lengths => {
    check(sizes.length >= 1, 'BAD_SIZE', () => `${who}: 'split' is empty, but Split has at least one output`, subject);
    checkOutputCount(declared, sizes.length, who, `'split' with ${sizes.length} length${sizes.length === 1 ? '' : 's'}`);
    return { sizes, subject };
  };
  const fromInput = { kind: 'input', name: 'split' } as const;
  if (version === 18) {
    const numOutputs = n.attrs.num_outputs;
    check((splitInput === undefined) !== (numOutputs === undefined), 'BAD_OPTIONS', () => splitInput === undefined
      ? `${who}: give exactly one of the 'split' input or the 'num_outputs' attribute; neither is given`
      : `${who}: give exactly one of the 'split' input or the 'num_outputs' attribute, not both`, { kind: 'attribute', name: 'num_outputs' });
    if (splitInput) return explicit(splitFromInput(splitInput, who, INT64), fromInput);
    const at = { kind: 'attribute', name: 'num_outputs' } as const;
    const count = readCount(numOutputs, who, at, 'BAD_ATTRIBUTE');
    checkOutputCount(declared, count, who, `'num_outputs' = ${count}`);
    // Uneven: chunks of ceil(dim / n) with a smaller (possibly empty) tail, as the ONNX reference.
    return { sizes: equalParts(dim, count), subject: at };
  }
  const splitAttr = intsAttribute(n, 'split', who);
  if (splitInput) {
    check(splitAttr === undefined, 'BAD_OPTIONS', () => `${who}: 'split' is given both as an attribute and as an input; give one`, fromInput);
    // Split-1 types its 'split' input T, like the data; Split-13 makes it int64.
    const type = version === 1 ? { name: `type T (the dtype of 'input', ${data.dtype})`, dtypes: [data.dtype] } : INT64;
    return explicit(splitFromInput(splitInput, who, type), fromInput);
  }
  if (splitAttr !== undefined) return explicit(splitAttr, { kind: 'attribute', name: 'split' });
  return { sizes: equalSplit(dim, declared, who), subject: { kind: 'node', name: 'outputs' } };
}

/** The 'split' input: a 1-D host tensor of the given type, every value an integer. */
function splitFromInput(t: TensorView, who: string, type: TypeParam): number[] {
  const s: HostView = hostParam(t);
  checkDType(s.dtype, type, who, 'split');
  checkRank(s, who, 'split', [1], 'a 1-D tensor with one length per output');
  return readIntegers(s, who, 'split', 'BAD_SIZE');
}

/** Without 'split' (before opset 18), the declared outputs are equal parts that must divide the axis. */
function equalSplit(dim: number, declared: number | undefined, who: string): number[] {
  const at = { kind: 'node', name: 'outputs' } as const;
  check(declared !== undefined, 'OUTPUT_COUNT',
    () => `${who}: without 'split' the axis is cut into one equal part per declared output, but the node declares no output count`, at);
  check(dim % declared === 0, 'NOT_DIVISIBLE',
    () => `${who}: without 'split', the axis of length ${dim} must cut into ${declared} equal parts, but ${declared} does not divide ${dim}`, at);
  return new Array<number>(declared).fill(dim / declared);
}
