// The GPU executor: carries out a GpuPlan on one device. It owns the buffers it creates (counted,
// so release/destroy can free them) and small pools for the host-in/host-out path, so a split of a
// host tensor is one upload, one submit and one mapAsync of a single staging buffer.

import { SplitError, check } from '../errors.js';
import { type FixedDType, type TypedArray, bytesOf, hostDataFromBytes } from '../dtype.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import { type GpuLimits, type GpuPlan, type SplitPlan, type Strategy, planGpu } from '../planner.js';
import { encodeParams, encodeRegions, gatherLayout } from './shader.js';
import { gatherBindGroupLayout, gatherPipeline, pipelinesCreated } from './pipelines.js';

const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

/** What the last split did on the GPU, for tests, the bench and the demo. */
export interface SplitStats {
  readonly strategy: Strategy | 'cpu';
  readonly unitBytes: number;
  readonly dispatches: number;
  readonly copies: number;
}

const align = (x: number, a: number) => Math.ceil(x / a) * a;

export class GpuExecutor {
  readonly limits: GpuLimits;
  private readonly layout = gatherLayout();
  /**
   * Buffers this executor created and has not destroyed: how many tensors view each, and which of
   * those were released. A buffer is destroyed when all its views are released. (A Set per buffer,
   * not a WeakSet of every tensor: releasing 4096 outputs must stay cheap.)
   */
  private readonly owned = new Map<GPUBuffer, { refs: number; readonly released: Set<object> }>();
  private readonly freed = new WeakSet<GPUBuffer>();
  private readonly pools = new Map<string, GPUBuffer[]>();
  private lostMessage: string | undefined;
  private gpuError: string | undefined;
  lastStats: SplitStats = { strategy: 'copy', unitBytes: 0, dispatches: 0, copies: 0 };

  constructor(readonly device: GPUDevice) {
    const l = device.limits;
    this.limits = {
      alignment: l.minStorageBufferOffsetAlignment,
      maxBindingBytes: l.maxStorageBufferBindingSize,
      maxBufferBytes: l.maxBufferSize,
    };
    void device.lost.then((info) => { this.lostMessage = info.message || info.reason || 'lost'; });
    device.addEventListener?.('uncapturederror', (e) => {
      this.gpuError = (e as GPUUncapturedErrorEvent).error.message;
    });
  }

  get pipelinesCreated(): number {
    return pipelinesCreated(this.device);
  }

  /** Number of buffers this executor created that are still alive (pools included). */
  get liveBuffers(): number {
    return this.owned.size;
  }

  /** Throws if the device is lost, reported an error, or `t` was released. */
  checkUsable(t?: object): void {
    check(this.lostMessage === undefined, 'DEVICE_LOST', () => `the GPU device was lost: ${this.lostMessage}`);
    if (this.gpuError !== undefined) {
      const msg = this.gpuError;
      this.gpuError = undefined;
      throw new SplitError('GPU_ERROR', `the GPU device reported an error: ${msg}`);
    }
    const b = (t as Partial<GpuTensor> | undefined)?.buffer;
    if (b) {
      check(!this.freed.has(b) && !this.owned.get(b)?.released.has(t!), 'RELEASED',
        () => 'this GPU tensor was released (or its engine destroyed) and can no longer be used');
    }
  }

