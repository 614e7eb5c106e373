// Reading the form into an engine node. The page only parses text (numbers, lists) and builds the
// tensors; every rule of the operators is the engine's to check. The node carries no undefined
// fields and no trailing omitted inputs, so the code view can print exactly what ran.

import type { DType, HostTensor, SplitNode } from '../src/index.js';
import type { Field, FormState, Version } from './presets.js';
import { isIntegerDType, sampleTensor, tensorOf } from './values.js';

/** An input the page itself cannot turn into a tensor (not a number, too large to draw). */
export class FieldError extends Error {
  constructor(
    readonly field: Field,
    message: string,
  ) {
    super(message);
  }
}

/** What one run needs: the node, and what the picture needs to know about it. */
export interface NodeRequest {
  readonly version: Version;
  readonly node: SplitNode;
  readonly input: HostTensor;
  /** The axis the node names (before normalisation), when the page could read one. */
  readonly axis: number | undefined;
}

/** The demo draws every element, so it keeps inputs to a size a page can hold. */
export const MAX_ELEMENTS = 1 << 22;

/** Reads the form into a node. Throws FieldError for text the page cannot parse. */
export function readRequest(s: FormState, v: Version): NodeRequest {
  const dtype = s.dtype as DType;
  const shape = numbers(s.shape, 'shape');
  const valid = shape.every((d) => Number.isSafeInteger(d) && d >= 0);
  const n = valid ? shape.reduce((a, b) => a * b, 1) : 0;
  if (n > MAX_ELEMENTS) {
    throw new FieldError(
      'shape',
      `the page draws every element, so it stops at ${MAX_ELEMENTS.toLocaleString('en')}; ` +
        `this shape has ${n.toLocaleString('en')}`,
    );
  }
  // An invalid shape still reaches the engine (with no data), so the engine's own rule names it.
  const input = sampleTensor(dtype, shape, n);
  const axis = s.axis === '' ? undefined : one(s.axis, 'axis');
  const node =
    v.op === 'VariadicSplit'
      ? variadicSplit(s, input, axis)
      : v.op === 'SplitToSequence'
        ? splitToSequence(s, v, input, axis)
        : split(s, v, input, axis);
  return { version: v, node, input, axis };
}

function variadicSplit(s: FormState, input: HostTensor, axis: number | undefined): SplitNode {
  const it = s.indexDtype as DType;
  const lengths = list(s, 'split');
  const axisT = axis === undefined ? undefined : indexTensor('axis', it, s.axisShape === 'scalar' ? [] : [1], [axis]);
  const splitT = lengths === undefined ? undefined : indexTensor('split', it, [lengths.length], lengths);
  return { op: 'VariadicSplit', inputs: trimmed([input, axisT, splitT]) };
}

function splitToSequence(s: FormState, v: Version, input: HostTensor, axis: number | undefined): SplitNode {
  const lengths = list(s, 'split');
  if (lengths && s.splitShape === 'scalar' && lengths.length !== 1) {
    throw new FieldError('split', `a scalar 'split' holds one value, got ${lengths.length}`);
  }
  const splitT =
    lengths === undefined
      ? undefined
      : indexTensor('split', s.indexDtype as DType, s.splitShape === 'scalar' ? [] : [lengths.length], lengths);
  return {
    op: 'SplitToSequence',
    opset: v.opset,
    inputs: trimmed([input, splitT]),
    attrs: defined({ axis, keepdims: count(s, 'keepdims') }),
  };
}

function split(s: FormState, v: Version, input: HostTensor, axis: number | undefined): SplitNode {
  const lengths = list(s, 'split');
  const dtype = input.dtype;
  // Split-1 types its split input like the data; Split-13 and -18 take int64.
  const splitT =
    lengths === undefined || !v.fields.includes('split')
      ? undefined
      : v.opset !== 1
        ? indexTensor('split', 'int64', [lengths.length], lengths)
        : isIntegerDType(dtype)
          ? indexTensor('split', dtype, [lengths.length], lengths)
          : tensorOf(dtype, [lengths.length], lengths);
  const attrs = defined({
    axis,
    split: v.fields.includes('splitAttr') ? list(s, 'splitAttr') : undefined,
    num_outputs: v.fields.includes('numOutputs') ? count(s, 'numOutputs') : undefined,
  });
  return defined({
    op: 'Split' as const,
    opset: v.opset,
    inputs: trimmed([input, splitT]),
    attrs,
    outputs: count(s, 'outputs'),
  });
}

function indexTensor(f: Field, dtype: DType, shape: number[], values: number[]): HostTensor {
  try {
    return tensorOf(dtype, shape, values);
  } catch (e) {
    throw new FieldError(f, `${(e as Error).message}: a ${dtype} tensor holds integers in range only`);
  }
}

/** The object without its undefined fields (an omitted attribute is absent, not undefined). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Positional inputs without the omitted ones at the end. */
function trimmed(inputs: (HostTensor | undefined)[]): (HostTensor | undefined)[] {
  let n = inputs.length;
  while (n > 0 && inputs[n - 1] === undefined) n--;
  return inputs.slice(0, n);
}

const list = (s: FormState, f: Field) => (s[f] === '' ? undefined : numbers(s[f], f));
const count = (s: FormState, f: Field) => (s[f] === '' ? undefined : one(s[f], f));

/** Numbers from "2, 8", "[2 8]" or "" (none). */
function numbers(text: string, field: Field): number[] {
  const parts = text
    .replace(/[[\]()]/g, ' ')
    .split(/[\s,]+/)
    .filter((p) => p !== '');
  return parts.map((p) => {
    const x = Number(p);
    if (Number.isNaN(x)) throw new FieldError(field, `'${p}' is not a number`);
    return x;
  });
}

function one(text: string, field: Field): number {
  const xs = numbers(text, field);
  if (xs.length !== 1) throw new FieldError(field, `expected one number, got '${text}'`);
  return xs[0]!;
}
