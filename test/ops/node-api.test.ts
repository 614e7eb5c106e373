// The node API contract itself: what the types accept, node-level refusals that no single
// operator file owns, exact message shapes, inferShapes, and where outputs live.

import { describe, expect, test } from 'vitest';
import {
  type GpuTensor,
  type HostTensor,
  type SplitNode,
  SplitError,
  createSplitEngine,
  inferShapes,
} from '../../src/index.js';
import { resolveNode } from '../../src/ops/index.js';
import { halfToNumber } from '../../src/half.js';
import { gpuTest } from '../helpers/gpu.js';

const x2x6: HostTensor<'float32'> = {
  dtype: 'float32',
  shape: [2, 6],
  data: Float32Array.from({ length: 12 }, (_, i) => i),
};
const i64 = (v: number[], shape = [v.length]): HostTensor<'int64'> => ({
  dtype: 'int64',
  shape,
  data: BigInt64Array.from(v.map(BigInt)),
});

function refusal(node: unknown): SplitError {
  try {
    resolveNode(node as SplitNode);
  } catch (e) {
    if (e instanceof SplitError) return e;
    throw e;
  }
  throw new Error('expected a SplitError');
}

describe('types', () => {
  test('the node type refuses what the contract does not have', () => {
    const nodes: SplitNode[] = [
      { op: 'Split', opset: 18, inputs: [x2x6], attrs: { axis: 1, num_outputs: 2 } },
      { op: 'SplitToSequence', inputs: [x2x6, undefined], attrs: { keepdims: 0 } },
      { op: 'VariadicSplit', inputs: [x2x6, i64([1], []), i64([2, -1])], outputs: 2 },
      // @ts-expect-error: not an operator Cleave runs
      { op: 'Concat', inputs: [x2x6] },
      // @ts-expect-error: attributes carry numbers, as ONNX INT / INTS
      { op: 'Split', inputs: [x2x6], attrs: { axis: '1' } },
      // @ts-expect-error: 'split' is a list of lengths
      { op: 'Split', opset: 11, inputs: [x2x6], attrs: { split: 3 } },
      // @ts-expect-error: a host tensor's data class follows its dtype
      { op: 'Split', inputs: [{ dtype: 'int64', shape: [2], data: new Int32Array(2) }], outputs: 2 },
    ];
    expect(nodes.slice(0, 3).map((n) => inferShapes(n).length)).toEqual([2, 2, 2]);
    expect(refusal(nodes[3]).code).toBe('BAD_OPTIONS');
    expect(refusal(nodes[4]).code).toBe('BAD_ATTRIBUTE');
    expect(refusal(nodes[5]).code).toBe('BAD_ATTRIBUTE');
    expect(refusal(nodes[6]).code).toBe('DATA_TYPE');
  });

  gpuTest('outputs live where the data input lived, in the types too', async (g) => {
    const e = await g.engine();
    const gx = e.upload(x2x6);
    const onGpu: GpuTensor[] = await e.run({
      op: 'Split',
      opset: 18,
      inputs: [gx],
      attrs: { axis: 1, num_outputs: 3 },
    });
    expect(onGpu.every((t) => 'buffer' in t)).toBe(true);
    const onHost: HostTensor[] = await e.run({
      op: 'Split',
      opset: 18,
      inputs: [x2x6],
      attrs: { axis: 1, num_outputs: 3 },
    });
    expect(onHost.every((t) => 'data' in t)).toBe(true);
    // @ts-expect-error: host data in, host tensors out
    const wrong: GpuTensor[] = await e.run({ op: 'Split', opset: 18, inputs: [x2x6], attrs: { num_outputs: 2 } });
    expect('buffer' in wrong[0]!).toBe(false);
    // A GPU data input with a host parameter input: the parameter is read, the data never is.
    // (`as const` keeps the inputs a tuple, so the output type follows input 0 alone.)
    const viaSplit = await e.run({ op: 'Split', opset: 13, inputs: [gx, i64([1, 5])] as const, attrs: { axis: 1 } });
    expect((await e.download(viaSplit[1]!)).data).toEqual(Float32Array.from([1, 2, 3, 4, 5, 7, 8, 9, 10, 11]));
    for (const t of [...onGpu, ...viaSplit, gx]) e.release(t);
  });
});

