// Host data: the array each dtype travels in on the host (row-major), float16's second one (a
// Float16Array, where the runtime has it), bytes to and from those arrays, and how to make the right
// one (the fix a refusal names). The widths and array names come from the one dtype table, dtype.ts.

import { type DType, type FixedDType, hostArrayName, hostArrayNames, isPacked } from './dtype.js';

/**
 * The host array that carries each dtype's data: row-major, complex types interleaved (re, im), packed and 8-bit
 * float types as bytes. A Node `Buffer` counts as a `Uint8Array`.
 */
export interface HostDataMap {
  /** One 32-bit float per element. */
  float32: Float32Array;
  /** One 64-bit float per element. */
  float64: Float64Array;
  /**
   * Raw IEEE binary16 bits, one per element ({@link numberToHalf} writes one, {@link halfToNumber} reads one). A
   * `Float16Array` of the values may stand in for it ({@link HostData}).
   */
  float16: Uint16Array;
  /** Raw bfloat16 bits, one per element ({@link numberToBfloat16} writes one, {@link bfloat16ToNumber} reads one). */
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

/**
 * A `Float16Array` (ES2025: current browsers, Deno, Node 24+), by what Cleave reads of it, so that Cleave's types
 * need no TypeScript lib that declares one. A real `Float16Array` is one; a `Uint16Array` is not.
 */
export interface Float16ArrayLike {
  /** 'Float16Array': what tells it from the other typed arrays. */
  readonly [Symbol.toStringTag]: 'Float16Array';
  /** 2. */
  readonly BYTES_PER_ELEMENT: number;
  /** The element count. */
  readonly length: number;
  /** The memory the elements lie in. */
  readonly buffer: ArrayBufferLike;
  /** Where the elements start in `buffer`. */
  readonly byteOffset: number;
  /** 2 * length. */
  readonly byteLength: number;
  /** Element i, as a number. */
  [index: number]: number;
  /** The elements, as numbers. */
  [Symbol.iterator](): IterableIterator<number>;
}

/**
 * The `Float16Array` type of the compiling program's lib (TypeScript 5.9+ with an `esnext` or `es2025` lib), else
 * {@link Float16ArrayLike}: what float16 outputs of a `Float16Array` input are typed as.
 */
export type Float16Data =
  typeof globalThis extends Record<'Float16Array', Record<'prototype', infer P>> ? P : Float16ArrayLike;

/**
 * Every array host data of dtype `D` may come in: the dtype's {@link HostDataMap} array, and for float16 also a
 * `Float16Array` ({@link Float16ArrayLike}), of numbers rather than bits.
 */
export type HostData<D extends DType> = HostDataMap[D] | (D extends 'float16' ? Float16ArrayLike : never);

/** The typed arrays that carry host data: every dtype's but `string`'s. */
export type TypedArray = Exclude<HostDataMap[DType], string[]>;

type TypedArrayClass = {
  new (b: ArrayBuffer, o: number, l: number): TypedArray | Float16ArrayLike;
  readonly BYTES_PER_ELEMENT: number;
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
  return arrayFromBytes(hostArrayName(d), bytes, copy) as HostDataMap[D];
}

/**
 * Bytes as a typed array of the class named `name` (one of `hostArrayNames`, and a class this runtime has): a copy,
 * or with `copy` false a view of `bytes` when they start at byte 0 of their buffer.
 */
export function arrayFromBytes(name: string, bytes: Uint8Array, copy: boolean): TypedArray | Float16ArrayLike {
  // Each host array class is the global of its name (Float16Array only where the runtime has one).
  const ctor = (globalThis as unknown as Record<string, TypedArrayClass>)[name]!;
  const data = copy || bytes.byteOffset !== 0 ? bytes.slice() : bytes;
  return new ctor(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength / ctor.BYTES_PER_ELEMENT);
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

/**
 * How to make a dtype's host array from the data that came instead (`got`, as a message names it): the fix a
 * DATA_TYPE message names.
 */
export function hostDataFix(dtype: DType, got: string): string {
  const name = hostArrayNames(dtype)[0]!;
  // A polyfill's Float16Array (Node 20 has none of its own) is no typed array, so Cleave cannot read its bytes:
  // say so, or the message reads "needs data as Uint16Array or Float16Array, got a Float16Array".
  if (dtype === 'float16' && got === 'a Float16Array')
    return ' that is not a native typed array (a polyfill?): halvesFrom(data) makes the bits of its numbers';
  if (dtype === 'float16') return ': halvesFrom(numbers) makes the bits (or pass a Float16Array of the numbers)';
  if (dtype === 'bfloat16') return ': bfloat16sFrom(numbers) makes the bits';
  if (/^(float8|complex)/.test(dtype) || isPacked(dtype))
    return `: the README's "Host data" paragraph says what ${dtype} data holds`;
  return `: convert it, e.g. ${name}.from(data${name.startsWith('Big') ? ', BigInt' : ''})`;
}
