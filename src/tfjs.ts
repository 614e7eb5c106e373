// `cleave-gpu/tfjs`: hand GPU tensors between TensorFlow.js (its WebGPU backend) and Cleave. It never
// imports TF.js: the caller passes its tensor, or its `tf` namespace. Both directions read their
// argument once, every field checked, and throw only SplitError.
//
// Who owns what:
// - fromTfTensor(t) follows TF.js's rules for `t.dataToGPU()`: TF.js copies t's data into a buffer
//   of its own (one copyBufferToBuffer, submitted at once with TF.js's pending work, so the copy
//   holds what the ops before it wrote) and keeps that buffer alive through a new tensor,
//   `tensorRef`, which the caller disposes. The buffer may be larger than the data (TF.js wraps
//   whole buffers, padding and all): the Cleave tensor is its first 4 * numel bytes, with t's shape
//   (tensorRef has the shape TF.js's backend recorded for the data, which may differ: after a
//   matMul, [1, m, n] for a t of [m, n]; same elements). Cleave splits read their input at the
//   call, so `tensorRef` may be disposed as soon as the split calls that read it have been made
//   (with `alias: 'any'`, only once their outputs are released: they may be views of it); never
//   split the Cleave tensor after that. `t` itself stays the caller's, to dispose whenever.
// - toTfTensor(tf, t) wraps the Cleave tensor's buffer with `tf.tensor({ buffer, zeroCopy: true })`:
//   the TF.js tensor borrows it, and disposing it never frees the buffer. The Cleave tensor stays
//   Cleave's: release it once TF.js has submitted the work that reads it (TF.js batches its
//   commands until a read such as `await y.data()`, or a `dataToGPU()`), and not before.
// Dtypes: TF.js keeps float32, int32 and bool on the GPU, each as a 32-bit word (bool as 0 or 1).
// A bool tensor comes out of fromTfTensor as int32 words; TF.js 4.22 makes no bool tensor from a
// GPU buffer, so it goes back as int32 (then `tf.cast(t, 'bool')`, on the GPU). Every other dtype
// is refused both ways: complex64 and string never reach TF.js's GPU buffers, and Cleave's 8-bit
// bool, float16, int64, uint8 and the rest have no TF.js dtype of their width.

/**
 * TensorFlow.js interop: GPU tensors between its WebGPU backend and Cleave, both ways.
 *
 * @module cleave-gpu/tfjs
 */

import { check, guardRead, show } from './errors.js';
import type { GpuTensor } from './tensor.js';
import { type GpuView, readShape, readTensor } from './read/tensor.js';
import { callRuntime, readWholeBuffer } from './interop.js';

// GPUBufferUsage.STORAGE | COPY_SRC (values fixed by the spec), what TF.js asks of a buffer it wraps.
// Written here rather than imported from usage.ts, which would move that module out of the main
// entry's file into a chunk of its own and make \`cleave\` load one file more.
const STORAGE_COPY_SRC = 0x80 | 0x4;

/** The dtypes TF.js's WebGPU backend holds on the GPU, each element a 32-bit word. */
export type TfGpuDType = 'float32' | 'int32' | 'bool';
/** The dtypes {@link fromTfTensor} takes: those TF.js's WebGPU backend holds on the GPU. */
export const TF_GPU_DTYPES: readonly TfGpuDType[] = ['float32', 'int32', 'bool'];

/** The part of a tf.Tensor {@link fromTfTensor} reads. */
export interface TfTensorLike {
  /** TF.js's dtype: one of {@link TF_GPU_DTYPES}. */
  readonly dtype: string;
  /** The shape. */
  readonly shape: readonly number[];
  /** Whether the tensor was disposed: it must not be. */
  readonly isDisposed: boolean;
  /**
   * TF.js's copy of the tensor's data into a GPU buffer of its own.
   *
   * @returns The buffer, and the tensor that keeps it alive.
   */
  dataToGPU(): {
    /** The GPUBuffer holding the data, from byte 0. */
    readonly buffer?: unknown;
    /** TF.js's tensor that owns the buffer. */
    readonly tensorRef: {
      /** Disposes TF.js's tensor: TF.js may then reuse or free the buffer. */
      dispose(): void;
    };
  };
}

/**
 * The part of the `tf` namespace {@link toTfTensor} uses. Its parameters are typed `never` so that TF.js's
 * own generic signature is accepted whatever its version.
 */
