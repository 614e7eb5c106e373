// Host data: the array each dtype travels in on the host (row-major), and bytes to and from those
// arrays. The widths and array names come from the one dtype table, dtype.ts.

import { type DType, type FixedDType, hostArrayName } from './dtype.js';

/**
 * The host array that carries each dtype's data: row-major, complex types interleaved (re, im), packed and 8-bit
 * float types as bytes. A Node `Buffer` counts as a `Uint8Array`.
 */
export interface HostDataMap {
  /** One 32-bit float per element. */
  float32: Float32Array;
  /** One 64-bit float per element. */
  float64: Float64Array;
  /** Raw IEEE binary16 bits, one per element ({@link halfToNumber} reads one). */
  float16: Uint16Array;
  /** Raw bfloat16 bits, one per element. */
  bfloat16: Uint16Array;
  /** One 8-bit integer per element. */
  int8: Int8Array;
  /** One byte per element. */
  uint8: Uint8Array;
  /** One 16-bit integer per element. */
  int16: Int16Array;
  /** One 16-bit unsigned integer per element. */
  uint16: Uint16Array;
  /** One 32-bit integer per element. */
  int32: Int32Array;
  /** One 32-bit unsigned integer per element. */
  uint32: Uint32Array;
  /** One 64-bit integer (a bigint) per element. */
  int64: BigInt64Array;
  /** One 64-bit unsigned integer (a bigint) per element. */
  uint64: BigUint64Array;
  /** One byte per element, moved unchanged: 0 or 1 by convention, any other byte passes through. */
  bool: Uint8Array;
  /** One JavaScript string per element; string tensors split on the CPU. */
  string: string[];
  /** Two 32-bit floats per element, re then im: length 2 * numel. */
  complex64: Float32Array;
  /** Two 64-bit floats per element, re then im: length 2 * numel. */
  complex128: Float64Array;
  /** One byte per element: the 8-bit float's bits. */
  float8e4m3fn: Uint8Array;
  /** One byte per element: the 8-bit float's bits. */
  float8e5m2: Uint8Array;
  /** One byte per element: the 8-bit float's bits. */
  float8e8m0: Uint8Array;
  /** Packed 4-bit values, two a byte, LSB-first: length ceil(numel / 2). */
  int4: Uint8Array;
  /** Packed 4-bit values, two a byte, LSB-first: length ceil(numel / 2). */
  uint4: Uint8Array;
  /** Packed 4-bit values, two a byte, LSB-first: length ceil(numel / 2). */
  nf4: Uint8Array;
  /** Packed 4-bit values, two a byte, LSB-first: length ceil(numel / 2). */
  float4e2m1: Uint8Array;
  /** Packed 1-bit values, eight a byte, MSB-first: length ceil(numel / 8). */
  uint1: Uint8Array;
  /** Packed 2-bit values, four a byte, LSB-first: length ceil(numel / 4). */
  uint2: Uint8Array;
  /** Packed 3-bit values as one LSB-first bit stream: length ceil(numel * 3 / 8). */
  uint3: Uint8Array;
  /** Packed 6-bit values as one LSB-first bit stream: length ceil(numel * 6 / 8). */
  uint6: Uint8Array;
}

/** The typed arrays that carry host data: every dtype's but `string`'s. */
export type TypedArray = Exclude<HostDataMap[DType], string[]>;

type TypedArrayClass = { new (b: ArrayBuffer, o: number, l: number): TypedArray; readonly BYTES_PER_ELEMENT: number };

const CONSTRUCTORS: Readonly<Record<string, TypedArrayClass>> = {
  Float32Array,
  Float64Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Int16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
};

/**
 * Bytes as a dtype's host array, such as bytes read back from a GPU buffer.
 *
 * @param d - The dtype (not `string`).
 * @param bytes - The elements' bytes, in the dtype's GPU layout (little-endian; packed types as bytes).
 * @param copy - `false`: a view of `bytes` when they start at byte 0 of their buffer (else a copy).
 * @returns A copy of the bytes, or a view of them, as the dtype's array.
 * @example
 * ```ts
 * import { hostDataFromBytes } from 'cleave-gpu';
 *
 * console.log(hostDataFromBytes('int16', new Uint8Array([1, 0, 255, 255]))); // Int16Array(2) [ 1, -1 ]
 * ```
 */
export function hostDataFromBytes<D extends FixedDType>(d: D, bytes: Uint8Array, copy = true): HostDataMap[D] {
  const ctor = CONSTRUCTORS[hostArrayName(d)]!;
  const owned = copy || bytes.byteOffset !== 0 ? bytes.slice() : bytes;
  return new ctor(
    owned.buffer as ArrayBuffer,
    owned.byteOffset,
    owned.byteLength / ctor.BYTES_PER_ELEMENT,
  ) as HostDataMap[D];
}

/**
 * The bytes of a host typed array, without copying.
 *
 * @param data - Any dtype's host data but `string`'s.
 * @returns A `Uint8Array` view of the same memory.
 */
export function bytesOf(data: TypedArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
