// Tensor types and their validation. A HostTensor's `data` type follows its `dtype`, so a
// mismatched pair fails to compile; the same rules are checked again at run time for callers
// that come from plain JavaScript.

import { check } from './errors.js';
import {
  type DType, type FixedDType, type HostDataMap,
  elementBytes, hostArrayName, isDType, isHostDataOf, lanes,
} from './dtype.js';

/** A tensor in host memory. `HostTensor` alone is the union over every dtype. */
export type HostTensor<D extends DType = DType> = {
  [K in D]: { readonly dtype: K; readonly shape: readonly number[]; readonly data: HostDataMap[K] };
}[D];

/** A tensor in a GPU buffer: `byteLength` bytes at `byteOffset`, row-major, no padding between elements. */
export type GpuTensor<D extends FixedDType = FixedDType> = {
  [K in D]: {
    readonly dtype: K;
    readonly shape: readonly number[];
    readonly buffer: GPUBuffer;
    readonly byteOffset: number;
    readonly byteLength: number;
  };
}[D];

export type AnyTensor = HostTensor | GpuTensor;

export function isGpuTensor(t: AnyTensor): t is GpuTensor {
  return 'buffer' in t;
}

/** Element count of a shape, after checking every dimension is a non-negative safe integer. */
export function numel(shape: readonly number[], what = 'tensor'): number {
  check(Array.isArray(shape), 'BAD_SHAPE', () => `${what}: shape must be an array of dimensions, got ${String(shape)}`);
  let n = 1;
  for (const [i, d] of shape.entries()) {
    check(Number.isSafeInteger(d) && d >= 0, 'BAD_SHAPE',
      () => `${what}: dimension ${i} of shape [${shape.join(', ')}] must be a non-negative integer, got ${d}`);
    n *= d;
  }
  check(Number.isSafeInteger(n), 'TOO_LARGE', () => `${what}: shape [${shape.join(', ')}] has more elements than 2^53`);
  return n;
}

/** Checks dtype, shape, data class and data length of a tensor from the outside world. */
export function validateTensor(t: AnyTensor, what = 'input'): void {
  check(typeof t === 'object' && t !== null, 'BAD_INPUT', () => `${what}: expected a tensor object, got ${String(t)}`);
  check(isDType(t.dtype), 'BAD_DTYPE', () => `${what}: unknown dtype '${String(t.dtype)}'`);
  const n = numel(t.shape, what);
  if (isGpuTensor(t)) {
    check((t.dtype as string) !== 'string', 'WRONG_BACKEND', () => `${what}: string tensors cannot live on the GPU`);
    const want = n * elementBytes(t.dtype);
    check(t.byteLength === want, 'DATA_LENGTH',
      () => `${what}: shape [${t.shape.join(', ')}] of ${t.dtype} needs byteLength ${want}, got ${t.byteLength}`);
    check(Number.isSafeInteger(t.byteOffset) && t.byteOffset >= 0 && t.byteOffset + t.byteLength <= t.buffer.size,
      'DATA_LENGTH', () => `${what}: bytes [${t.byteOffset}, ${t.byteOffset + t.byteLength}) lie outside its ${t.buffer.size}-byte buffer`);
    check(t.buffer.size % 4 === 0, 'BAD_INPUT', () => `${what}: GPU buffer size must be a multiple of 4, got ${t.buffer.size}`);
    return;
  }
  check(isHostDataOf(t.dtype, t.data), 'DATA_TYPE',
    () => `${what}: dtype ${t.dtype} needs data as ${hostArrayName(t.dtype)}, got ${describe(t.data)}`);
  const want = n * lanes(t.dtype);
  check(t.data.length === want, 'DATA_LENGTH',
    () => `${what}: shape [${t.shape.join(', ')}] of ${t.dtype} needs ${want} data entries` +
      `${lanes(t.dtype) > 1 ? ' (interleaved re, im)' : ''}, got ${t.data.length}`);
}

function describe(x: unknown): string {
  if (Array.isArray(x)) return 'an Array';
  if (x === null || typeof x !== 'object') return String(x);
  return (x as object).constructor?.name ?? 'an object';
}
