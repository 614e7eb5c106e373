// `cleave-gpu/ort`: hand GPU tensors between ONNX Runtime Web (WebGPU EP) and Cleave without a copy.
// It never imports onnxruntime-web: the caller passes its tensor, or its `ort` namespace. Both
// directions read their argument as any Cleave call does (once, every field checked).

/**
 * ONNX Runtime Web interop: GPU tensors between its WebGPU execution provider and Cleave, both ways, without a copy.
 *
 * @module cleave-gpu/ort
 */

import { check, guardRead, show } from './errors.js';
import { type FixedDType, isDType } from './dtype.js';
import type { GpuTensor } from './tensor.js';
import { type GpuView, readTensor } from './read/tensor.js';
import { callRuntime, readWholeBuffer } from './interop.js';

/** The part of an onnxruntime-web Tensor {@link fromOrtTensor} reads. */
export interface OrtGpuTensorLike {
  /** Where the data lives: must be 'gpu-buffer'. */
  readonly location: string;
  /** ORT's type, such as 'float32': read as the Cleave dtype of that name. */
  readonly type: string;
  /** The shape. */
  readonly dims: readonly number[];
  /** The GPUBuffer holding the data, from byte 0. */
  readonly gpuBuffer?: unknown;
}

/**
 * The part of the `ort` namespace {@link toOrtTensor} uses. Its parameters are typed `never` so that ORT's
 * own generic signature (whose dataType is a union of literals) is accepted whatever its version.
 */
export interface OrtLike<T> {
  /** ORT's Tensor class. */
  readonly Tensor: {
    /**
     * Makes an ORT tensor on a GPU buffer, without a copy.
     *
     * @param buffer - The GPUBuffer.
     * @param options - `{ dataType, dims }`.
     * @returns The ORT tensor.
     */
    fromGpuBuffer(buffer: never, options: never): T;
  };
}

/** The dtypes ONNX Runtime Web's WebGPU EP keeps on the GPU. */
export const ORT_GPU_DTYPES: readonly FixedDType[] = [
  'float32',
  'float16',
  'int32',
  'int64',
  'uint32',
  'uint8',
  'bool',
];

/**
 * An ORT tensor with location 'gpu-buffer' as a Cleave GPU tensor on the same buffer, without a copy. ORT owns the
 * buffer and reuses it after `t.dispose()`: Cleave copies its chunks (unless you ask for `alias: 'any'`), so you may
 * dispose `t` once the split has been called.
 *
 * @param t - The ORT tensor: a session output with `preferredOutputLocation: 'gpu-buffer'`, or a
 *   `Tensor.fromGpuBuffer`; on the engine's device.
 * @returns A GPU tensor at byte 0 of ORT's buffer, to pass to a split.
 * @throws {@link cleave-gpu!SplitError | SplitError} `BAD_INPUT`: not an ORT tensor on a GPU buffer (or reading it
 *   threw); `BAD_DTYPE`: a type with no Cleave GPU dtype; `BAD_SHAPE`, `TOO_LARGE`: its dims break a rule or a cap;
 *   `DATA_LENGTH`: its bytes lie outside the buffer.
 * @example
 * ```ts
 * import type { Tensor } from 'onnxruntime-web/webgpu';
 * import { createSplitEngine } from 'cleave-gpu';
 * import { fromOrtTensor } from 'cleave-gpu/ort';
 *
 * declare const qkv: Tensor; // a session's output, left on the GPU
 * const engine = await createSplitEngine({ backend: 'webgpu' });
 * const [q, k, v] = await engine.split(fromOrtTensor(qkv), { axis: -1, parts: 3, layout: 'separate' });
 * qkv.dispose(); // Cleave copied it
 * ```
 */
export function fromOrtTensor(t: OrtGpuTensorLike): GpuTensor {
  const what = 'fromOrtTensor';
  const read = () => {
    check(
      typeof t === 'object' && t !== null,
      'BAD_INPUT',
      () => `${what}: expected an ort.Tensor, got ${show(t)}`,
      'input:tensor',
    );
    const { location, type, dims, gpuBuffer } = t;
    check(
      location === 'gpu-buffer',
      'BAD_INPUT',
      () => `${what}: the tensor is on ${show(location)}, not 'gpu-buffer'`,
      'input:tensor',
    );
    check(
      isDType(type) && type !== 'string',
      'BAD_DTYPE',
      () => `${what}: ORT type ${show(type)} has no Cleave GPU dtype`,
      'input:tensor.dtype',
    );
    return readTensor({ dtype: type, shape: dims, buffer: gpuBuffer }, what, 'input:tensor') as GpuView;
  };
  const { dtype, shape, buffer, byteLength } = guardRead(what, read, 'input:tensor');
  return { dtype, shape: [...shape], buffer, byteOffset: 0, byteLength } as GpuTensor;
}

/**
 * Wraps a Cleave GPU tensor as an ORT tensor on the same buffer (ort.Tensor.fromGpuBuffer, no
 * copy). ORT takes a whole buffer, so the tensor must start at byte 0: split with
 * `layout: 'separate'`. The tensor stays Cleave's: release it after ORT is done with it.
 *
 * @param ort - Your `ort` namespace (onnxruntime-web): Cleave never imports it.
 * @param t - A live Cleave GPU tensor at byte 0 of its buffer, of a dtype in {@link ORT_GPU_DTYPES}.
 * @returns ORT's tensor, with location 'gpu-buffer'.
 * @throws {@link cleave-gpu!SplitError | SplitError} `BAD_INPUT`, `BAD_SHAPE`, `DATA_LENGTH`, `TOO_LARGE`,
 *   `WRONG_BACKEND`: `t` is not a GPU tensor Cleave can read, or does not start at byte 0; `BAD_DTYPE`: a dtype ORT's
 *   WebGPU EP does not keep on the GPU; `RELEASED`: `t` was released; `GPU_ERROR`: the split that made `t` failed on
 *   the GPU; `BAD_INPUT`: `ort` has no `Tensor.fromGpuBuffer`, or it threw.
 * @example
 * ```ts
 * import * as ort from 'onnxruntime-web/webgpu';
 * import type { GpuTensor } from 'cleave-gpu';
 * import { toOrtTensor } from 'cleave-gpu/ort';
 *
 * declare const q: GpuTensor; // an output of a split with layout: 'separate'
 * const feed = { q: toOrtTensor(ort, q) }; // release q after the session that reads it ran
 * ```
 */
export function toOrtTensor<T>(ort: OrtLike<T>, t: GpuTensor): T {
  const what = 'toOrtTensor';
  const v = readWholeBuffer(t, what, 'ORT');
  check(
    ORT_GPU_DTYPES.includes(v.dtype),
    'BAD_DTYPE',
    () => `${what}: ORT's WebGPU EP holds ${ORT_GPU_DTYPES.join(', ')}, not ${v.dtype}`,
    'input:tensor.dtype',
  );
  const args = [v.buffer, { dataType: v.dtype, dims: [...v.shape] }];
  const expected = () => `ONNX Runtime's namespace (with Tensor.fromGpuBuffer), got ${show(ort)}`;
  return callRuntime<T>(what, () => ort.Tensor, 'fromGpuBuffer', args, expected, 'input:ort');
}
