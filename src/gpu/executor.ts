// The GPU side of one engine: its device and limits, its buffer pool, and how work reaches the device. A split's
// commands are recorded and submitted at the call, inside the error scopes it needs: scopes catch only the calls made
// while they are open, and recording is synchronous, so an error they catch is that call's own, never an
// application's on a shared device or another split's. Host bytes are written in through padded writes, and results
// read back through one staging buffer.

import { SplitError, check } from '../errors.js';
import { type FixedDType, hostArrayName } from '../dtype.js';
import { arrayFromBytes } from '../host-data.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import { align4 } from '../planner/dispatch.js';
import type { GpuLimits, OutputPlace } from '../planner/types.js';
import { checkLive, endAll, fateOf, handOut, leaseFor, poisoned, trackBuffer } from './leases.js';
import { pipelinesCreated } from './pipelines.js';
import { BufferPool } from './pool.js';
import { TARGETS_PER_DISPATCH } from './shader.js';
import type { Table } from './encode.js';

import { MAP_READ_MODE, STAGING_USAGE, TENSOR_USAGE, USAGE } from '../usage.js';

/**
 * The error scopes a submit runs inside, outermost first: both when it may allocate or touch a caller's buffer not
 * split here before; validation alone when nothing is allocated; none when nothing of the caller's is touched either
 * (the engine's own live buffers: these commands cannot fail).
 */
export const SCOPES = {
  both: ['out-of-memory', 'validation'],
  validation: ['validation'],
  none: [],
} as const satisfies Record<string, readonly GPUErrorFilter[]>;

/** Cleave's encoders, labelled so that a GPU error names them, with one descriptor for every submit. */
const ENCODER: GPUCommandEncoderDescriptor = { label: 'cleave' };

/** What a submit inside no scope reports. */
const NO_ERROR: Promise<string | undefined> = Promise.resolve(undefined);

/** A rejection's handler where the outcome does not matter (a popped scope on a lost device, a buffer's last use). */
const ignore = () => undefined;

/** What host outputs are: their dtype, and the class of their arrays (the dtype's, or a host input's). */
type HostForm = { readonly dtype: FixedDType; readonly array: string };

export class GpuExecutor {
  readonly limits: GpuLimits;
  readonly pool: BufferPool;

  /**
   * `alive` throws when the engine was destroyed or its device lost (checked again after every wait); `onLate` hears
   * the GPU error of a split that resolved before its errors were known.
   */
  constructor(
    readonly device: GPUDevice,
    readonly alive: (what: string) => void,
    readonly onLate: (error: SplitError) => void,
  ) {
    const l = device.limits;
    this.limits = {
      alignment: Math.max(4, l.minStorageBufferOffsetAlignment),
      maxBindingBytes: l.maxStorageBufferBindingSize,
      maxBufferBytes: l.maxBufferSize,
      targetsPerDispatch: TARGETS_PER_DISPATCH,
    };
    this.pool = new BufferPool(device, trackBuffer);
  }

  get liveBuffers(): number {
    return this.pool.live;
  }

  get pipelinesCreated(): number {
    return pipelinesCreated(this.device);
  }

  destroy(): void {
    endAll(this.pool.buffers());
    this.pool.destroy();
  }

  /**
   * One command buffer, recorded and submitted inside `scopes`; `error` settles with the first error they caught.
   * Anything a WebGPU call throws becomes a SplitError.
   */
  submit<T>(encode: (enc: GPUCommandEncoder) => T, scopes: readonly GPUErrorFilter[] = SCOPES.both) {
    const work = (device: GPUDevice) => {
      const enc = device.createCommandEncoder(ENCODER);
      const value = encode(enc);
      device.queue.submit([enc.finish()]);
      return value;
    };
    return inScopes(this.device, work, scopes);
  }

  /**
   * A table no program records any more: destroyed once the GPU is done with it, or, when a caller's encoder may still
   * hold it (recorded there), left to the garbage collector.
   */
  retire(t: Table): void {
    this.pool.forget(t.buffer);
    if (!t.handedOver) void this.device.queue.onSubmittedWorkDone().then(() => t.buffer.destroy(), ignore);
  }

  /** A host tensor's bytes in a pooled buffer, handed out as a GPU tensor. */
  upload(x: HostView): GpuTensor {
    if (x.bytes.length > this.limits.maxBufferBytes)
      throw new SplitError('TOO_LARGE', `upload: ${x.bytes.length} bytes exceed maxBufferSize`, 'input:input');
    const buffer = this.pool.take(align4(x.bytes.length), TENSOR_USAGE);
    writePadded(this.device.queue, buffer, x.bytes);
    return handOut(leaseFor(buffer, this.pool), x.dtype as FixedDType, x.shape, 0, x.bytes.length);
  }

