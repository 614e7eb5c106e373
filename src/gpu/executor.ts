// The GPU executor: carries out a GpuPlan on one device. It owns the buffers it creates: output
// buffers, whose tensors it tracks so `release` frees a buffer once no output of it is left, and
// pooled buffers (released outputs, upload/staging scratch) that later splits reuse, because a
// fresh buffer costs an allocation and a zero-fill. A split of a host tensor is one upload, one
// submit and one mapAsync of a single staging buffer.

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

/** What the last split did on the GPU, for tests, the bench and the demo. */
export interface SplitStats {
  readonly strategy: Strategy | 'cpu';
  readonly unitBytes: number;
  readonly dispatches: number;
  readonly copies: number;
}

/** The tensors that view one output buffer: live ones, and released ones (to refuse their reuse). */
interface Views {
  readonly live: Set<object>;
  readonly released: Set<object>;
}

const align = (x: number, a: number) => Math.ceil(x / a) * a;

export class GpuExecutor {
  readonly limits: GpuLimits;
  private readonly layout = gatherLayout();
  /** Every live buffer this executor created; output buffers carry their views. */
  private readonly owned = new Map<GPUBuffer, Views | undefined>();
  /** Buffers free for reuse, by usage and size, oldest first. */
  private readonly pools = new Map<string, GPUBuffer[]>();
  private pooledBytes = 0;
  /** Output buffers whose tensors were all released (pooled or destroyed). */
  private readonly retired = new WeakSet<GPUBuffer>();
  private lostMessage: string | undefined;
  private gpuError: string | undefined;
  lastStats: SplitStats = { strategy: 'copy', unitBytes: 0, dispatches: 0, copies: 0 };