export interface TfLike<T> {
  /**
   * Makes a TF.js tensor; {@link toTfTensor} passes `{ buffer, zeroCopy: true }` as its values.
   *
   * @param values - The values, here a GPU buffer to borrow.
   * @param shape - The shape.
   * @param dtype - TF.js's dtype.
   * @returns The TF.js tensor.
   */
  tensor(values: never, shape: never, dtype: never): T;
}

/** A Cleave GPU tensor on the buffer of `t.dataToGPU()`, with the `tensorRef` that keeps it alive. */
export type TfGpuTensor<
  R = {
    /** Disposes TF.js's tensor: TF.js may then reuse or free the buffer. */
    dispose(): void;
  },
> = GpuTensor<'float32' | 'int32'> & {
  /** TF.js's tensor that owns the buffer: dispose it once the splits of this tensor are called. */
  readonly tensorRef: R;
};

/** The type of the `tensorRef` a tensor of type `T` gives from `dataToGPU()`: TF.js's own tensor type. */
export type TensorRefOf<T extends TfTensorLike> = ReturnType<T['dataToGPU']>['tensorRef'];

/**
 * A TF.js tensor on the WebGPU backend as a Cleave GPU tensor, through `t.dataToGPU()` (one copy
 * on the GPU, made by TF.js). Dispose the returned `tensorRef` after splitting (see the module's
 * header); a bool tensor comes out as int32 words of 0 and 1.
 *
 * @param t - A live TF.js tensor on the 'webgpu' backend (on the engine's device), of a dtype in
 *   {@link TF_GPU_DTYPES}.
 * @returns A GPU tensor on TF.js's copy of the data, with `tensorRef`, the TF.js tensor that owns that copy.
 * @throws {@link cleave-gpu!SplitError | SplitError} `BAD_INPUT`: not a TF.js tensor, `dataToGPU` threw (a tensor TF.js
 *   keeps on the CPU) or gave no GPUBuffer; `RELEASED`: `t` was disposed; `BAD_DTYPE`: a dtype TF.js does not keep on
 *   the GPU; `BAD_SHAPE`, `TOO_LARGE`: its shape breaks a rule or a cap; `DATA_LENGTH`: its bytes lie outside the
 *   buffer.
 * @example
 * ```ts
 * import * as tf from '@tensorflow/tfjs-core';
 * import { createSplitEngine } from 'cleave-gpu';
 * import { fromTfTensor } from 'cleave-gpu/tfjs';
 *
 * const engine = await createSplitEngine({ backend: 'webgpu' }); // then TF.js's 'webgpu' backend on engine.device
 * const qk = fromTfTensor(tf.randomNormal([64, 128]));
 * const [q, k] = await engine.split(qk, { axis: 1, parts: 2, layout: 'separate' });
 * qk.tensorRef.dispose(); // the split has read it
 * ```
 */
export function fromTfTensor<T extends TfTensorLike>(t: T): TfGpuTensor<TensorRefOf<T>> {
  const what = 'fromTfTensor';
  const at = 'input:tensor';
  const read = () => {
    check(
      typeof t === 'object' && t !== null && typeof t.dataToGPU === 'function',
      'BAD_INPUT',
      () => `${what}: expected a tf.Tensor, got ${show(t)}`,
      at,
    );
    check(t.isDisposed === false, 'RELEASED', () => `${what}: the tf.Tensor was disposed`, at);
    const dtype = t.dtype;
    check(
      (TF_GPU_DTYPES as readonly unknown[]).includes(dtype),
      'BAD_DTYPE',
      () => `${what}: TF.js keeps ${TF_GPU_DTYPES.join(', ')} on the GPU, not ${show(dtype)}`,
      'input:tensor.dtype',
    );
    return { dtype: dtype as TfGpuDType, shape: readShape(t.shape, what, at) };
  };
  const { dtype, shape } = guardRead(what, read, at);
  const expected = () => `a tf.Tensor, got ${show(t)}`;
  const refused = (thrown: string) =>
    `${what}: TF.js could not give the tensor's data on the GPU (dataToGPU threw ${thrown}); ` +
    "it must live on TF.js's 'webgpu' backend " +
    '(which keeps small tensors on the CPU unless WEBGPU_CPU_FORWARD is false)';
  const gpu = callRuntime<ReturnType<T['dataToGPU']>>(what, () => t, 'dataToGPU', [], expected, at, refused);
  const word = dtype === 'bool' ? 'int32' : dtype;
  try {
    const buffer = guardRead(what, () => gpu.buffer, at);
    const v = readTensor({ dtype: word, shape, buffer }, what, at) as GpuView;
    return { dtype: word, shape, buffer: v.buffer, byteOffset: 0, byteLength: v.byteLength, tensorRef: gpu.tensorRef };
  } catch (e) {
    // TF.js made a tensor for us (a WebGL texture, say, where a buffer was expected): none may leak.
    guardRead(what, () => gpu.tensorRef.dispose());
    throw e;
  }
}