  /**
   * A GPU tensor's bytes as a host tensor, in its dtype's array or `array`, once its split (if it resolved early) is
   * known not to have failed.
   */
  async download(x: GpuView, array = hostArrayName(x.dtype)): Promise<HostTensor> {
    checkLive(x, 'download');
    if (!x.byteLength)
      return { dtype: x.dtype, shape: x.shape, data: arrayFromBytes(array, new Uint8Array(0), false) } as HostTensor;
    check(
      (x.usage & USAGE.COPY_SRC) !== 0 && x.buffer.mapState === 'unmapped',
      'BAD_INPUT',
      () =>
        x.usage & USAGE.COPY_SRC
          ? `download: the input's GPU buffer is ${x.buffer.mapState}; unmap it first`
          : "download: the input's GPU buffer needs usage COPY_SRC",
      'input:input.buffer',
    );
    const from = x.byteOffset & ~3;
    const size = align4(x.byteOffset + x.byteLength - from);
    const staging = this.pool.take(size, STAGING_USAGE);
    const fate = fateOf(x, 'download');
    const { error } = this.submit((enc) => enc.copyBufferToBuffer(x.buffer, from, staging, 0, size));
    const part = { byteOffset: x.byteOffset - from, byteLength: x.byteLength };
    const form = { dtype: x.dtype, array };
    const [bytes] = await this.readBack(staging, [part], form, [x.shape], error, 'download');
    // The tensor's split resolved before its GPU errors were known: its bytes are the split's only if it did not fail.
    const failed = await fate;
    if (failed) throw poisoned('download', failed);
    return bytes!;
  }

  /**
   * Maps `staging` (given back to the pool after), checks the call's scopes (a GPU error wins over the failed map it
   * causes; the engine destroyed or lost meanwhile wins over both), copies each part out as a host tensor of `form`.
   */
  async readBack(
    staging: GPUBuffer,
    parts: readonly Pick<OutputPlace, 'byteOffset' | 'byteLength'>[],
    form: HostForm,
    shapes: readonly (readonly number[])[],
    error: Promise<string | undefined>,
    what: string,
  ): Promise<HostTensor[]> {
    try {
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
    } catch (e) {
      throw this.failure(e, what);
    } finally {
      this.pool.give(staging);
    }
  }

  /** What a failed call reports: DEVICE_LOST or RELEASED when the engine is gone, else its error (a SplitError). */
  failure(e: unknown, what: string): SplitError {
    this.alive(what);
    return e instanceof SplitError ? e : new SplitError('GPU_ERROR', `${what}: ${(e as Error)?.message}`, undefined, e);
  }
}

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

/**
 * Runs `work` inside `scopes` (outermost first; none may be asked); `error` settles with the first error they
 * caught. Anything a WebGPU call throws becomes a SplitError. Scopes popped on a lost device reject; the call then
 * reports DEVICE_LOST on its own.
 */
export function inScopes<T>(
  device: GPUDevice,
  work: (device: GPUDevice) => T,
  scopes: readonly GPUErrorFilter[] = SCOPES.both,
): { value: T; error: Promise<string | undefined> } {
  for (const f of scopes) device.pushErrorScope(f);
  const pop = () =>
    scopes.length === 0
      ? NO_ERROR
      : scopes.length === 1 // a split of buffers seen before: one scope, popped on every call
        ? device.popErrorScope().then((e) => e?.message, ignore)
        : Promise.all(scopes.map(() => device.popErrorScope())).then(
            (errors) => errors.find((e) => e)?.message,
            ignore,
          );
  try {
    return { value: work(device), error: pop() };
  } catch (e) {
    void pop();
    throw e instanceof SplitError ? e : new SplitError('GPU_ERROR', `a WebGPU call threw: ${(e as Error)?.message}`);
  }
}

/** Rejects with GPU_ERROR when the call's scopes caught an error. */
export async function throwIfFailed(what: string, error: Promise<string | undefined>): Promise<void> {
  const message = await error;
  if (message !== undefined) throw gpuError(what, message);
}

/** The GPU_ERROR the call's scopes caught, once they settle: for a call that resolved before they did. */
export function lateError(what: string, error: Promise<string | undefined>): Promise<SplitError | undefined> {
  return error.then((m) => (m === undefined ? undefined : gpuError(what, m, 'after it resolved, ')));
}

const gpuError = (what: string, message: string, late = '') =>
  new SplitError('GPU_ERROR', `${what}: ${late}the GPU refused this call's commands: ${message}`);
