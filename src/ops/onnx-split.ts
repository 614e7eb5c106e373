// ONNX Split, versions 1, 2, 11, 13 and 18: where each version takes the split lengths from
// (attribute, input, num_outputs, or equal parts by the declared output count) and which dtypes it
// accepts. The planner does the rest.

import { check, show } from '../errors.js';
import { readCount, readSizes } from '../read/options.js';
import { equalParts, planSplit } from '../planner/split.js';
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
import { ONE_PER_OUTPUT, ONNX_BUT_BFLOAT16, type TypeParam, type TypeT, checkData, readParam } from './inputs.js';
import { ONNX_DTYPES } from '../dtype.js';

const VERSIONS = [1, 2, 11, 13, 18] as const;
type Version = (typeof VERSIONS)[number];

const T: TypeT = {
  1: ['float16', 'float32', 'float64'],
  2: ONNX_BUT_BFLOAT16,
  11: ONNX_BUT_BFLOAT16,
  13: ONNX_DTYPES,
  18: ONNX_DTYPES,
};
const INT64: TypeParam = { name: 'tensor(int64)', dtypes: ['int64'] };
const ATTRIBUTES: Readonly<Record<Version, readonly string[]>> = {
  1: ['axis', 'split'],
  2: ['axis', 'split'],
  11: ['axis', 'split'],
  13: ['axis'],
  18: ['axis', 'num_outputs'],
};
const BOTH = "'split' is given both as an attribute and as an input; give one";
const WHY = {
  split: "from opset 13 'split' is an optional int64 input, no longer an attribute",
  num_outputs: "'num_outputs' exists from Split-18 (opset 18)",
  keepdims: "'keepdims' belongs to SplitToSequence; Split always keeps the axis",
};

export function resolveSplit(n: NodeFields): ReadNode {
  const version = pickVersion('Split', n.opset, VERSIONS) as Version;
  const who = `Split-${version}`;
  checkAttributes(n, who, ATTRIBUTES[version], WHY);
  const names = version === 1 || version >= 13 ? ['input', 'split'] : ['input'];
  const [data, splitInput] = inputsOf(n, who, names, 1) as [TensorView, TensorView?];
  checkData(data, 'Split', version, T);
  const declared = declaredOutputs(n, who);
  const numOutputs = n.attrs.num_outputs;
  // Where the lengths come from, as an error names it (checkAttributes refused the attributes of other versions).
  const from = splitInput
    ? 'input:split'
    : n.attrs.split !== undefined
      ? 'attribute:split'
      : numOutputs !== undefined
        ? 'attribute:num_outputs'
        : 'node:outputs';
  const axis = intAttribute(n, 'axis', who);
  const splitAttr = readSplitAttribute(n, who);
  const type = version === 1 ? { name: `type T (the dtype of 'input', ${data.dtype})`, dtypes: [data.dtype] } : INT64;
  // The 'split' attribute or input, never both (Split-1 to -13), or exactly one of the input and 'num_outputs'
  // (Split-18); without any, the axis cut into one equal part per declared output.
  const sizes = (dim: number): unknown[] => {
    if (version === 18) checkOneOf(who, splitInput, numOutputs);
    else check(!(splitInput && splitAttr), 'BAD_OPTIONS', () => `${who}: ${BOTH}`, 'input:split');
    if (numOutputs !== undefined) {
      const count = readCount(numOutputs, who, 'attribute:num_outputs', 'BAD_ATTRIBUTE');
      checkOutputCount(declared, count, who, `'num_outputs' = ${count}`);
      // Uneven: chunks of ceil(dim / n) with a smaller (possibly empty) tail, as the ONNX reference.
      return equalParts(dim, count);
    }
    const given = splitInput
      ? readParam(splitInput, who, 'split', type, [1], ONE_PER_OUTPUT, 'BAD_SIZE').values
      : splitAttr;
    if (!given) return equalByDeclared(who, declared, dim);
    check(given.length > 0, 'BAD_SIZE', () => `${who}: 'split' is empty, but Split has at least one output`, from);
    const source = `'split' with ${given.length} length${given.length === 1 ? '' : 's'}`;
    checkOutputCount(declared, given.length, who, source);
    return given;
  };
  const plan = () => {
    const p = planSplit(data.dtype, data.shape, axis, sizes, who, { axis: 'attribute:axis', sizes: from });
    return { label: who, plan: p, outputShapes: p.outputShapes };
  };
  return { label: who, data, read: [axis, splitAttr, splitInput, numOutputs, declared], plan };
}

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

/** Split-18 takes its lengths from exactly one of the 'split' input and the 'num_outputs' attribute. */
function checkOneOf(who: string, splitInput: TensorView | undefined, numOutputs: unknown): void {
  check(
    (splitInput === undefined) !== (numOutputs === undefined),
    'BAD_OPTIONS',
    () =>
      `${who}: give exactly one of the 'split' input ` +
      `or the 'num_outputs' attribute, ${splitInput ? 'not both' : 'neither is given'}`,
    'attribute:num_outputs',
  );
}

/** Split-1 to Split-13 without 'split': the axis cut into one equal part per declared output. */
function equalByDeclared(who: string, declared: number | undefined, dim: number): number[] {
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
  return new Array<number>(declared).fill(dim / declared);
}
