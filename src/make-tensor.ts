// The tensor factories, in the order ONNX Runtime Web's `new Tensor(type, data, dims)` takes its
// arguments: the dtype stays a literal without `as const`, and the data (or buffer) is checked against
// it by the compiler and, through the one reader of tensors (read/tensor.ts), at the call.

import type { DType, FixedDType } from './dtype.js';
import type { HostData } from './host-data.js';
import type { GpuTensor, HostTensor } from './tensor.js';
import { type GpuView, readTensor } from './read/tensor.js';

/**
 * A host tensor of `dtype`, its `data` as given (not copied), checked now: every call that takes a host tensor takes
 * it. The same object written as a literal needs `as const` in TypeScript (`{ dtype, shape, data } as const`).
 *
 * @param dtype - The element type, such as 'float32'.
 * @param data - The elements, row-major, in the dtype's host array ({@link HostData}): a `Float32Array` for
 *   float32, a `Uint16Array` of bits or a `Float16Array` for float16, a `string[]` for string, ...
 * @param shape - The dimensions; `[]` for a scalar.
 * @returns `{ dtype, shape, data }`, typed by the dtype and the data's array.
 * @throws {@link SplitError} `BAD_DTYPE`: not a dtype Cleave knows (the message names those it may mean, as for
 *   'Float32', 'fp16' or 'int'); `BAD_SHAPE`: a dimension that is not a non-negative integer; `DATA_TYPE`: data not
 *   in an array the dtype takes (a `Float16Array` for any dtype but float16, or a polyfill's, included);
 *   `DATA_LENGTH`: its length is not what the shape needs; `TOO_LARGE`: past `MAX_RANK`, `MAX_STRINGS` or 2^53
 *   elements.
 * @example
 * ```ts
 * import { tensor } from 'cleave-gpu';
 *
 * const x = tensor('float32', new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
 * console.log(x.dtype, x.shape); // float32 [2, 3]
 * ```
 */
export function tensor<D extends DType, A extends HostData<D>>(
  dtype: D,
  data: A,
  shape: readonly number[],
): HostTensor<D, A> {
  const view = readTensor({ dtype, shape, data }, 'tensor', 'input:tensor');
  return { dtype, shape: view.shape, data } as HostTensor<D, A>;
}

/**
 * A GPU tensor of `dtype` in your own buffer, checked now: a split's input, or with `strides` a place to write an
 * output at (`into`). `byteLength` is worked out for you; the same object written as a literal needs it, and
 * `as const` in TypeScript.
 *
 * @param dtype - The element type, such as 'float32' (any but 'string').
 * @param buffer - The buffer, on the engine's device: with usage STORAGE | COPY_SRC to be split, STORAGE | COPY_DST
 *   to be written (`TENSOR_USAGE` has both).
 * @param shape - The dimensions; `[]` for a scalar.
 * @param byteOffset - Where the first element lies in `buffer` (a multiple of 4 for a destination); 0 by default.
 * @param strides - A destination's element strides, one per dimension (row-major when absent): a strided tensor is a
 *   view inside a larger one, and no call takes it as input. Checked now, with the footprint they give.
 * @returns `{ dtype, shape, buffer, byteOffset, byteLength }` and the `strides` given, typed by the dtype: a
 *   {@link GpuTensor} and an {@link Into}.
 * @throws {@link SplitError} `BAD_DTYPE`, `BAD_SHAPE`, `TOO_LARGE` as {@link tensor}; `WRONG_BACKEND`: a string
 *   dtype; `BAD_INPUT`: `buffer` is not a GPUBuffer, or `byteOffset` not a non-negative integer (a multiple of 4 with
 *   strides); `BAD_SHAPE`: strides that make elements meet; `DATA_LENGTH`: the tensor (with its strides) at
 *   `byteOffset` runs past the end of `buffer` (the message says how far, and which dimension reaches furthest).
 * @example
 * ```ts
 * import { TENSOR_USAGE, createSplitEngine, gpuTensor, tensor } from 'cleave-gpu';
 *
 * const engine = await createSplitEngine({ backend: 'webgpu' });
 * const buffer = engine.device!.createBuffer({ size: 6 * 4, usage: TENSOR_USAGE }); // a [2, 3] float32 tensor
 * const column = gpuTensor('float32', buffer, [2, 1], 2 * 4, [3, 1]); // its last column, as a destination
 * const x = engine.upload(tensor('float32', new Float32Array([1, 2, 3, 4]), [4, 1]));
 * const outs = await engine.split(x, { sizes: [2, 2], into: [column, undefined] });
 * console.log([...(await engine.download(gpuTensor('float32', buffer, [2, 3]))).data]); // [0, 0, 1, 0, 0, 2]
 * for (const t of [...outs, x]) engine.release(t);
 * ```
 */
export function gpuTensor<D extends FixedDType>(
  dtype: D,
  buffer: GPUBuffer,
  shape: readonly number[],
  byteOffset = 0,
  strides?: readonly number[],
): GpuTensor<D> {
  const given = strides && { strides };
  const t = { dtype, shape, buffer, byteOffset, ...given };
  const v = readTensor(t, 'gpuTensor', 'input:gpuTensor', strides !== undefined) as GpuView;
  return { dtype, shape: v.shape, buffer, byteOffset: v.byteOffset, byteLength: v.byteLength, ...given };
}
