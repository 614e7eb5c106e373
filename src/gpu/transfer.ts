// Moving bytes between host and GPU: padded writes (writeBuffer takes whole words) and the one
// readback of a staging buffer, sliced into host tensors.

import { SplitError } from '../errors.js';
import type { FixedDType } from '../dtype.js';
import { arrayFromBytes } from '../host-data.js';
import type { HostTensor } from '../tensor.js';
import type { OutputSlot } from '../planner/types.js';
import { throwIfFailed } from './scope.js';
import { MAP_READ_MODE } from '../usage.js';

/** writeBuffer needs a multiple of 4 bytes: the tail goes through a zero-padded word. */
export function writePadded(queue: GPUQueue, buffer: GPUBuffer, bytes: Uint8Array): void {
  const body = bytes.length & ~3;
  if (body) queue.writeBuffer(buffer, 0, bytes, 0, body);
  if (body < bytes.length) {
    const tail = new Uint8Array(4);
    tail.set(bytes.subarray(body));
    queue.writeBuffer(buffer, body, tail);
  }
}

/** What host outputs are: their dtype, and the class of their arrays (the dtype's, or a host input's). */
export interface HostForm {
  readonly dtype: FixedDType;
  readonly array: string;
}

/**
 * Maps `staging`, checks the call's scopes (a GPU error wins over the failed map it causes), copies each part out as
 * a host tensor of `form`.
 */
export async function readBack(
  staging: GPUBuffer,
  parts: readonly OutputSlot[],
  form: HostForm,
  shapes: readonly (readonly number[])[],
  error: Promise<string | undefined>,
  what: string,
): Promise<HostTensor[]> {
  try {
    await staging.mapAsync(MAP_READ_MODE);
  } catch (e) {
    await throwIfFailed(what, error);
    throw new SplitError('GPU_ERROR', `${what}: reading results back failed: ${(e as Error).message}`);
  }
  try {
    await throwIfFailed(what, error);
    const all = new Uint8Array(staging.getMappedRange());
    return parts.map(
      (p, i) =>
        ({
          dtype: form.dtype,
          shape: [...shapes[i]!],
          data: arrayFromBytes(form.array, all.subarray(p.byteOffset, p.byteOffset + p.byteLength), true),
        }) as HostTensor,
    );
  } finally {
    staging.unmap();
  }
}