  constructor(readonly device: GPUDevice) {
    const l = device.limits;
    // On a CPU adapter a copy command is a memcpy, far faster than a shader moving the same bytes.
    const onCpu = /swiftshader|llvmpipe|lavapipe/i.test(`${device.adapterInfo?.architecture} ${device.adapterInfo?.description}`);
    this.limits = {
      alignment: l.minStorageBufferOffsetAlignment,
      maxBindingBytes: l.maxStorageBufferBindingSize,
      maxBufferBytes: l.maxBufferSize,
      rowCopyMinBytes: onCpu ? ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS : Infinity,
    };
    void device.lost.then((info) => { this.lostMessage = info.message || info.reason || 'lost'; });
    device.addEventListener?.('uncapturederror', (e) => {
      this.gpuError = (e as GPUUncapturedErrorEvent).error.message;
    });
    warmUp(device);
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
      check(!this.retired.has(b) && !this.owned.get(b)?.released.has(t!), 'RELEASED',
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
    const out = { dtype: t.dtype, shape: [...t.shape], buffer, byteOffset: 0, byteLength: bytes.byteLength } as GpuTensor<D>;
    this.owned.set(buffer, { live: new Set([out]), released: new Set() });
    return out;
  }

  async download<D extends FixedDType>(t: GpuTensor<D>): Promise<HostTensor<D>> {
    if (t.byteLength === 0) {
      return { dtype: t.dtype, shape: [...t.shape], data: hostDataFromBytes(t.dtype, new Uint8Array(0)) } as HostTensor<D>;
    }
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
    shapes: readonly (readonly number[])[] = plan.outputShapes): Promise<GpuTensor<D>[]> {
    const gp = planGpu(plan, this.limits, { srcByteOffset: x.byteOffset, allowAlias: true, strategy });
    if (gp.outputs.length === 0) return [];
    const pipeline = gp.strategy === 'gather' ? await gatherPipeline(this.device, gp.unitBytes) : undefined;
    this.checkUsable(x); // the input may have been released while the pipeline compiled
    let out = x.buffer;
    if (gp.strategy !== 'alias') {
      out = this.take(gp.bufferBytes, STORAGE(), true);
      const enc = this.device.createCommandEncoder({ label: 'cleave-split' });
      const scratch = this.encode(enc, gp, x.buffer, out, pipeline);
      this.submit(enc, scratch);
    } else {
      this.lastStats = { strategy: 'alias', unitBytes: 0, dispatches: 0, copies: 0 };
    }
    const outs = gp.outputs.map((o, i) =>
      ({ dtype: x.dtype, shape: [...shapes[i]!], buffer: out, byteOffset: o.byteOffset, byteLength: o.byteLength }) as GpuTensor<D>);
    // Aliases keep an engine-owned input buffer alive; a caller's own buffer stays the caller's.
    const views = this.owned.has(out) ? this.owned.get(out) : undefined;
    if (views) for (const t of outs) views.live.add(t);
    else if (out !== x.buffer) this.owned.set(out, { live: new Set(outs), released: new Set() });
    return outs;
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output. */
  async splitHost<D extends FixedDType>(plan: SplitPlan, x: HostTensor<D>, strategy: Strategy | 'auto',
    shapes: readonly (readonly number[])[] = plan.outputShapes): Promise<HostTensor<D>[]> {
    const gp = planGpu(plan, this.limits, { srcByteOffset: 0, allowAlias: false, strategy });
    const pipeline = gp.strategy === 'gather' ? await gatherPipeline(this.device, gp.unitBytes) : undefined;
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
    return this.readBack(staging, gp.outputs, x.dtype, shapes) as Promise<HostTensor<D>[]>;
  }

  /** Frees `t`'s buffer once every tensor viewing it is released; unknown tensors are ignored. */
  release(t: GpuTensor): void {
    const views = this.owned.get(t.buffer);
    if (!views || !views.live.delete(t)) return;
    views.released.add(t);
    if (views.live.size > 0) return;
    this.owned.set(t.buffer, undefined);
    this.retired.add(t.buffer);
    this.give(t.buffer);
  }

  destroy(): void {
    for (const b of this.owned.keys()) {
      this.retired.add(b);
      b.destroy();
    }
    this.owned.clear();
    this.pools.clear();
    this.pooledBytes = 0;
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
      let copies = 0;
      for (const r of gp.regions) {
        for (let row = 0; row < r.rows; row++, copies++) {
          enc.copyBufferToBuffer(src, r.src + row * r.srcStride, dst, r.dst + row * r.rowLen, r.rowLen);
        }
      }
      this.lastStats = { strategy: 'copy', unitBytes: 0, dispatches: 0, copies };
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
    this.lastStats = { strategy: 'gather', unitBytes: gp.unitBytes, dispatches: gp.dispatches.length, copies: 0 };
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
    this.give(staging);
    return out;
  }

  private create(size: number, usage: GPUBufferUsageFlags, mappedAtCreation = false): GPUBuffer {
    check(size <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `a ${size}-byte buffer exceeds this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    const b = this.device.createBuffer({ label: 'cleave', size, usage, mappedAtCreation });
    this.owned.set(b, undefined);
    return b;
  }

  /**
   * A pooled buffer for `size` bytes: scratch sizes round up to a power of two so they are found
   * again; `exact` (outputs a caller keeps) takes only a buffer of that very size.
   */
  private take(size: number, usage: GPUBufferUsageFlags, exact = false): GPUBuffer {
    const want = exact ? align(size, 4) : Math.max(256, 2 ** Math.ceil(Math.log2(Math.max(size, 4))));
    const b = this.pools.get(`${usage}:${want}`)?.shift();
    if (b) {
      this.pooledBytes -= b.size;
      this.retired.delete(b);
      this.owned.set(b, undefined);
      return b;
    }
    return this.create(want <= this.limits.maxBufferBytes ? want : align(size, 4), usage);
  }

  /** Returns a buffer to its pool; past POOL_BYTES, the oldest pooled buffers are destroyed. */
  private give(b: GPUBuffer): void {
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
