// The GPU executor: carries out a GpuPlan on one device. It owns the buffers it creates: output
// buffers, each leased to the tensors that view it until the last of them is released, and pooled
// buffers (released outputs, upload/staging scratch) that later splits reuse, because a fresh
// buffer costs an allocation and a zero-fill. A split of a host tensor is one upload, one submit
// and one mapAsync of a single staging buffer.

import { SplitError, check } from '../errors.js';
import { type FixedDType, type TypedArray, bytesOf, hostDataFromBytes } from '../dtype.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import { type GpuLimits, type GpuPlan, type SplitPlan, type Strategy, ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS, planGpu } from '../planner.js';
import { encodeParams, encodeRegions, gatherLayout } from './shader.js';
import { gatherBindGroupLayout, gatherPipeline, pipelinesCreated, warmUp } from './pipelines.js';

const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const STAGING = () => GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;

/** Free bytes the pools may keep; beyond it the oldest pooled buffers are destroyed. */
export const POOL_BYTES = 256 << 20;

/** What a split did on the GPU (or that it ran on the CPU), for tests, the bench and the demo. */
export interface SplitStats {
  readonly strategy: Strategy | 'cpu';
  /** Shader word width in bytes for 'gather' (1 = byte-packing variant), else 0. */
  readonly unitBytes: number;
  readonly dispatches: number;
  readonly copies: number;
}

export const CPU_STATS: SplitStats = { strategy: 'cpu', unitBytes: 0, dispatches: 0, copies: 0 };

function statsOf(gp: GpuPlan): SplitStats {
  return {
    strategy: gp.strategy,
    unitBytes: gp.strategy === 'gather' ? gp.unitBytes : 0,
    dispatches: gp.dispatches.length,
    copies: gp.strategy === 'copy' ? gp.regions.reduce((n, r) => n + r.rows, 0) : 0,
  };
}

/** One lease of an output buffer: how many of the tensors viewing it are not yet released. */
interface Lease {
  readonly buffer: GPUBuffer;
  live: number;
}

/**
 * A GPU tensor Cleave hands out. Its lease travels in private fields, which a spread or a
 * reshaped copy never carries: only the tensor itself can end its share of the lease. (A class
 * field, not a WeakMap entry or a Set per lease: 4096 outputs per split must stay cheap.)
 */
class LeasedTensor {
  #lease: Lease;
  #released = false;
  constructor(
    readonly dtype: FixedDType, readonly shape: readonly number[], readonly buffer: GPUBuffer,
    readonly byteOffset: number, readonly byteLength: number, lease: Lease,
  ) {
    this.#lease = lease;
    lease.live++;
  }

  /** The lease of a tensor Cleave handed out (undefined for any other object), and whether it is released. */
  static of(t: object): { lease: Lease; released: boolean } | undefined {
    return #lease in t ? { lease: (t as LeasedTensor).#lease, released: (t as LeasedTensor).#released } : undefined;
  }