  upload<D extends FixedDType>(t: HostTensor<D>): GpuTensor<D> {
    const bytes = bytesOf(t.data as TypedArray);
    check(bytes.byteLength <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `upload: ${bytes.byteLength} bytes exceed this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    const buffer = this.create(align(Math.max(bytes.byteLength, 4), 4), STORAGE(), true);
    new Uint8Array(buffer.getMappedRange()).set(bytes);
    buffer.unmap();
    this.own(buffer, 1);
    return { dtype: t.dtype, shape: [...t.shape], buffer, byteOffset: 0, byteLength: bytes.byteLength } as GpuTensor<D>;
  }

  async download<D extends FixedDType>(t: GpuTensor<D>): Promise<HostTensor<D>> {
    if (t.byteLength === 0) {
      return { dtype: t.dtype, shape: [...t.shape], data: hostDataFromBytes(t.dtype, new Uint8Array(0)) } as HostTensor<D>;
    }
    const from = Math.floor(t.byteOffset / 4) * 4;
    const size = align(Math.max(t.byteOffset + t.byteLength - from, 4), 4);
    const staging = this.take(size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(t.buffer, from, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    const [out] = await this.readBack(staging, [{ byteOffset: t.byteOffset - from, byteLength: t.byteLength }], [t.dtype], [t.shape]);
    return out as HostTensor<D>;
  }

  /** Splits a GPU-resident tensor; the outputs share one new buffer (or alias the input). */
  split<D extends FixedDType>(plan: SplitPlan, x: GpuTensor<D>, strategy: Strategy | 'auto'): GpuTensor<D>[] {
    const gp = planGpu(plan, this.limits, { srcByteOffset: x.byteOffset, allowAlias: true, strategy });
    if (gp.outputs.length === 0) return [];
    if (gp.strategy === 'alias') {
      this.lastStats = { strategy: 'alias', unitBytes: 0, dispatches: 0, copies: 0 };
      const input = this.owned.get(x.buffer);
      if (input) input.refs += gp.outputs.length;
      return this.views(x.buffer, gp, plan, x.dtype);
    }
    const out = this.create(gp.bufferBytes, STORAGE());
    this.own(out, gp.outputs.length);
    const enc = this.device.createCommandEncoder({ label: 'cleave-split' });
    this.encode(enc, gp, x.buffer, out);
    this.device.queue.submit([enc.finish()]);
    return this.views(out, gp, plan, x.dtype);
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output. */
  async splitHost<D extends FixedDType>(plan: SplitPlan, x: HostTensor<D>, strategy: Strategy | 'auto'): Promise<HostTensor<D>[]> {
    const gp = planGpu(plan, this.limits, { srcByteOffset: 0, allowAlias: false, strategy });
    const bytes = bytesOf(x.data as TypedArray);
    const input = this.take(align(Math.max(bytes.byteLength, 4), 4), STORAGE());
    writePadded(this.device.queue, input, bytes);
    const staging = this.take(gp.bufferBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    const enc = this.device.createCommandEncoder({ label: 'cleave-split-host' });
    if (gp.strategy === 'copy') {
      this.encode(enc, gp, input, staging);
    } else {
      const out = this.take(gp.bufferBytes, STORAGE());
      this.encode(enc, gp, input, out);
      enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
      this.give(out);
    }
    this.device.queue.submit([enc.finish()]);
    this.give(input);
    return this.readBack(staging, gp.outputs, plan.outputShapes.map(() => x.dtype), plan.outputShapes) as Promise<HostTensor<D>[]>;
  }

  release(t: GpuTensor): void {
    const o = this.owned.get(t.buffer);
    if (!o || o.released.has(t)) return;
    o.released.add(t);
    if (o.released.size >= o.refs) this.free(t.buffer);
  }

  destroy(): void {
    for (const b of [...this.owned.keys()]) this.free(b);
    this.pools.clear();
  }

  private encode(enc: GPUCommandEncoder, gp: GpuPlan, src: GPUBuffer, dst: GPUBuffer): void {
    if (gp.strategy === 'copy') {
      for (const r of gp.regions) enc.copyBufferToBuffer(src, r.src, dst, r.dst, r.rowLen);
      this.lastStats = { strategy: 'copy', unitBytes: 0, dispatches: 0, copies: gp.regions.length };
      return;
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

    const pipeline = gatherPipeline(this.device, gp.unitBytes);
    const bgl = gatherBindGroupLayout(this.device);
    const pass = enc.beginComputePass({ label: 'cleave-gather' });
    pass.setPipeline(pipeline);
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
    this.give(regionBuf);
    this.give(paramBuf);
    this.lastStats = { strategy: 'gather', unitBytes: gp.unitBytes, dispatches: gp.dispatches.length, copies: 0 };
  }

  private views<D extends FixedDType>(buffer: GPUBuffer, gp: GpuPlan, plan: SplitPlan, dtype: D): GpuTensor<D>[] {
    return gp.outputs.map((o, i) => ({ dtype, shape: plan.outputShapes[i]!, buffer, byteOffset: o.byteOffset, byteLength: o.byteLength }) as GpuTensor<D>);
  }

  private async readBack(staging: GPUBuffer, parts: GpuPlan['outputs'], dtypes: readonly FixedDType[],
    shapes: readonly (readonly number[])[]): Promise<HostTensor[]> {
    try {
      await staging.mapAsync(GPUMapMode.READ);
    } catch (e) {
      this.checkUsable();
      throw new SplitError('GPU_ERROR', `reading results back failed: ${(e as Error).message}`);
    }
    const all = new Uint8Array(staging.getMappedRange());
    const out = parts.map((p, i) => ({
      dtype: dtypes[i]!, shape: [...shapes[i]!],
      data: hostDataFromBytes(dtypes[i]!, all.subarray(p.byteOffset, p.byteOffset + p.byteLength)),
    }) as HostTensor);
    staging.unmap();
    this.give(staging);
    return out;
  }

  private own(b: GPUBuffer, refs: number): void {
    this.owned.set(b, { refs, released: new Set() });
  }

  private free(b: GPUBuffer): void {
    this.owned.delete(b);
    this.freed.add(b);
    b.destroy();
  }

  private create(size: number, usage: GPUBufferUsageFlags, mappedAtCreation = false): GPUBuffer {
    check(size <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `a ${size}-byte buffer exceeds this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    return this.device.createBuffer({ label: 'cleave', size, usage, mappedAtCreation });
  }

  /** A pooled scratch buffer of at least `size` bytes (power-of-two buckets). */
  private take(size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    const bucket = Math.max(256, 2 ** Math.ceil(Math.log2(Math.max(size, 4))));
    const pool = this.pools.get(`${usage}:${bucket}`);
    const b = pool?.pop();
    if (b) return b;
    const fresh = this.create(bucket <= this.limits.maxBufferBytes ? bucket : align(size, 4), usage);
    this.own(fresh, 1);
    return fresh;
  }

  /** Returns a scratch buffer to its pool (queue order makes reuse by a later submit safe). */
  private give(b: GPUBuffer): void {
    const key = `${b.usage}:${Math.max(256, 2 ** Math.ceil(Math.log2(b.size)))}`;
    const pool = this.pools.get(key) ?? [];
    pool.push(b);
    this.pools.set(key, pool);
  }
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
