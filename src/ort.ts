// `cleave/ort`: hand GPU tensors between ONNX Runtime Web (WebGPU EP) and Cleave without a copy.
// It never imports onnxruntime-web: the caller passes its tensor, or its `ort` namespace.

import { check, guardRead, show } from './errors.js';
import { type FixedDType, byteLengthOf, isDType } from './dtype.js';
import type { GpuTensor } from './tensor.js';

/** The part of an onnxruntime-web Tensor these helpers read. */
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

type FromGpuBuffer<T> = (buffer: GPUBuffer, options: { dataType: string; dims: readonly number[] }) => T;

/** The dtypes ONNX Runtime Web's WebGPU EP keeps on the GPU. */
export const ORT_GPU_DTYPES: readonly FixedDType[] = ['float32', 'float16', 'int32', 'int64', 'uint32', 'uint8', 'bool'];

/** An ORT tensor with location 'gpu-buffer' as a Cleave GPU tensor on the same buffer (no copy). */
export function fromOrtTensor(t: OrtGpuTensorLike): GpuTensor {
  const { location, type, dims, gpuBuffer } = guardRead('fromOrtTensor', () => t);
  check(location === 'gpu-buffer' && isDType(type) && type !== 'string', 'BAD_INPUT',
    () => `fromOrtTensor: takes an ort.Tensor on the GPU ('gpu-buffer'), got ${show(location)} ${show(type)}`, 'input:tensor');
  const shape = [...dims];
  return { dtype: type, shape, buffer: gpuBuffer as GPUBuffer, byteOffset: 0, byteLength: byteLengthOf(type, shape.reduce((a, b) => a * b, 1)) } as GpuTensor;
}

/**
 * Wraps a Cleave GPU tensor as an ORT tensor on the same buffer (ort.Tensor.fromGpuBuffer, no
 * copy). ORT takes a whole buffer, so the tensor must start at byte 0: split with
 * `layout: 'separate'`. The tensor stays Cleave's: release it after ORT is done with it.
 */
export function toOrtTensor<T>(ort: OrtLike<T>, t: GpuTensor): T {
  const { dtype, shape, buffer, byteOffset } = guardRead('toOrtTensor', () => t);
  check(byteOffset === 0, 'BAD_INPUT', () => `toOrtTensor: the tensor starts at byte ${show(byteOffset)} of its buffer; ` +
    "ORT takes whole buffers: split with { layout: 'separate' }", 'input:tensor.buffer');
  check(ORT_GPU_DTYPES.includes(dtype), 'BAD_DTYPE', () => `toOrtTensor: ORT's WebGPU EP holds ${ORT_GPU_DTYPES.join(', ')}, not ${show(dtype)}`, 'input:tensor.dtype');
  return (ort.Tensor.fromGpuBuffer as FromGpuBuffer<T>).call(ort.Tensor, buffer, { dataType: dtype, dims: shape });
}
