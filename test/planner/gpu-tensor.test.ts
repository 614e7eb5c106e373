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
  // A destination's strides may reach past a row-major tensor's bytes: only the row-major bytes are checked here.
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
function refusal(dtype: string, b: unknown, shape: unknown, byteOffset?: number): [string, string, string | undefined] {
  try {
    gpuTensor(dtype as FixedDType, b as GPUBuffer, shape as number[], byteOffset);
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
    'gpuTensor: 64 bytes at byteOffset 4 lie outside its 64-byte buffer',
    'buffer',
  ]);
  expect(refusal('float32', buffer, [1], -4)).toEqual([
    'DATA_LENGTH',
    'gpuTensor: 4 bytes at byteOffset -4 lie outside its 64-byte buffer',
    'buffer',
  ]);
});
