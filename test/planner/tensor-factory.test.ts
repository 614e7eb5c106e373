// `tensor(dtype, data, shape)` in plain Node: what it returns, that every call takes it, and what it
// refuses, with the codes and messages of every other call's reading of a tensor (read/tensor.ts),
// pinned here: an unknown dtype's suggestions and a polyfilled Float16Array included. A native
// Float16Array is tested where the runtime has one: the browser tier (test/browser/float16.test.ts);
// Node 20 has none.
import { expect, test } from 'vitest';
import {
  type DType,
  SplitError,
  createSplitEngine,
  halvesFrom,
  planSplit,
  resolveNode,
  tensor,
} from '../../src/index.js';

test('a host tensor: the dtype, a copy of the shape, the data itself; every call takes it', async () => {
  const data = new Float32Array([0, 1, 2, 10, 11, 12]);
  const shape = [2, 3];
  const x = tensor('float32', data, shape);
  expect(x).toEqual({ dtype: 'float32', shape: [2, 3], data });
  expect(x.data).toBe(data);
  expect(x.shape).not.toBe(shape);
  const engine = await createSplitEngine({ backend: 'cpu' });
  const outs = await engine.split(x, { axis: 1, sizes: [1, 2] });
  expect(outs.map((t) => [t.shape, [...t.data]])).toEqual([
    [
      [2, 1],
      [0, 10],
    ],
    [
      [2, 2],
      [1, 2, 11, 12],
    ],
  ]);
  const ran = await engine.run({ op: 'Split', opset: 18, inputs: [x], attrs: { axis: 0, num_outputs: 2 } });
  expect(ran.map((t) => [...t.data])).toEqual([
    [0, 1, 2],
    [10, 11, 12],
  ]);
  expect(
    resolveNode({
      op: 'Split',
      opset: 13,
      inputs: [x, tensor('int64', new BigInt64Array([2n, 1n]), [2])],
      attrs: { axis: 1 },
    }).plan.sizes,
  ).toEqual([2, 1]);
  const words = await engine.split(tensor('string', ['a', 'b', 'c'], [3]), { sizes: [2, 1] });
  expect(words.map((t) => t.data)).toEqual([['a', 'b'], ['c']]);
  const halves = await engine.split(tensor('float16', halvesFrom([1, -2]), [2]), { parts: 2 });
  expect(halves.map((t) => [t.data.constructor.name, [...t.data]])).toEqual([
    ['Uint16Array', [0x3c00]],
    ['Uint16Array', [0xc000]],
  ]);
  engine.destroy();
});

/** What `tensor` throws for these arguments, as [code, message, subject part]. */
function refusal(dtype: string, data: unknown, shape: unknown): [string, string, string | undefined] {
  try {
    tensor(dtype as DType, data as never, shape as number[]);
  } catch (e) {
    if (!(e instanceof SplitError)) throw e;
    expect(e.subject).toMatchObject({ kind: 'input', name: 'tensor' });
    return [e.code, e.message, e.subject?.part];
  }
  throw new Error(`tensor(${dtype}, ...) was not refused`);
}

test('refused: wrong array class, wrong length, unknown dtype, bad shape; codes, messages and subjects pinned', () => {
  expect(refusal('float32', new Int32Array(6), [2, 3])).toEqual([
    'DATA_TYPE',
    'tensor: dtype float32 needs data as Float32Array, got Int32Array: convert it, e.g. Float32Array.from(data)',
    'data',
  ]);
  expect(refusal('float32', [1, 2], [2])).toEqual([
    'DATA_TYPE',
    'tensor: dtype float32 needs data as Float32Array, got [1, 2]: convert it, e.g. Float32Array.from(data)',
    'data',
  ]);
  expect(refusal('float16', new Float32Array(2), [2])).toEqual([
    'DATA_TYPE',
    'tensor: dtype float16 needs data as Uint16Array or Float16Array, got Float32Array: ' +
      'halvesFrom(numbers) makes the bits (or pass a Float16Array of the numbers)',
    'data',
  ]);
  expect(refusal('bfloat16', new Int16Array(2), [2])).toEqual([
    'DATA_TYPE',
    'tensor: dtype bfloat16 needs data as Uint16Array, got Int16Array: bfloat16sFrom(numbers) makes the bits',
    'data',
  ]);
  expect(refusal('float32', new Float32Array(5), [2, 3])).toEqual([
    'DATA_LENGTH',
    'tensor: shape [2, 3] of float32 needs 6 data entries, got 5',
    'data',
  ]);
  expect(refusal('uint4', new Uint8Array(1), [3])).toEqual([
    'DATA_LENGTH',
    'tensor: shape [3] of uint4 needs 2 data entries, got 1',
    'data',
  ]);
  expect(refusal('float8', new Uint8Array(1), [1])).toEqual([
    'BAD_DTYPE',
    "tensor: unknown dtype 'float8' (did you mean 'float8e4m3fn', 'float8e5m2' or 'float8e8m0'?); " +
      'DTYPES, exported by cleave-gpu, lists every dtype',
    'dtype',
  ]);
  expect(refusal('float32', new Float32Array(1), [-1])).toEqual([
    'BAD_SHAPE',
    'tensor: dimension 0 of the shape must be a non-negative integer, got -1',
    'shape',
  ]);
  expect(refusal('string', ['a', 1], [2])).toEqual([
    'DATA_TYPE',
    'tensor: string data entry 1 is 1 (sparse arrays are refused)',
    'data',
  ]);
});

