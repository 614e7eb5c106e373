// Builds the one-node ONNX models ONNX Runtime Web runs in the bench: Split (opset 18, split
// lengths as an int64 initializer) and SplitToSequence (opset 11, default split) followed by one
// SequenceAt per element, since ONNX Runtime cannot hand a sequence back to JavaScript.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

/** ONNX TensorProto.DataType of each dtype name the bench uses. */
export const ONNX_TYPE = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, float64: 11, uint32: 12, uint64: 13, complex64: 14, complex128: 15, bfloat16: 16,
};

function valueInfo(name, dtype, shape) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: ONNX_TYPE[dtype], shape: { dim: shape.map((d) => ({ dimValue: d })) } } },
  });
}

function int64Tensor(name, values, dims) {
  return onnx.TensorProto.create({ name, dataType: ONNX_TYPE.int64, dims, int64Data: values });
}

function model(graph, opset) {
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'cleave-bench',
    opsetImport: [{ domain: '', version: opset }],
    graph,
  })).finish();
}

/** Split-18 of input `x` into outputs y0..y{n-1}. */
export function splitModel({ dtype, shape, axis, sizes }) {
  const outShapes = sizes.map((s) => shape.map((d, i) => (i === axis ? s : d)));
  const graph = onnx.GraphProto.create({
    name: 'split',
    node: [onnx.NodeProto.create({
      opType: 'Split', name: 'split', input: ['x', 'split'], output: sizes.map((_, i) => `y${i}`),
      attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: axis }],
    })],
    initializer: [int64Tensor('split', sizes, [sizes.length])],
    input: [valueInfo('x', dtype, shape)],
    output: outShapes.map((s, i) => valueInfo(`y${i}`, dtype, s)),
  });
  return model(graph, 18);
}

/** SplitToSequence-11 with the default split (chunks of 1, keepdims=1), read with SequenceAt. */
export function splitToSequenceModel({ dtype, shape, axis }) {
  const n = shape[axis];
  const outShape = shape.map((d, i) => (i === axis ? 1 : d));
  const node = [onnx.NodeProto.create({
    opType: 'SplitToSequence', name: 'seq', input: ['x'], output: ['s'],
    attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: axis }],
  })];
  const initializer = [];
  for (let i = 0; i < n; i++) {
    initializer.push(int64Tensor(`i${i}`, [i], []));
    node.push(onnx.NodeProto.create({ opType: 'SequenceAt', name: `at${i}`, input: ['s', `i${i}`], output: [`y${i}`] }));
  }
  const graph = onnx.GraphProto.create({
    name: 'split_to_sequence', node, initializer,
    input: [valueInfo('x', dtype, shape)],
    output: Array.from({ length: n }, (_, i) => valueInfo(`y${i}`, dtype, outShape)),
  });
  return model(graph, 11);
}
