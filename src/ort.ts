// `cleave/ort`: hand GPU tensors between ONNX Runtime Web (WebGPU EP) and Cleave without a copy.
// It never imports onnxruntime-web: the caller passes its tensor, or its `ort` namespace. Both
// directions read their argument as any Cleave call does (once, every field checked).

import { check, guardRead, show } from './errors.js';
import { type FixedDType, byteLengthOf, isDType } from './dtype.js';
import type { GpuTensor } from './tensor.js';
import { type GpuView, numelOf, readShape, readTensor } from './read/tensor.js';
import { callRuntime, readWholeBuffer } from './interop.js';

/** The part of an onnxruntime-web Tensor fromOrtTensor reads. */
export interface OrtGpuTensorLike {
  readonly location: string;
  readonly type: string;
  readonly dims: readonly number[];
  readonly gpuBuffer?: unknown;
}

/**
 * The part of the `ort` namespace toOrtTensor uses. Its parameters are typed `never` so that ORT's
 * own generic signature (whose dataType is a union of literals) is accepted whatever its version.
 */
export interface OrtLike<T> {
  readonly Tensor: { fromGpuBuffer(buffer: never, options: never): T };
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

/** An ORT tensor with location 'gpu-buffer' as a Cleave GPU tensor on the same buffer (no copy). */
export function fromOrtTensor(t: OrtGpuTensorLike): GpuTensor {
  const what = 'fromOrtTensor';
  const v = guardRead(
    what,
    () => {
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
      const shape = readShape(dims, what, 'input:tensor');
      const byteLength = byteLengthOf(type, numelOf(shape, what, 'input:tensor'));
      return readTensor(
        { dtype: type, shape, buffer: gpuBuffer, byteOffset: 0, byteLength },
        what,
        'input:tensor',
      ) as GpuView;
    },
    'input:tensor',
  );
  return {
    dtype: v.dtype,
    shape: [...v.shape],
    buffer: v.buffer,
    byteOffset: 0,
    byteLength: v.byteLength,
  } as GpuTensor;
}

/**
 * Wraps a Cleave GPU tensor as an ORT tensor on the same buffer (ort.Tensor.fromGpuBuffer, no
 * copy). ORT takes a whole buffer, so the tensor must start at byte 0: split with
 * `layout: 'separate'`. The tensor stays Cleave's: release it after ORT is done with it.
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
  return callRuntime<T>(
    what,
    () => ort.Tensor,
    'fromGpuBuffer',
    [v.buffer, { dataType: v.dtype, dims: [...v.shape] }],
    () => `ONNX Runtime's namespace (with Tensor.fromGpuBuffer), got ${show(ort)}`,
    'input:ort',
  );
}