/**
 * Wraps a Cleave GPU tensor as a TF.js tensor on the same buffer (`tf.tensor({ buffer, zeroCopy: true }, shape,
 * dtype)`, no copy). TF.js takes a whole buffer, and reads it whole, so the tensor must fill its buffer: split with
 * `layout: 'separate'`. Only float32 and int32 (TF.js makes no other tensor from a buffer; a bool split as int32 words
 * becomes bool again with `tf.cast`). The tensor stays Cleave's: release it once TF.js has submitted the work that
 * reads it.
 *
 * @param tf - Your `tf` namespace (TensorFlow.js, its backend 'webgpu' on the engine's device): Cleave never imports
 *   it.
 * @param t - A live Cleave GPU tensor of float32 or int32 that fills its buffer, with usage STORAGE | COPY_SRC.
 * @returns TF.js's tensor, borrowing the buffer: disposing it never frees the buffer.
 * @throws {@link cleave-gpu!SplitError | SplitError} `BAD_INPUT`, `BAD_SHAPE`, `DATA_LENGTH`, `TOO_LARGE`,
 *   `WRONG_BACKEND`: `t` is not a GPU tensor Cleave can read, does not fill its buffer, or its buffer lacks
 *   STORAGE | COPY_SRC; `BAD_DTYPE`: not float32 or int32; `RELEASED`: `t` was released; `GPU_ERROR`: the split
 *   that made `t` failed on the GPU; `BAD_INPUT`: `tf` has no `tensor`, or it refused the buffer.
 * @example
 * ```ts
 * import * as tf from '@tensorflow/tfjs-core';
 * import type { GpuTensor } from 'cleave-gpu';
 * import { toTfTensor } from 'cleave-gpu/tfjs';
 *
 * declare const q: GpuTensor<'float32'>; // an output of a split with layout: 'separate'
 * const y = tf.relu(toTfTensor(tf, q)); // release q once TF.js has submitted this work (after await y.data())
 * ```
 */
export function toTfTensor<T>(tf: TfLike<T>, t: GpuTensor): T {
  const what = 'toTfTensor';
  const v = readWholeBuffer(t, what, 'TF.js');
  check(
    v.dtype === 'float32' || v.dtype === 'int32',
    'BAD_DTYPE',
    () =>
      `${what}: TF.js makes tensors of float32 and int32 only from a GPU buffer, not ${v.dtype}` +
      (v.dtype === 'bool' ? " (Cleave's bool is 8-bit; TF.js's bool comes from fromTfTensor as int32 words)" : ''),
    'input:tensor.dtype',
  );
  check(
    v.buffer.size === v.byteLength || v.byteLength === 0,
    'BAD_INPUT',
    () =>
      `${what}: the tensor fills ${v.byteLength} of its buffer's ${v.buffer.size} bytes; TF.js reads a buffer it ` +
      "wraps whole (tensor.data() would return the rest too): split with { layout: 'separate' }",
    'input:tensor.buffer',
  );
  check(
    (v.buffer.usage & STORAGE_COPY_SRC) === STORAGE_COPY_SRC,
    'BAD_INPUT',
    () => `${what}: TF.js needs a buffer with usage STORAGE | COPY_SRC`,
    'input:tensor.buffer',
  );
  const args = [{ buffer: v.buffer, zeroCopy: true }, [...v.shape], v.dtype];
  const expected = () => `TensorFlow.js's namespace (with tensor), got ${show(tf)}`;
  const refused = (thrown: string) =>
    `${what}: tf.tensor refused the buffer (${thrown}); TF.js's backend must be 'webgpu', on the engine's device`;
  return callRuntime<T>(what, () => tf, 'tensor', args, expected, 'input:tf', refused);
}
