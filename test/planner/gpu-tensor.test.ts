// `gpuTensor(dtype, buffer, shape, byteOffset, strides)` in plain Node, with a buffer that quacks
// like a GPUBuffer (Node has no WebGPU classes unless Cleave loaded Dawn): what it returns, and what
// it refuses, with the codes, messages and subjects of every other call's reading of a GPU tensor.
// That the result splits, and serves as an `into` destination, the compile-time tier checks
// (test/types/gpu-tensor.typecheck.ts); the GPU tier runs `into` itself.
import { expect, test } from 'vitest';
import { type FixedDType, SplitError, gpuTensor } from '../../src/index.js';

const buffer = { size: 64, mapAsync() {}, destroy() {} } as unknown as GPUBuffer;

test('a GPU tensor: the dtype, a copy of the shape, the buffer, its byteLength worked out; strides as given', () => {
  const shape = [2, 3];
  const x = gpuTensor('float32', buffer, shape);
  expect(x).toStrictEqual({ dtype: 'float32', shape: [2, 3], buffer, byteOffset: 0, byteLength: 24 });
  expect(x.shape).not.toBe(shape);
  expect(gpuTensor('uint4', buffer, [3], 4)).toStrictEqual({
    dtype: 'uint4',
    shape: [3],
    buffer,
    byteOffset: 4,
    byteLength: 2,
  });
  // A destination's strides reach past a row-major tensor's bytes: its footprint is checked with them.
  const column = gpuTensor('float32', buffer, [4, 1], 8, [3, 1]);
  expect(column).toStrictEqual({
    dtype: 'float32',
    shape: [4, 1],
    buffer,
    byteOffset: 8,
    byteLength: 16,
    strides: [3, 1],
  });
});

/** What `gpuTensor` throws for these arguments, as [code, message, subject part]. */
function refusal(
  dtype: string,
  b: unknown,
  shape: unknown,
  byteOffset?: number,
  strides?: number[],
): [string, string, string | undefined] {
  try {
    gpuTensor(dtype as FixedDType, b as GPUBuffer, shape as number[], byteOffset, strides);
  } catch (e) {
    if (!(e instanceof SplitError)) throw e;
    expect(e.subject).toMatchObject({ kind: 'input', name: 'gpuTensor' });
    return [e.code, e.message, e.subject?.part];
  }
  throw new Error(`gpuTensor(${dtype}, ...) was not refused`);
}

test('refused: unknown dtype, string, bad shape, not a buffer, outside it; codes, messages and subjects pinned', () => {
  expect(refusal('f32', buffer, [2])).toEqual([
    'BAD_DTYPE',
    "gpuTensor: unknown dtype 'f32' (did you mean 'float32'?); DTYPES, exported by cleave-gpu, lists every dtype",
    'dtype',
  ]);
  expect(refusal('string', buffer, [2])).toEqual([
    'WRONG_BACKEND',
    'gpuTensor: string tensors cannot live on the GPU',
    'dtype',
  ]);
  expect(refusal('int64', buffer, [2n, 3n])).toEqual([
    'BAD_SHAPE',
    'gpuTensor: dimension 0 of the shape must be a non-negative integer, got 2n',
    'shape',
  ]);
  expect(refusal('float32', new ArrayBuffer(64), [2])).toEqual([
    'BAD_INPUT',
    'gpuTensor: buffer must be a GPUBuffer, got a ArrayBuffer',
    'buffer',
  ]);
  expect(refusal('float32', buffer, [4, 4], 4)).toEqual([
    'DATA_LENGTH',
    'gpuTensor: it runs 4 bytes past the end of its 64-byte buffer (64 bytes from byteOffset 4)',
    'buffer',
  ]);
  expect(refusal('float32', buffer, [1], -4)).toEqual([
    'BAD_INPUT',
    'gpuTensor: byteOffset must be a non-negative integer, got -4',
    'buffer',
  ]);
});

test('with strides, a destination: a byteOffset of whole words, strides that keep elements apart, and the footprint they give', () => {
  // A KV-cache slot one past the last of a float16 cache [1, 12, 16, 64]: 24,576 bytes; the slot [1, 12, 1, 64]
  // spans 22,656 bytes from its first element.
  const cache = { size: 24_576, mapAsync() {}, destroy() {} } as unknown as GPUBuffer;
  const strides = [12 * 16 * 64, 16 * 64, 64, 1];
  expect(gpuTensor('float16', cache, [1, 12, 1, 64], 15 * 128, strides).byteLength).toBe(1536);
  expect(refusal('float16', cache, [1, 12, 1, 64], 16 * 128, strides)).toEqual([
    'DATA_LENGTH',
    'gpuTensor: it runs 128 bytes past the end of its 24576-byte buffer ' +
      '(22656 bytes from byteOffset 2048; dimension 1, 12 × stride 1024, reaches furthest)',
    'buffer',
  ]);
  expect(refusal('float16', cache, [1, 12, 1, 64], 2, strides)).toEqual([
    'BAD_INPUT',
    'gpuTensor: byteOffset must be a non-negative integer multiple of 4, got 2',
    'buffer',
  ]);
  expect(refusal('float32', buffer, [2, 2], 0, [1, 1])).toEqual([
    'BAD_SHAPE',
    'gpuTensor: strides [1, 1] make elements of shape [2, 2] overlap (dimension 1)',
    'shape',
  ]);
});
