// The one ONNX model builder (tests, bench): any graph from nodes, initializers, inputs, outputs and
// an opset, serialised with onnx-proto, plus helpers for the nodes Cleave's peers run (Split,
// SplitToSequence read back with SequenceAt, Cast) and the bench's two one-node models. Anything
// onnxruntime can run can be built here, e.g. MatMul -> Split -> Add for pipeline tests.
// Plain Node ESM with JSDoc types: the bench runs it with `node`, the tests import it from TypeScript.

import { createRequire } from 'node:module';

/** @type {typeof import('onnx-proto')} */
const { onnx } = createRequire(import.meta.url)('onnx-proto');

/** @typedef {import('onnx-proto').onnx.INodeProto} NodeProto */
/** @typedef {import('onnx-proto').onnx.ITensorProto} TensorProto */
/** @typedef {import('onnx-proto').onnx.IAttributeProto} AttributeProto */

/** TensorProto.DataType of each ONNX dtype, under Cleave's dtype names. */
export const ONNX_TYPE = Object.freeze({
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  complex64: 14,
  complex128: 15,
  bfloat16: 16,
});

/** @typedef {keyof typeof ONNX_TYPE} OnnxDType */

/**
 * @param {string} dtype
 * @returns {dtype is OnnxDType}
 */
export function isOnnxDType(dtype) {
  return Object.hasOwn(ONNX_TYPE, dtype);
}

/**
 * A graph input or output.
 * @typedef {object} ValueSpec
 * @property {string} name
 * @property {OnnxDType} dtype
 * @property {readonly number[]} [shape]  left out: rank and dims unknown to the model
 */

/**
 * @typedef {object} GraphSpec
 * @property {readonly NodeProto[]} nodes  in topological order
 * @property {readonly ValueSpec[]} inputs
 * @property {readonly ValueSpec[]} outputs
 * @property {readonly TensorProto[]} [initializers]
 * @property {number} opset  of the default domain
 * @property {string} [name]
 * @property {string} [producer]
 */

/**
 * The serialised ModelProto of a graph.
 * @param {GraphSpec} g
 * @returns {Uint8Array}
 */
export function buildModel(g) {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: g.producer ?? 'cleave',
    opsetImport: [{ domain: '', version: g.opset }],
    graph: {
      name: g.name ?? 'graph',
      node: [...g.nodes],
      initializer: [...(g.initializers ?? [])],
      input: g.inputs.map(valueInfo),
      output: g.outputs.map(valueInfo),
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** @param {ValueSpec} v */
function valueInfo(v) {
  const shape = v.shape ? { shape: { dim: v.shape.map((d) => ({ dimValue: d })) } } : {};
  return { name: v.name, type: { tensorType: { elemType: ONNX_TYPE[v.dtype], ...shape } } };
}

/**
 * An attribute value: an integer (INT), integers (INTS), a string (STRING), `{ float }` (FLOAT) or
 * a tensor (TENSOR).
 * @typedef {number | readonly number[] | string | { float: number } | TensorProto} AttrValue
 */

/**
 * @param {string} opType
 * @param {readonly string[]} inputs  '' for an optional input left out
 * @param {readonly string[]} outputs
 * @param {Readonly<Record<string, AttrValue | undefined>>} [attrs]  undefined values are left out
 * @returns {NodeProto}
 */
export function node(opType, inputs, outputs, attrs = {}) {
  const attribute = Object.entries(attrs).flatMap(([k, v]) => (v === undefined ? [] : [attr(k, v)]));
  return { opType, input: [...inputs], output: [...outputs], attribute };
}

/**
 * @param {string} name
 * @param {AttrValue} v
 * @returns {AttributeProto}
 */
function attr(name, v) {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof v === 'number') return { name, type: T.INT, i: v };
  if (typeof v === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: T.INTS, ints: [...v] };
  if ('float' in v) return { name, type: T.FLOAT, f: v.float };
  return { name, type: T.TENSOR, t: /** @type {TensorProto} */ (v) };
}

/**
 * A tensor (an initializer, or a Constant's value) from a typed array, stored as raw
 * little-endian bytes, which every ONNX dtype but string accepts.
 * @param {string} name
 * @param {OnnxDType} dtype
 * @param {readonly number[]} dims  [] for a scalar
 * @param {ArrayBufferView | readonly string[]} data
 * @returns {TensorProto}
 */
export function tensor(name, dtype, dims, data) {
  const base = { name, dataType: ONNX_TYPE[dtype], dims: [...dims] };
  if (Array.isArray(data)) return { ...base, stringData: data.map((s) => new TextEncoder().encode(s)) };
  const view = /** @type {ArrayBufferView} */ (data);
  return { ...base, rawData: new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice() };
}

/**
 * An int64 tensor of `values` (a vector, or with `dims` [] a scalar).
 * @param {string} name
 * @param {readonly number[]} values
 * @param {readonly number[]} [dims]
 */
export function int64(name, values, dims = [values.length]) {
  return tensor(
    name,
    'int64',
    dims,
    BigInt64Array.from(values, (v) => BigInt(v)),
  );
}

/**
 * Cast `x` to `to`.
 * @param {string} x
 * @param {string} y
 * @param {OnnxDType} to
 */
export function cast(x, y, to) {
  return node('Cast', [x], [y], { to: ONNX_TYPE[to] });
}

/**
 * SequenceAt reads of positions 0..count-1 of sequence `seq` into `out(i)`, each index a Constant
 * node (ONNX Runtime cannot hand a sequence output back to JavaScript).
 * @param {string} seq
 * @param {number} count
 * @param {(i: number) => string} [out]
 * @returns {NodeProto[]}
 */
export function sequenceAt(seq, count, out = (i) => `y${i}`) {
  return Array.from({ length: count }, (_, i) => [
    node('Constant', [], [`${seq}_at${i}`], { value: int64('', [i], []) }),
    node('SequenceAt', [seq, `${seq}_at${i}`], [out(i)]),
  ]).flat();
}

/** @param {readonly number[]} shape @param {number} axis @param {number} len */
const withAxis = (shape, axis, len) => shape.map((d, i) => (i === axis ? len : d));

/**
 * Split-18 of input `x` into outputs y0..y{n-1}, the lengths an int64 initializer.
 * @param {{ dtype: OnnxDType, shape: readonly number[], axis: number, sizes: readonly number[] }} c
 */
export function splitModel({ dtype, shape, axis, sizes }) {
  return buildModel({
    name: 'split',
    opset: 18,
    nodes: [
      node(
        'Split',
        ['x', 'split'],
        sizes.map((_, i) => `y${i}`),
        { axis },
      ),
    ],
    initializers: [int64('split', sizes)],
    inputs: [{ name: 'x', dtype, shape }],
    outputs: sizes.map((s, i) => ({ name: `y${i}`, dtype, shape: withAxis(shape, axis, s) })),
  });
}

/**
 * SplitToSequence-11 with the default split (chunks of 1, keepdims 1), every element read back.
 * @param {{ dtype: OnnxDType, shape: readonly number[], axis: number }} c
 */
export function splitToSequenceModel({ dtype, shape, axis }) {
  const n = shape[axis] ?? 0;
  return buildModel({
    name: 'split_to_sequence',
    opset: 11,
    nodes: [node('SplitToSequence', ['x'], ['s'], { axis }), ...sequenceAt('s', n)],
    inputs: [{ name: 'x', dtype, shape }],
    outputs: Array.from({ length: n }, (_, i) => ({ name: `y${i}`, dtype, shape: withAxis(shape, axis, 1) })),
  });
}
