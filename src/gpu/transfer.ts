// Moving bytes between host and GPU: padded writes (writeBuffer takes whole words) and the one
// readback of a staging buffer, sliced into host tensors.

import { SplitError } from '../errors.js';
import { type FixedDType, hostDataFromBytes } from '../dtype.js';
import type { HostTensor } from '../tensor.js';
import type { OutputSlot } from '../planner/gpu.js';
import { throwIfFailed } from './scope.js';

/** writeBuffer needs a multiple of 4 bytes: the tail goes through a zero-padded word. */
export function writePadded(queue: GPUQueue, buffer: GPUBuffer, bytes: Uint8Array): void {
  const body = bytes.byteLength & ~3;
  if (body > 0) queue.writeBuffer(buffer, 0, bytes, 0, body);
  if (body < bytes.byteLength) {
    const tail = new Uint8Array(4);
    tail.set(bytes.subarray(body));
    queue.writeBuffer(buffer, body, tail);
  }
}

/**
 * Maps `staging`, checks the call's error scopes, and copies each part out as a host tensor. A GPU
 * error of the call wins over a failed map, which it usually causes.
 */
export async function readBack(staging: GPUBuffer, mode: number, parts: readonly OutputSlot[], dtype: FixedDType,
  shapes: readonly (readonly number[])[], errors: readonly Promise<string | undefined>[], what: string): Promise<HostTensor[]> {
  try {
    await staging.mapAsync(mode);
  } catch (e) {
    await throwIfFailed(what, errors);
    throw new SplitError('GPU_ERROR', `${what}: reading results back failed: ${(e as Error).message}`);
  }
  try {
    await throwIfFailed(what, errors);
    const all = new Uint8Array(staging.getMappedRange());
    return parts.map((p, i) => ({
      dtype, shape: [...shapes[i]!], data: hostDataFromBytes(dtype, all.subarray(p.byteOffset, p.byteOffset + p.byteLength)),
    }) as HostTensor);
  } finally {
    staging.unmap();
  }
}