  /** Marks `t` released; returns its lease the first time only. */
  static release(t: object): Lease | undefined {
    if (!(#lease in t) || (t as LeasedTensor).#released) return undefined;
    (t as LeasedTensor).#released = true;
    (t as LeasedTensor).#lease.live--;
    return (t as LeasedTensor).#lease;
  }
}

const align = (x: number, a: number) => Math.ceil(x / a) * a;

export class GpuExecutor {
  readonly limits: GpuLimits;
  private readonly layout = gatherLayout();
  /** Every live buffer this executor created (leased, pooled or scratch in flight). */
  private readonly owned = new Set<GPUBuffer>();
  /** Every buffer it ever created, destroyed ones included. */
  private readonly ours = new WeakSet<GPUBuffer>();
  /** The current lease of each output buffer. */
  private readonly leased = new Map<GPUBuffer, Lease>();
  /** Buffers free for reuse, by usage and size, oldest first. */
  private readonly pools = new Map<string, GPUBuffer[]>();
  private pooledBytes = 0;
  private destroyed = false;
  private lostMessage: string | undefined;
  private gpuError: string | undefined;
  private readonly onError = (e: Event) => { this.gpuError ??= (e as GPUUncapturedErrorEvent).error.message; };

  constructor(readonly device: GPUDevice) {
    const l = device.limits;
    // On a CPU adapter a copy command is a memcpy, far faster than a shader moving the same bytes.
    const onCpu = /swiftshader|llvmpipe|lavapipe/i.test(`${device.adapterInfo?.architecture} ${device.adapterInfo?.description}`);
    this.limits = {
      // Outputs at 4-byte multiples at least: the byte-packing shader writes whole words.
      alignment: Math.max(4, l.minStorageBufferOffsetAlignment),
      maxBindingBytes: l.maxStorageBufferBindingSize,
      maxBufferBytes: l.maxBufferSize,
      rowCopyMinBytes: onCpu ? ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS : Infinity,
    };
    void device.lost.then((info) => { this.lostMessage = info.message || info.reason || 'lost'; });
    device.addEventListener?.('uncapturederror', this.onError);
    warmUp(device);
  }

  get pipelinesCreated(): number {
    return pipelinesCreated(this.device);
  }

  /** Number of buffers this executor created that are still alive (pools included). */
  get liveBuffers(): number {
    return this.owned.size;
  }

  /**
   * Throws if the engine was destroyed, the device is lost or reported an error, or `t` was
   * released. A tensor Cleave handed out must belong to its buffer's current lease; any other
   * object on a buffer Cleave made (a reshaped copy) is fine while that buffer is leased.
   */
  checkUsable(t?: object): void {
    check(!this.destroyed, 'RELEASED', () => 'this engine was destroyed');
    check(this.lostMessage === undefined, 'DEVICE_LOST', () => `the GPU device was lost: ${this.lostMessage}`);
    if (this.gpuError !== undefined) {
      const msg = this.gpuError;
      this.gpuError = undefined;
      throw new SplitError('GPU_ERROR', `the GPU device reported an error: ${msg}`);
    }
    const b = (t as Partial<GpuTensor> | undefined)?.buffer;
    if (!t || !b || !this.ours.has(b)) return;
    const own = LeasedTensor.of(t);
    const current = this.leased.get(b);
    check(own ? own.lease === current && !own.released : current !== undefined, 'RELEASED',
      () => 'this GPU tensor was released and can no longer be used');
  }

  upload<D extends FixedDType>(t: HostTensor<D>): GpuTensor<D> {
    const bytes = bytesOf(t.data as TypedArray);
    check(bytes.byteLength <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `upload: ${bytes.byteLength} bytes exceed this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    const buffer = this.create(align(Math.max(bytes.byteLength, 4), 4), STORAGE(), true);
    new Uint8Array(buffer.getMappedRange()).set(bytes);
    buffer.unmap();
    return new LeasedTensor(t.dtype, [...t.shape], buffer, 0, bytes.byteLength, this.lease(buffer)) as unknown as GpuTensor<D>;
  }

  async download<D extends FixedDType>(t: GpuTensor<D>): Promise<HostTensor<D>> {
    if (t.byteLength === 0) {
      return { dtype: t.dtype, shape: [...t.shape], data: hostDataFromBytes(t.dtype, new Uint8Array(0)) } as HostTensor<D>;
    }
    requireUsage(t.buffer, GPUBufferUsage.COPY_SRC, 'COPY_SRC', 'download');
    const from = Math.floor(t.byteOffset / 4) * 4;
    const size = align(t.byteOffset + t.byteLength - from, 4);
    const staging = this.take(size, STAGING());
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(t.buffer, from, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    const [out] = await this.readBack(staging, [{ byteOffset: t.byteOffset - from, byteLength: t.byteLength }], t.dtype, [t.shape]);
    return out as HostTensor<D>;
  }

  /**
   * Splits a GPU-resident tensor; the outputs share one buffer (or alias the input's). `shapes`
   * are the output shapes to report (the plan's, or a node's when it drops the axis).
   */
  async split<D extends FixedDType>(plan: SplitPlan, x: GpuTensor<D>, strategy: Strategy | 'auto',
    shapes: readonly (readonly number[])[] = plan.outputShapes): Promise<{ outputs: GpuTensor<D>[]; stats: SplitStats }> {
    const gp = planGpu(plan, this.limits, { srcByteOffset: x.byteOffset, allowAlias: true, strategy });
    if (gp.strategy === 'gather') requireUsage(x.buffer, GPUBufferUsage.STORAGE, 'STORAGE', 'split');
    if (gp.strategy === 'copy' && gp.regions.length > 0) requireUsage(x.buffer, GPUBufferUsage.COPY_SRC, 'COPY_SRC', 'split');
    const pipeline = gp.strategy === 'gather' ? await gatherPipeline(this.device, gp.unitBytes) : undefined;
    this.checkUsable(x); // the engine may be destroyed, or the input released, while the pipeline compiled
    const stats = statsOf(gp);
    if (gp.outputs.length === 0) return { outputs: [], stats };
    const out = gp.strategy === 'alias' ? x.buffer : this.take(gp.bufferBytes, STORAGE(), true);
    if (gp.strategy !== 'alias') {
      const enc = this.device.createCommandEncoder({ label: 'cleave-split' });
      this.submit(enc, this.encode(enc, gp, x.buffer, out, pipeline));
    }
    // Aliases join the lease of an engine-owned input; a caller's own buffer stays the caller's.
    const lease = out === x.buffer && !this.leased.has(out) ? undefined : this.lease(out);
    const outputs = gp.outputs.map((o, i) => (lease
      ? new LeasedTensor(x.dtype, [...shapes[i]!], out, o.byteOffset, o.byteLength, lease)
      : { dtype: x.dtype, shape: [...shapes[i]!], buffer: out, byteOffset: o.byteOffset, byteLength: o.byteLength })) as unknown as GpuTensor<D>[];
    return { outputs, stats };
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output. */
  async splitHost<D extends FixedDType>(plan: SplitPlan, x: HostTensor<D>, strategy: Strategy | 'auto',
    shapes: readonly (readonly number[])[] = plan.outputShapes): Promise<{ outputs: HostTensor<D>[]; stats: SplitStats }> {
    const gp = planGpu(plan, this.limits, { srcByteOffset: 0, allowAlias: false, strategy });
    const pipeline = gp.strategy === 'gather' ? await gatherPipeline(this.device, gp.unitBytes) : undefined;
    this.checkUsable();
    const bytes = bytesOf(x.data as TypedArray);
    const input = this.take(align(Math.max(bytes.byteLength, 4), 4), STORAGE());
    writePadded(this.device.queue, input, bytes);
    const staging = this.take(gp.bufferBytes, STAGING());
    const enc = this.device.createCommandEncoder({ label: 'cleave-split-host' });
    if (gp.strategy === 'copy') {
      this.submit(enc, [input, ...this.encode(enc, gp, input, staging, pipeline)]);
    } else {
      const out = this.take(gp.bufferBytes, STORAGE());
      const scratch = this.encode(enc, gp, input, out, pipeline);
      enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
      this.submit(enc, [input, out, ...scratch]);
    }
    const outputs = await this.readBack(staging, gp.outputs, x.dtype, shapes) as HostTensor<D>[];
    return { outputs, stats: statsOf(gp) };
  }

  /** Ends `t`'s use; its buffer returns to the pool when no tensor of its lease is left. Unknown tensors are ignored. */
  release(t: GpuTensor | undefined): void {
    const lease = t && LeasedTensor.release(t);
    if (!lease || lease.live > 0 || this.leased.get(lease.buffer) !== lease) return;
    this.leased.delete(lease.buffer);
    if (!this.destroyed) this.give(lease.buffer);
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.owned) b.destroy();
    this.owned.clear();
    this.leased.clear();
    this.pools.clear();
    this.pooledBytes = 0;
    this.device.removeEventListener?.('uncapturederror', this.onError);
  }

  /** The buffer's current lease, begun if it has none. */
  private lease(buffer: GPUBuffer): Lease {
    let lease = this.leased.get(buffer);
    if (!lease) this.leased.set(buffer, (lease = { buffer, live: 0 }));
    return lease;
  }

  /**
   * Submits, then returns the scratch buffers to their pools: queue order makes them safe to reuse
   * by the next split at once, and a pool may only destroy a buffer whose commands are submitted.
   */
  private submit(enc: GPUCommandEncoder, scratch: readonly GPUBuffer[]): void {
    this.device.queue.submit([enc.finish()]);
    for (const b of scratch) this.give(b);
  }

  /** Records the split's commands; returns the scratch buffers they use. */
  private encode(enc: GPUCommandEncoder, gp: GpuPlan, src: GPUBuffer, dst: GPUBuffer, pipeline: GPUComputePipeline | undefined): GPUBuffer[] {
    if (gp.strategy === 'copy') {
      for (const r of gp.regions) {
        for (let row = 0; row < r.rows; row++) {
          enc.copyBufferToBuffer(src, r.src + row * r.srcStride, dst, r.dst + row * r.rowLen, r.rowLen);
        }
      }
      return [];
    }
    const L = this.layout;
    const { bytes, bases } = encodeRegions(gp.dispatches, L);
    const regionBuf = this.take(bytes.byteLength, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    this.device.queue.writeBuffer(regionBuf, 0, bytes);
    const slot = align(L.params.size, this.device.limits.minUniformBufferOffsetAlignment);
    const params = new DataView(new ArrayBuffer(slot * gp.dispatches.length));
    gp.dispatches.forEach((d, i) => encodeParams(params, i * slot, L, bases[i]!, d));
    const paramBuf = this.take(params.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.device.queue.writeBuffer(paramBuf, 0, params.buffer);

    const bgl = gatherBindGroupLayout(this.device);
    const pass = enc.beginComputePass({ label: 'cleave-gather' });
    pass.setPipeline(pipeline!);
    const maxDim = this.device.limits.maxComputeWorkgroupsPerDimension;
    gp.dispatches.forEach((d, i) => {
      pass.setBindGroup(0, this.device.createBindGroup({
        layout: bgl,
        entries: [
          { binding: L.bindings.params, resource: { buffer: paramBuf, offset: i * slot, size: L.params.size } },
          { binding: L.bindings.regions, resource: { buffer: regionBuf, offset: 0, size: bytes.byteLength } },
          { binding: L.bindings.src, resource: { buffer: src, offset: d.srcWindow[0], size: d.srcWindow[1] } },
          { binding: L.bindings.dst, resource: { buffer: dst, offset: d.dstWindow[0], size: d.dstWindow[1] } },
        ],
      }));
      const [x, y] = foldGrid(Math.ceil(d.threads / L.workgroupSize), maxDim);
      pass.dispatchWorkgroups(x, y);
    });
    pass.end();
    return [regionBuf, paramBuf];
  }

  private async readBack(staging: GPUBuffer, parts: GpuPlan['outputs'], dtype: FixedDType,
    shapes: readonly (readonly number[])[]): Promise<HostTensor[]> {
    try {
      await staging.mapAsync(GPUMapMode.READ);
    } catch (e) {
      this.checkUsable();
      throw new SplitError('GPU_ERROR', `reading results back failed: ${(e as Error).message}`);
    }
    const all = new Uint8Array(staging.getMappedRange());
    const out = parts.map((p, i) => ({
      dtype, shape: [...shapes[i]!],
      data: hostDataFromBytes(dtype, all.subarray(p.byteOffset, p.byteOffset + p.byteLength)),
    }) as HostTensor);
    staging.unmap();
    if (!this.destroyed) this.give(staging);
    return out;
  }

  private create(size: number, usage: GPUBufferUsageFlags, mappedAtCreation = false): GPUBuffer {
    check(!this.destroyed, 'RELEASED', () => 'this engine was destroyed');
    check(size <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `a ${size}-byte buffer exceeds this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    const b = this.device.createBuffer({ label: 'cleave', size, usage, mappedAtCreation });
    this.owned.add(b);
    this.ours.add(b);
    return b;
  }

  /**
   * A pooled buffer for `size` bytes. Small scratch sizes round up to a power of two so they are
   * found again; large ones, and `exact` requests (outputs a caller keeps), take that very size.
   */
  private take(size: number, usage: GPUBufferUsageFlags, exact = false): GPUBuffer {
    const pow2 = 2 ** Math.ceil(Math.log2(Math.max(size, 256)));
    const want = exact || pow2 > POOL_BYTES / 4 ? align(Math.max(size, 4), 4) : pow2;
    const b = this.pools.get(`${usage}:${want}`)?.shift();
    if (!b) return this.create(want, usage);
    this.pooledBytes -= b.size;
    return b;
  }

  /** Returns a buffer to its pool; past POOL_BYTES, the oldest pooled buffers are destroyed. */
  private give(b: GPUBuffer): void {
    if (b.size > POOL_BYTES) {
      this.owned.delete(b);
      b.destroy();
      return;
    }
    const key = `${b.usage}:${b.size}`;
    const pool = this.pools.get(key) ?? [];
    pool.push(b);
    this.pools.set(key, pool);
    this.pooledBytes += b.size;
    for (const [k, list] of this.pools) {
      while (this.pooledBytes > POOL_BYTES && list.length > 0) {
        const old = list.shift()!;
        this.pooledBytes -= old.size;
        this.owned.delete(old);
        old.destroy();
      }
      if (list.length === 0) this.pools.delete(k);
    }
  }
}

/** A caller's buffer must allow what the plan does with it: refused before any GPU work. */
function requireUsage(b: GPUBuffer, flag: number, name: string, what: string): void {
  check((b.usage & flag) !== 0, 'BAD_INPUT', () => `${what}: the input's GPU buffer needs usage ${name} for this split`);
  check(b.mapState === 'unmapped', 'BAD_INPUT', () => `${what}: the input's GPU buffer is ${b.mapState}; unmap it first`);
}

/** writeBuffer needs a multiple of 4 bytes: the tail goes through a padded copy. */
function writePadded(queue: GPUQueue, buffer: GPUBuffer, bytes: Uint8Array): void {
  const body = bytes.byteLength & ~3;
  if (body > 0) queue.writeBuffer(buffer, 0, bytes, 0, body);
  if (body < bytes.byteLength) {
    const tail = new Uint8Array(4);
    tail.set(bytes.subarray(body));
    queue.writeBuffer(buffer, body, tail);
  }
}

/** Folds a workgroup count into a 2-D grid when it exceeds one dimension's limit. */
export function foldGrid(groups: number, maxDim: number): [number, number] {
  if (groups <= maxDim) return [groups, 1];
  const y = Math.ceil(groups / maxDim);
  return [Math.ceil(groups / y), y];
}
