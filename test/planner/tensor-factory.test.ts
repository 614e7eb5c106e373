// `tensor(dtype, data, shape)` in plain Node: what it returns, that every call takes it, and what it
// refuses, with the codes and messages of every other call's reading of a tensor (read/tensor.ts),
// pinned here. A Float16Array is tested where the runtime has one: the browser tier
// (test/browser/float16.test.ts); Node 20 has none.
import { expect, test } from 'vitest';
import { type DType, SplitError, createSplitEngine, halvesFrom, resolveNode, tensor } from '../../src/index.js';

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
  expect(refusal('float8', new Uint8Array(1), [1])).toEqual(['BAD_DTYPE', "tensor: unknown dtype 'float8'", 'dtype']);
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
