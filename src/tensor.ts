// The tensor types: a tensor in host memory, one in a GPU buffer as Cleave hands it out, and one in your GPU buffer as
// a call takes it (an input, or a place to write an output at: `Into`), public; and a destination as read/into.ts
// checks it (`Destination`). A HostTensor's `data` type follows its `dtype`, so a mismatched pair fails to compile;
// plain JavaScript callers get the same rules at run time (read/tensor.ts). The calls take their tensors through
// HostInput and GpuInput, which report a dtype widened to `string` as that, rather than as a mismatch with some one
// dtype.

import type { DType, FixedDType } from './dtype.js';
import type { Float16ArrayLike, Float16Data, HostData, HostDataMap } from './host-data.js';

/**
 * A tensor in host memory. `HostTensor` alone is the union over every dtype; `HostTensor<'float32'>` is one dtype's,
 * whose `data` must be a `Float32Array`. `A` is the data's array where a dtype takes two: `HostTensor<'float16'>` holds
 * a `Uint16Array` of bits, `HostTensor<'float16', Float16Data>` a `Float16Array`. {@link tensor} makes one.
 */
export type HostTensor<D extends DType = DType, A extends HostData<D> = HostDataMap[D]> = {
  [K in D]: HostTensorOf<K, Extract<A, HostData<K>>>;
}[D];

/**
 * One dtype's {@link HostTensor}, its data an `A` (with `D` a union, a tensor of any of them: what a widened dtype is
 * checked against).
 */
export interface HostTensorOf<D extends DType, A extends HostData<D> = HostDataMap[D]> {
  /** The element type, a literal. */
  readonly dtype: D;
  /** The dimensions; `[]` for a scalar. */
  readonly shape: readonly number[];
  /** The elements, row-major, in the dtype's host array ({@link HostData}). */
  readonly data: A;
}

/**
 * The host tensor a call takes, as the compiler reads its dtype `D` and data `A`: a {@link HostTensor} when `D` is one
 * of `Allowed` (with its {@link HostDataMap} array when `A` is not one the dtype takes). A dtype widened to `string`
 * (a tensor object written without {@link tensor} or `as const`) meets a type whose one fault to report is the
 * dtype: "Types of property 'dtype' are incompatible. Type 'string' is not assignable to type 'DType'".
 */
export type HostInput<D extends string, A, Allowed extends DType = DType> = D extends Allowed
  ? HostTensor<D, A extends HostData<D> ? A : HostDataMap[D]>
  : HostTensorOf<Allowed, HostData<Allowed>>;

/**
 * The host tensors a split of a host tensor of dtype `D` and data `A` gives: `Float16Array`s for `Float16Array`
 * data, else the dtype's {@link HostDataMap} arrays.
 */
export type HostOutput<D extends DType, A> = HostTensor<
  D,
  A extends Float16ArrayLike ? Extract<Float16Data, HostData<D>> : HostDataMap[D]
>;

/**
 * The GPU tensor a call takes, as the compiler reads its dtype `D`: an {@link Into} of `D` (a {@link GpuTensor}, or
 * one you describe with `byteOffset` and `byteLength` left out) when `D` is a dtype that lives on the GPU; a dtype
 * widened to `string` is reported as that, as for {@link HostInput}.
 */
export type GpuInput<D extends string> = D extends FixedDType ? Into<D> : Into<FixedDType>;

/**
 * A tensor in a GPU buffer: `byteLength` bytes at `byteOffset`, row-major, no padding between elements. Cleave's
 * outputs hold a lease on their buffer until released; a tensor you describe yourself stays yours.
 */
export type GpuTensor<D extends FixedDType = FixedDType> = { [K in D]: GpuTensorOf<K> }[D];

/**
 * One dtype's {@link GpuTensor} (with `D` a union, a tensor of any of them: what a widened dtype is checked against).
 */
export interface GpuTensorOf<D extends FixedDType> {
  /** The element type, a literal (not `string`). */
  readonly dtype: D;
  /** The dimensions; `[]` for a scalar. */
  readonly shape: readonly number[];
  /** The buffer, on the engine's device; an input's needs usage STORAGE | COPY_SRC. */
  readonly buffer: GPUBuffer;
  /** Where the tensor starts in `buffer`. */
  readonly byteOffset: number;
  /** The tensor's size in bytes: {@link byteLengthOf} of its dtype and element count. */
  readonly byteLength: number;
  /**
   * Element strides, on an output written at a strided destination (`into`) only: such a tensor
   * describes a view inside a larger one, and no call takes it as input.
   */
  readonly strides?: readonly number[];
}

export type AnyTensor = HostTensor | GpuTensor;

/**
 * A tensor in your GPU buffer, as every call takes one: a split's input, or where one output goes (`into`). Row-major
 * unless `strides` are given (a destination only). `byteOffset` defaults to 0, and `byteLength` to that of a row-major
 * tensor of this shape; every call reads and checks them the same way.
 */
export interface Into<D extends FixedDType = FixedDType> {
  /** The element type. */
  readonly dtype: D;
  /** The dimensions; `[]` for a scalar. */
  readonly shape: readonly number[];
  /** Your buffer, on the engine's device: usage STORAGE | COPY_SRC to be split, STORAGE | COPY_DST to be written. */
  readonly buffer: GPUBuffer;
  /** Where the first element lies: 0 when absent; for a destination, a multiple of 4. */
  readonly byteOffset?: number;
  /** When given, the tensor's size in bytes: that of a row-major tensor of this shape. */
  readonly byteLength?: number;
  /** A destination's element strides, one per dimension (row-major when absent); a dimension of size 1 may have any. */
  readonly strides?: readonly number[];
}

/**
 * A caller's destination for one output, as read/into.ts checked it: its buffer, where the output's first element
 * goes, its element strides over the plan's output shape (a dimension a node drops has stride 0), the strides as given
 * (what the output reports), its footprint in bytes from its first element's byte, and the caller's object (whose
 * lease is checked at every call that uses it).
 */
export interface Destination {
  readonly buffer: GPUBuffer;
  readonly byteOffset: number;
  readonly strides: readonly number[];
  readonly given: readonly number[] | undefined;
  readonly bytes: number;
  readonly source: object;
}
