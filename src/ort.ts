// `cleave/ort`: hand GPU tensors between ONNX Runtime Web (WebGPU EP) and Cleave without a copy.
// It never imports onnxruntime-web: the caller passes its tensor, or its `ort` namespace.

import { SplitError, check, show } from './errors.js';
import { type FixedDType, byteLengthOf, isDType } from './dtype.js';
import type { GpuTensor } from './tensor.js';

/** The part of an onnxruntime-web Tensor these helpers read. */
export interface OrtGpuTensorLike {
  readonly location: string;
  readonly type: string;
  readonly dims: readonly number[];
  readonly gpuBuffer?: unknown;
}

/** The part of the `ort` namespace toOrtTensor uses. */
export interface OrtLike<T> {
  readonly Tensor: { fromGpuBuffer(buffer: GPUBuffer, options: { dataType: string; dims: readonly number[] }): T };
}

/** The dtypes ONNX Runtime Web's WebGPU EP keeps on the GPU. */
export const ORT_GPU_DTYPES: readonly FixedDType[] = ['float32', 'float16', 'int32', 'int64', 'uint32', 'uint8', 'bool'];

/** An ORT tensor with location 'gpu-buffer' as a Cleave GPU tensor on the same buffer (no copy). */
export function fromOrtTensor(t: OrtGpuTensorLike): GpuTensor {
  check(typeof t === 'object' && t !== null, 'BAD_INPUT', () => `fromOrtTensor: expected an ort.Tensor, got ${show(t)}`, { kind: 'input', name: 'tensor' });
  const { location, type, dims, gpuBuffer } = t;
  check(location === 'gpu-buffer', 'BAD_INPUT',
    () => `fromOrtTensor: the tensor's location is ${show(location)}; only 'gpu-buffer' tensors live on the GPU`, { kind: 'input', name: 'tensor' });
  check(isDType(type) && type !== 'string', 'BAD_DTYPE', () => `fromOrtTensor: ORT type ${show(type)} has no Cleave GPU dtype`,
    { kind: 'input', name: 'tensor', part: 'dtype' });
  const shape = [...dims];
  const numel = shape.reduce((a, b) => a * b, 1);
  return { dtype: type, shape, buffer: gpuBuffer as GPUBuffer, byteOffset: 0, byteLength: byteLengthOf(type, numel) } as GpuTensor;
}

/**
 * Wraps a Cleave GPU tensor as an ORT tensor on the same buffer (ort.Tensor.fromGpuBuffer, no
 * copy). ORT takes a whole buffer, so the tensor must start at byte 0: split with
 * `layout: 'separate'`. The tensor stays Cleave's: release it after ORT is done with it.
 */
export function toOrtTensor<T>(ort: OrtLike<T>, t: GpuTensor): T {
  const { dtype, shape, buffer, byteOffset } = t;
  check(byteOffset === 0, 'BAD_INPUT', () => `toOrtTensor: the tensor starts at byte ${show(byteOffset)} of its buffer, but ` +
    "ort.Tensor.fromGpuBuffer takes a whole buffer; split with { layout: 'separate' } to give each output its own", { kind: 'input', name: 'tensor', part: 'buffer' });
  if (!ORT_GPU_DTYPES.includes(dtype)) {
    throw new SplitError('BAD_DTYPE', `toOrtTensor: ONNX Runtime's WebGPU EP keeps ${ORT_GPU_DTYPES.join(', ')} on the GPU, not ${show(dtype)}`,
      { kind: 'input', name: 'tensor', part: 'dtype' });
  }
  return ort.Tensor.fromGpuBuffer(buffer, { dataType: dtype, dims: shape });
}
