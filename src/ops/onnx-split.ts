// ONNX Split, versions 1, 2, 11, 13 and 18: where each version takes the split lengths from
// (attribute, input, num_outputs, or equal parts by the declared output count) and which dtypes it
// accepts. The planner does the rest.

import { check, show } from '../errors.js';
import { readCount, readSizes } from '../read/options.js';
import { type PlanSubjects, equalParts, planSplit } from '../planner/split.js';
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
import { ONNX_BUT_BFLOAT16, type TypeParam, checkDType, laterVersion, readParam } from './inputs.js';
import { ONNX_DTYPES } from '../dtype.js';

const VERSIONS = [1, 2, 11, 13, 18] as const;
type Version = (typeof VERSIONS)[number];

const T: Readonly<Record<Version, TypeParam>> = {
  1: { name: 'type T', dtypes: ['float16', 'float32', 'float64'] },
  2: { name: 'type T', dtypes: ONNX_BUT_BFLOAT16 },
  11: { name: 'type T', dtypes: ONNX_BUT_BFLOAT16 },
  13: { name: 'type T', dtypes: ONNX_DTYPES },
  18: { name: 'type T', dtypes: ONNX_DTYPES },
};
const INT64: TypeParam = { name: 'tensor(int64)', dtypes: ['int64'] };
const ATTRIBUTES: Readonly<Record<Version, readonly string[]>> = {
  1: ['axis', 'split'],
  2: ['axis', 'split'],
  11: ['axis', 'split'],
  13: ['axis'],
  18: ['axis', 'num_outputs'],
};
const WHY = {
  split: "from opset 13 'split' is an optional int64 input, no longer an attribute",
  num_outputs: "'num_outputs' exists from Split-18 (opset 18)",
  keepdims: "'keepdims' belongs to SplitToSequence; Split always keeps the axis",
};

export function resolveSplit(n: NodeFields): ReadNode {
  const version = pickVersion('Split', n.opset, VERSIONS) as Version;
  const who = `Split-${version}`;
  checkAttributes(n, who, ATTRIBUTES[version], WHY);
  const [data, splitInput] = inputsOf(n, who, version === 1 || version >= 13 ? ['input', 'split'] : ['input'], 1) as [
    TensorView,
    TensorView?,
  ];
  checkDType(data, T[version], who, 'input', () => laterVersion('Split', data.dtype, version, T));
  const declared = declaredOutputs(n, who);
  // Where the lengths come from, as an error names it (checkAttributes refused the attributes of other versions).
  const from = splitInput
    ? 'input:split'
    : n.attrs.split !== undefined
      ? 'attribute:split'
      : n.attrs.num_outputs !== undefined
        ? 'attribute:num_outputs'
        : 'node:outputs';
  const axis = intAttribute(n, 'axis', who);
  const splitAttr = readSplitAttribute(n, who);
  const sizes = (dim: number) => sizesOf(n, version, who, data, splitInput, splitAttr, declared, dim)[0];
  const plan = () => {
    const p = planSplit(data.dtype, data.shape, axis, sizes, who, { axis: 'attribute:axis', sizes: from });
    return { label: who, plan: p, outputShapes: p.outputShapes };
  };
  return { label: who, data, read: [axis, splitAttr, splitInput, n.attrs.num_outputs, declared], plan };
}

/** Sizes, and where they came from. */
type Sourced = [unknown[], PlanSubjects['sizes']];
type Explicit = (sizes: unknown[], subject: PlanSubjects['sizes']) => Sourced;

/** The 'split' attribute (Split-1 to -11), copied: a list of integers, or undefined. */
function readSplitAttribute(n: NodeFields, who: string): unknown[] | undefined {
  const splitAttr =
    n.attrs.split === undefined ? undefined : readSizes(n.attrs.split, who, 'attribute:split', 'BAD_ATTRIBUTE');
  check(
    !splitAttr?.some((v) => typeof v !== 'number'),
    'BAD_ATTRIBUTE',
    () => `${who}: attribute 'split' must be an array of integers (ONNX INTS), got ${show(splitAttr)}`,
    'attribute:split',
  );
  return splitAttr;
}

/** Where this version takes its sizes from, checked against the declared output count. */
function sizesOf(
  n: NodeFields,
  version: Version,
  who: string,
  data: TensorView,
  splitInput: TensorView | undefined,
  splitAttr: unknown[] | undefined,
  declared: number | undefined,
  dim: number,
): Sourced {
  const explicit: Explicit = (sizes, subject) => {
    check(sizes.length > 0, 'BAD_SIZE', () => `${who}: 'split' is empty, but Split has at least one output`, subject);
    checkOutputCount(
      declared,
      sizes.length,
      who,
      `'split' with ${sizes.length} length${sizes.length === 1 ? '' : 's'}`,
    );
    return [sizes, subject];
  };
  const type = version === 1 ? { name: `type T (the dtype of 'input', ${data.dtype})`, dtypes: [data.dtype] } : INT64;
  const fromInput = () =>
    explicit(
      readParam(splitInput!, who, 'split', type, [1], 'a 1-D tensor with one length per output', 'BAD_SIZE').values,
      'input:split',
    );
  if (version !== 18) return beforeNumOutputs(who, splitAttr, declared, dim, splitInput && fromInput, explicit);
  const numOutputs = n.attrs.num_outputs;
  check(
    (splitInput === undefined) !== (numOutputs === undefined),
    'BAD_OPTIONS',
    () =>
      `${who}: give exactly one of the 'split' input ` +
      `or the 'num_outputs' attribute, ${splitInput ? 'not both' : 'neither is given'}`,
    'attribute:num_outputs',
  );
  if (splitInput) return fromInput();
  const count = readCount(numOutputs, who, 'attribute:num_outputs', 'BAD_ATTRIBUTE');
  checkOutputCount(declared, count, who, `'num_outputs' = ${count}`);
  // Uneven: chunks of ceil(dim / n) with a smaller (possibly empty) tail, as the ONNX reference.
  return [equalParts(dim, count), 'attribute:num_outputs'];
}

/**
 * Split-1 to Split-13: the 'split' attribute or input (`fromInput`, when the node has one), never
 * both; without either, the axis cut into one equal part per declared output.
 */
function beforeNumOutputs(
  who: string,
  splitAttr: unknown[] | undefined,
  declared: number | undefined,
  dim: number,
  fromInput: (() => Sourced) | undefined,
  explicit: Explicit,
): Sourced {
  if (fromInput) {
    check(
      !splitAttr,
      'BAD_OPTIONS',
      () => `${who}: 'split' is given both as an attribute and as an input; give one`,
      'input:split',
    );
    return fromInput();
  }
  if (splitAttr) return explicit(splitAttr, 'attribute:split');
  check(
    declared !== undefined,
    'OUTPUT_COUNT',
    () =>
      `${who}: without 'split' the axis is cut into one equal part per declared output, ` +
      'but the node declares no output count',
    'node:outputs',
  );
  check(
    dim % declared === 0,
    'NOT_DIVISIBLE',
    () =>
      `${who}: without 'split', the axis of length ${dim} must cut into ` +
      `${declared} equal parts, but ${declared} does not divide ${dim}`,
    'node:outputs',
  );
  return [new Array<number>(declared).fill(dim / declared), 'node:outputs'];
}