test('an unknown dtype names the dtypes it may mean: its case folded, an alias, every meaning of an ambiguous one', () => {
  const list = '; DTYPES, exported by cleave-gpu, lists every dtype';
  const hint = (d: string) => refusal(d, new Float32Array(1), [1])[1];
  const cases: [string, string][] = [
    ['Float32', " (did you mean 'float32'?)"],
    ['FLOAT16', " (did you mean 'float16'?)"],
    ['fp16', " (did you mean 'float16'?)"],
    ['f16', " (did you mean 'float16'?)"],
    ['half', " (did you mean 'float16'?)"],
    ['f32', " (did you mean 'float32'?)"],
    ['FP32', " (did you mean 'float32'?)"],
    ['f64', " (did you mean 'float64'?)"],
    ['double', " (did you mean 'float64'?)"],
    ['bf16', " (did you mean 'bfloat16'?)"],
    ['i32', " (did you mean 'int32'?)"],
    ['I64', " (did you mean 'int64'?)"],
    ['u8', " (did you mean 'uint8'?)"],
    ['u1', " (did you mean 'uint1'?)"],
    ['boolean', " (did you mean 'bool'?)"],
    ['str', " (did you mean 'string'?)"],
    ['f8e4m3', " (did you mean 'float8e4m3fn'?)"],
    ['f8e5m2', " (did you mean 'float8e5m2'?)"],
    ['f4e2m1', " (did you mean 'float4e2m1'?)"],
    ['int', " (did you mean 'int32' or 'int64'?)"],
    ['uint', " (did you mean 'uint32' or 'uint64'?)"],
    ['float', " (did you mean 'float32' or 'float64'?)"],
    ['FLOAT', " (did you mean 'float32' or 'float64'?)"],
    ['complex', " (did you mean 'complex64' or 'complex128'?)"],
    ['qint8', ''],
    ['f', ''],
    ['constructor', ''],
    ['', ''],
  ];
  for (const [d, guess] of cases) expect(hint(d), d).toBe(`tensor: unknown dtype '${d}'${guess}${list}`);
  expect(refusal(undefined as never, new Float32Array(1), [1])[1]).toBe(`tensor: unknown dtype undefined${list}`);
  expect(() => planSplit('Int32' as DType, [4], 0, [4])).toThrow(
    new SplitError('BAD_DTYPE', `planSplit: unknown dtype 'Int32' (did you mean 'int32'?)${list}`, 'option:dtype'),
  );
});

test("a polyfill's Float16Array (no typed array) is refused, with halvesFrom as the fix", () => {
  // What @petamoriken/float16 gives on Node 20: a class of that name whose instances are no typed array.
  class Float16Array {
    readonly [i: number]: number;
    readonly length = 2;
    readonly 0 = 1;
    readonly 1 = -2;
  }
  const polyfilled = new Float16Array();
  expect(refusal('float16', polyfilled, [2])).toEqual([
    'DATA_TYPE',
    'tensor: dtype float16 needs data as Uint16Array or Float16Array, got a Float16Array that is not a native ' +
      'typed array (a polyfill?): halvesFrom(data) makes the bits of its numbers',
    'data',
  ]);
  expect([...tensor('float16', halvesFrom(polyfilled), [2]).data]).toEqual([0x3c00, 0xc000]);
});
