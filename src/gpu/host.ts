// The host path: what crosses between host memory and the GPU. A host tensor's split is one
// upload, one submit and one readback of every output, in the input's array class; an upload hands
// out a GPU tensor under a lease; a download copies one GPU tensor into a staging buffer and reads
// it back in its dtype's array.

import { check } from '../errors.js';
import { hostArrayName } from '../dtype.js';
import { hostDataFromBytes } from '../host-data.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import { align4 } from '../planner/dispatch.js';
import type { GpuPlan } from '../planner/types.js';
import { statsOf } from '../stats.js';
import { encodeCopies } from './encode.js';
import { checkLive, fateOf, handOut, leaseFor, poisoned } from './leases.js';
import { STAGING_USAGE, TENSOR_USAGE, USAGE, requireUsage } from '../usage.js';
import { calibrateSoon } from './calibrate.js';
import { type HostForm, readBack as readStaging, writePadded } from './transfer.js';
import type { GpuExecutor, SplitRequest, SplitResult, Work } from './executor.js';

/** Splits a host tensor: one upload, one submit, one readback of every output. */
export async function splitHost(gpu: GpuExecutor, req: SplitRequest, x: HostView): Promise<SplitResult<HostTensor>> {
  calibrateSoon(gpu.device, gpu.costs);
  const gp = gpu.plans.get(req.plan, { srcByteOffset: 0, allowAlias: false, strategy: req.strategy }) as Work;
  const staging = gpu.pool.take(gp.bufferBytes, STAGING_USAGE);
  const input = gpu.pool.take(align4(x.bytes.length), TENSOR_USAGE);
  const { value, error } = gpu.submit('split', (enc) => {
    writePadded(gpu.device.queue, input, x.bytes);
    if (gp.strategy === 'copy') return encodeCopies(enc, gp.copies, input, gp.outputs, [staging]);
    const out = gpu.pool.take(gp.bufferBytes, TENSOR_USAGE);
    gpu.gather(enc, gp, input, [out]);
    enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
    return out;
  });
  gpu.pool.give(input);
  if (value) gpu.pool.give(value);
  return {
    outputs: await readBack(gpu, 'split', staging, error, gp.outputs, hostForm(x), req.shapes),
    stats: statsOf(gp),
  };
}

/** Outputs like a host input: its dtype (not string: strings split on the CPU), its array class. */
const hostForm = (x: HostView): HostForm => ({ dtype: x.dtype as GpuView['dtype'], array: x.array! });

/** A host tensor's bytes in a pooled buffer, handed out as a GPU tensor. */
export function uploadTensor(gpu: GpuExecutor, x: HostView): GpuTensor {
  check(
    x.bytes.length <= gpu.limits.maxBufferBytes,
    'TOO_LARGE',
    () => `upload: ${x.bytes.length} bytes exceed maxBufferSize`,
    'input:input',
  );
  const buffer = gpu.pool.take(align4(x.bytes.length), TENSOR_USAGE);
  writePadded(gpu.device.queue, buffer, x.bytes);
  return handOut(leaseFor(buffer, gpu.pool), x.dtype as GpuTensor['dtype'], x.shape, 0, x.bytes.length);
}

/** A GPU tensor's bytes as a host tensor, once its split (if it resolved early) is known not to have failed. */
export async function downloadTensor(gpu: GpuExecutor, x: GpuView): Promise<HostTensor> {
  checkLive(x, 'download');
  if (!x.byteLength)
    return { dtype: x.dtype, shape: x.shape, data: hostDataFromBytes(x.dtype, new Uint8Array(0)) } as HostTensor;
  requireUsage(x.buffer, USAGE.COPY_SRC, 'COPY_SRC', 'download');
  const from = x.byteOffset & ~3;
  const size = align4(x.byteOffset + x.byteLength - from);
  const staging = gpu.pool.take(size, STAGING_USAGE);
  const fate = fateOf(x, 'download');
  const { error } = gpu.submit('download', (enc) => enc.copyBufferToBuffer(x.buffer, from, staging, 0, size));
  const [bytes] = await readBack(
    gpu,
    'download',
    staging,
    error,
    [{ byteOffset: x.byteOffset - from, byteLength: x.byteLength }],
    { dtype: x.dtype, array: hostArrayName(x.dtype) },
    [x.shape],
  );
  // The tensor's split resolved before its GPU errors were known: its bytes are the split's only if it did not fail.
  const failed = await fate;
  if (failed) throw poisoned('download', failed);
  return bytes!;
}

/** Waits for the staging buffer and the call's scopes; slices the outputs out of it. */
async function readBack(
  gpu: GpuExecutor,
  what: string,
  staging: GPUBuffer,
  error: Promise<string | undefined>,
  parts: GpuPlan['outputs'],
  form: HostForm,
  shapes: SplitRequest['shapes'],
): Promise<HostTensor[]> {
  try {
    return await readStaging(staging, parts, form, shapes, error, what);
  } catch (e) {
    gpu.guard(what); // destroyed or lost meanwhile: say that instead
    throw e;
  } finally {
    gpu.pool.give(staging);
  }
}
