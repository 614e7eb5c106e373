// The host tensor factory, in the order ONNX Runtime Web's `new Tensor(type, data, dims)` takes its
// arguments: the dtype stays a literal without `as const`, and the data is checked against it by the
// compiler and, through the one reader of tensors (read/tensor.ts), at the call.

import type { DType } from './dtype.js';
import type { HostData } from './host-data.js';
import type { HostTensor } from './tensor.js';
import { readTensor } from './read/tensor.js';

/**
 * A host tensor of `dtype`, its `data` as given (not copied), checked now: every call that takes a host tensor takes
 * it. The same object written as a literal needs `as const` in TypeScript (`{ dtype, shape, data } as const`).
 *
 * @param dtype - The element type, such as 'float32'.
 * @param data - The elements, row-major, in the dtype's host array ({@link HostData}): a `Float32Array` for
 *   float32, a `Uint16Array` of bits or a `Float16Array` for float16, a `string[]` for string, ...
 * @param shape - The dimensions; `[]` for a scalar.
 * @returns `{ dtype, shape, data }`, typed by the dtype and the data's array.
 * @throws {@link SplitError} `BAD_DTYPE`: not a dtype Cleave knows; `BAD_SHAPE`: a dimension that is not a
 *   non-negative integer; `DATA_TYPE`: data not in an array the dtype takes (a `Float16Array` for any dtype but
 *   float16 included); `DATA_LENGTH`: its length is not what the shape needs; `TOO_LARGE`: past `MAX_RANK`,
 *   `MAX_STRINGS` or 2^53 elements.
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
