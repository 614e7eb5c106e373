// The tensor types: a tensor in host memory, one in a GPU buffer, and a place in a GPU buffer to
// write an output at (`Into`), public; and that place as the planner takes it (`Destination`),
// which read/into.ts makes. A HostTensor's `data` type follows its `dtype`, so a mismatched pair
// fails to compile; plain JavaScript callers get the same rules at run time (read/tensor.ts).

import type { DType, FixedDType, HostDataMap } from './dtype.js';

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
    /**
     * Element strides, on an output written at a strided destination (`into`) only: such a tensor
     * describes a view inside a larger one, and no call takes it as input.
     */
    readonly strides?: readonly number[];
  };
}[D];

export type AnyTensor = HostTensor | GpuTensor;

/**
 * Where one output goes: a GPU tensor's place (`buffer`, `byteOffset`), with its element `strides`
 * if not row-major.
 */
export interface Into<D extends FixedDType = FixedDType> {
  readonly dtype: D;
  readonly shape: readonly number[];
  readonly buffer: GPUBuffer;
  readonly byteOffset: number;
  /** Element strides, one per dimension (row-major when absent); a dimension of size 1 may have any. */
  readonly strides?: readonly number[];
  /** Optional: when given, the output's byte length (that of a row-major tensor of this shape). */
  readonly byteLength?: number;
}

/**
 * A caller's destination for one output (`into`): the `target` buffer (k > 0, the k-th distinct
 * one), its byte offset, and its strides in elements over the plan's output shape.
 */
export interface Destination {
  readonly target: number;
  readonly byteOffset: number;
  readonly strides: readonly number[];
}