describe('node-level refusals', () => {
  test.each([
    ['a node that is not an object', null, 'BAD_OPTIONS', 'must be an object'],
    ['an unknown op', { op: 'Slice', inputs: [x2x6] }, 'BAD_OPTIONS', "unknown op 'Slice'"],
    ['inputs that are not an array', { op: 'Split', opset: 18, inputs: x2x6 }, 'BAD_INPUT', 'inputs must be an array'],
    [
      'attrs that are an array',
      { op: 'Split', opset: 18, inputs: [x2x6], attrs: [1] },
      'BAD_ATTRIBUTE',
      'attrs must be a plain object',
    ],
    ['an opset that is not a number', { op: 'Split', opset: '18', inputs: [x2x6] }, 'BAD_OPSET', "got '18'"],
    ['a fractional opset', { op: 'SplitToSequence', opset: 11.5, inputs: [x2x6] }, 'BAD_OPSET', 'integer >= 1'],
    [
      'a fractional declared output count',
      { op: 'Split', opset: 18, inputs: [x2x6], attrs: { num_outputs: 2 }, outputs: 1.5 },
      'OUTPUT_COUNT',
      'got 1.5',
    ],
    [
      'an unknown dtype',
      { op: 'Split', opset: 18, inputs: [{ dtype: 'float8', shape: [1], data: [] }] },
      'BAD_DTYPE',
      "unknown dtype 'float8'",
    ],
  ])('%s', (_name, node, code, part) => {
    const e = refusal(node);
    expect(e.code).toBe(code);
    expect(e.message).toContain(part);
  });

  test('VariadicSplit ignores the opset, however odd', () => {
    const node = { op: 'VariadicSplit', opset: -3, inputs: [x2x6, i64([0], []), i64([1, 1])] } as unknown as SplitNode;
    expect(inferShapes(node)).toEqual([
      { dtype: 'float32', shape: [1, 6] },
      { dtype: 'float32', shape: [1, 6] },
    ]);
  });
});

describe('messages', () => {
  test('name the operator, version, rule and values', () => {
    const sum = refusal({ op: 'Split', opset: 18, inputs: [x2x6, i64([3, 4])], attrs: { axis: 1 } });
    expect(sum.message).toBe('Split-18: split lengths [3, 4] sum to 7 but dimension 1 of the input has length 6');
    const dtype = refusal({
      op: 'Split',
      opset: 11,
      inputs: [{ dtype: 'bfloat16', shape: [2], data: new Uint16Array(2) }],
      outputs: 2,
    });
    expect(dtype.message).toBe(
      "Split-11: input 'input' has dtype bfloat16, which type T does not allow (allowed: float32, float64, " +
        'float16, int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool, string, complex64, complex128); ' +
        'bfloat16 is allowed from Split-13 (opset 13)',
    );
    const gpuParam = refusal({
      op: 'Split',
      opset: 13,
      inputs: [x2x6, { dtype: 'int64', shape: [2], buffer: {}, byteOffset: 0, byteLength: 16 }],
      attrs: { axis: 1 },
    });
    expect(gpuParam.code).toBe('BAD_INPUT');
    expect(gpuParam.message).toBe(
      "Split-13: input 'split' is a GPU tensor, but Cleave plans on the CPU: pass it as a HostTensor",
    );
    expect(gpuParam.subject).toEqual({ kind: 'input', name: 'split' });
  });
});

describe('inferShapes', () => {
  test('matches the run, keepdims=0 included, with no engine at all', async () => {
    const nodes: SplitNode[] = [
      { op: 'SplitToSequence', opset: 11, inputs: [x2x6], attrs: { axis: -1, keepdims: 0 } },
      { op: 'SplitToSequence', opset: 24, inputs: [x2x6, i64([4], [])], attrs: { axis: 1, keepdims: 0 } },
      { op: 'Split', opset: 1, inputs: [x2x6, { dtype: 'float32', shape: [2], data: Float32Array.from([1, 1]) }] },
      { op: 'VariadicSplit', inputs: [x2x6, { dtype: 'uint8', shape: [1], data: Uint8Array.from([1]) }, i64([-1, 0])] },
    ];
    const cpu = await createSplitEngine({ backend: 'cpu' });
    for (const node of nodes) {
      const outs = await cpu.run(node);
      expect(inferShapes(node)).toEqual(outs.map((o) => ({ dtype: o.dtype, shape: o.shape })));
    }
    expect(inferShapes(nodes[0]!).map((s) => s.shape)).toEqual(new Array(6).fill([2]));
    expect(inferShapes(nodes[1]!).map((s) => s.shape)).toEqual([
      [2, 4],
      [2, 2],
    ]);
  });
});

test('float16 split values decode exactly', () => {
  expect([0x0000, 0x8000, 0x3c00, 0x4000, 0x6400, 0x3800, 0x0001, 0x7c00, 0xfc00].map(halfToNumber)).toEqual([
    0,
    -0,
    1,
    2,
    1024,
    0.5,
    2 ** -24,
    Infinity,
    -Infinity,
  ]);
  expect(Number.isNaN(halfToNumber(0x7e00))).toBe(true);
});
