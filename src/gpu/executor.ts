// The GPU executor: carries out split plans on one device. Every split records and submits its
// commands synchronously, at the call, inside its own error scopes: the bytes it reads are the ones
// there when it was called, and a GPU error it causes rejects it alone. Buffers come from the
// engine's pool and go to the caller under leases; tables and pipelines are cached.

import { check } from '../errors.js';
import { hostDataFromBytes } from '../dtype.js';
import type { GpuTensor, GpuView, HostTensor, HostView } from '../tensor.js';
import type { SplitPlan } from '../planner/split.js';
import { type GpuLimits, type GpuPlan, type Strategy, ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS, planGpu } from '../planner/gpu.js';
import { type SplitStats, statsOf } from '../stats.js';
import { encodeCopies, encodeGather, encodeUnshare } from './encode.js';
import { type Lease, checkLive, handOut, leaseFor, leaseOn, trackBuffer } from './leases.js';
import { gatherPipelineNow, pipelinesCreated } from './pipelines.js';
import { BufferPool } from './pool.js';
import { scoped, throwIfFailed } from './scope.js';
import { TableCache } from './tables.js';
import { MAP_READ_MODE, STAGING_USAGE, TENSOR_USAGE, USAGE } from './usage.js';
import { readBack, writePadded } from './transfer.js';

/** What one split asks for, beyond its plan. */
export interface SplitRequest {
  readonly plan: SplitPlan;
  /** Output shapes to report (the plan's, or a node's when it drops the axis). */
  readonly shapes: readonly (readonly number[])[];
  readonly strategy: Strategy | 'auto';
  readonly layout: 'shared' | 'separate';
  readonly alias: 'owned' | 'any' | 'none';
}

export interface SplitResult<T> {
  readonly outputs: T[];
  readonly stats: SplitStats;
}

type Recorded = { readonly buffers: GPUBuffer[]; readonly scratch: GPUBuffer[] };

const align4 = (x: number) => Math.ceil(Math.max(x, 4) / 4) * 4;

export class GpuExecutor {
  readonly limits: GpuLimits;
  private readonly pool: BufferPool;
  private readonly tables: TableCache;

  /** `guard` throws when the engine was destroyed or its device lost (checked again after every wait). */
  constructor(readonly device: GPUDevice, private readonly guard: (what: string) => void) {
    const l = device.limits;
    // On a CPU adapter a copy command is a memcpy, far faster than a shader moving the same bytes.
    const onCpu = /swiftshader|llvmpipe|lavapipe/i.test(`${device.adapterInfo?.architecture} ${device.adapterInfo?.description}`);
    this.limits = {
      alignment: Math.max(4, l.minStorageBufferOffsetAlignment),
      maxBindingBytes: l.maxStorageBufferBindingSize,
      maxBufferBytes: l.maxBufferSize,
      rowCopyMinBytes: onCpu ? ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS : Infinity,
    };
    this.pool = new BufferPool(device, trackBuffer);
    this.tables = new TableCache(device, this.pool);
  }

  get liveBuffers(): number {
    return this.pool.live;
  }

  get pipelinesCreated(): number {
    return pipelinesCreated(this.device);
  }

  upload<D extends HostView['dtype']>(x: HostView): GpuTensor<Exclude<D, 'string'>> {
    check(x.bytes.byteLength <= this.limits.maxBufferBytes, 'TOO_LARGE',
      () => `upload: ${x.bytes.byteLength} bytes exceed this device's maxBufferSize of ${this.limits.maxBufferBytes}`);
    const buffer = this.pool.take(align4(x.bytes.byteLength), TENSOR_USAGE);
    writePadded(this.device.queue, buffer, x.bytes);
    return handOut(leaseFor(buffer, this.pool), x.dtype as Exclude<D, 'string'>, x.shape, 0, x.bytes.byteLength);
  }

  async download(x: GpuView): Promise<HostTensor> {
    checkLive(x, 'download');
    if (x.byteLength === 0) return { dtype: x.dtype, shape: x.shape, data: hostDataFromBytes(x.dtype, new Uint8Array(0)) } as HostTensor;
    requireUsage(x.buffer, USAGE.COPY_SRC, 'COPY_SRC', 'download');
    const from = Math.floor(x.byteOffset / 4) * 4;
    const size = align4(x.byteOffset + x.byteLength - from);
    const staging = this.pool.take(size, STAGING_USAGE);
    const rec = scoped(this.device, () => {
      const enc = this.device.createCommandEncoder({ label: 'cleave-download' });
      enc.copyBufferToBuffer(x.buffer, from, staging, 0, size);
      this.device.queue.submit([enc.finish()]);
    });
    const [out] = await this.finishReadback('download', staging, [rec.error], [{ byteOffset: x.byteOffset - from, byteLength: x.byteLength }], x, [x.shape]);
    return out!;
  }

  /** Splits a GPU-resident tensor; outputs stay on the GPU. */
  async splitResident(req: SplitRequest, x: GpuView): Promise<SplitResult<GpuTensor>> {
    checkLive(x, 'split');
    const gp = this.planFor(req, x);
    const stats = statsOf(gp, req.layout === 'separate');
    if (gp.strategy === 'alias') return { outputs: this.aliases(gp, req, x), stats };
    if (gp.outputs.length === 0) return { outputs: [], stats };
    requireInputUsage(x.buffer, gp);
    const rec = scoped(this.device, () => {
      const enc = this.device.createCommandEncoder({ label: 'cleave-split' });
      const r = this.record(enc, gp, x.buffer, req.layout, false);
      this.device.queue.submit([enc.finish()]);
      return r;
    });
    for (const b of rec.value.scratch) this.pool.give(b);
    try {
      await throwIfFailed('split', [rec.error]);
      this.guard('split');
    } catch (e) {
      for (const b of rec.value.buffers) this.pool.give(b);
      throw e;
    }
    return { outputs: this.handOutputs(gp, rec.value.buffers, req, x, this.pool), stats };
  }

  /** Records a GPU-resident split into a caller's encoder; nothing is submitted. */
  encodeSplit(enc: GPUCommandEncoder, req: SplitRequest, x: GpuView): SplitResult<GpuTensor> {
    checkLive(x, 'encodeSplit');
    const gp = this.planFor(req, x);
    const stats = statsOf(gp, req.layout === 'separate');
    if (gp.strategy === 'alias') return { outputs: this.aliases(gp, req, x), stats };
    if (gp.outputs.length === 0) return { outputs: [], stats };
    requireInputUsage(x.buffer, gp);
    const rec = this.record(enc, gp, x.buffer, req.layout, true);
    // Scratch may be reused only after the caller's submit has run: it goes home with the last output.
    let pending = gp.outputs.length;
    const home = rec.scratch.length === 0 ? this.pool : {
      give: (b: GPUBuffer) => {
        this.pool.give(b);
        if (--pending === 0) for (const s of rec.scratch) this.pool.give(s);
      },
    };
    return { outputs: this.handOutputs(gp, rec.buffers, req, x, home), stats };
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output. */
  async splitHost(req: SplitRequest, x: HostView): Promise<SplitResult<HostTensor>> {
    const gp = planGpu(req.plan, this.limits, { srcByteOffset: 0, allowAlias: false, strategy: req.strategy });
    if (gp.strategy === 'alias') throw new Error('unreachable: host inputs never alias');
    const staging = this.pool.take(gp.bufferBytes, STAGING_USAGE);
    const rec = scoped(this.device, () => {
      const input = this.pool.take(align4(x.bytes.byteLength), TENSOR_USAGE);
      writePadded(this.device.queue, input, x.bytes);
      const enc = this.device.createCommandEncoder({ label: 'cleave-split-host' });
      if (gp.strategy === 'copy') {
        encodeCopies(enc, gp.copies, input, gp.outputs, staging);
        this.device.queue.submit([enc.finish()]);
        return [input];
      }
      const out = this.pool.take(gp.bufferBytes, TENSOR_USAGE);
      encodeGather(this.device, enc, gp, this.tables.get(gp.dispatches, gp.msbFirst, false), gatherPipelineNow(this.device, gp.unitBits), input, out);
      enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
      this.device.queue.submit([enc.finish()]);
      return [input, out];
    });
    for (const b of rec.value) this.pool.give(b);
    const outputs = await this.finishReadback('split', staging, [rec.error], gp.outputs, x, req.shapes);
    return { outputs, stats: statsOf(gp, false) };
  }

  destroy(): void {
    for (const b of this.pool.buffers()) {
      const lease = leaseOn(b);
      if (lease) lease.ended = true;
    }
    this.pool.destroy();
  }

  private planFor(req: SplitRequest, x: GpuView): GpuPlan {
    const owned = leaseOn(x.buffer)?.home === this.pool;
    const allowAlias = req.layout === 'shared' && (req.alias === 'any' || (req.alias === 'owned' && owned));
    return planGpu(req.plan, this.limits, { srcByteOffset: x.byteOffset, allowAlias, strategy: req.strategy });
  }

  /** Records copies or the gather into `enc`; returns the output buffers (one, or one per output) and scratch. */
  private record(enc: GPUCommandEncoder, gp: Exclude<GpuPlan, { strategy: 'alias' }>, src: GPUBuffer,
    layout: SplitRequest['layout'], encoded: boolean): Recorded {
    const own = layout === 'separate' ? gp.outputs.map((o) => this.pool.take(align4(o.byteLength), TENSOR_USAGE)) : undefined;
    if (gp.strategy === 'copy') {
      const dst = own ?? [this.pool.take(gp.bufferBytes, TENSOR_USAGE)];
      encodeCopies(enc, gp.copies, src, gp.outputs, own ?? dst[0]!);
      return { buffers: dst, scratch: [] };
    }
    const out = this.pool.take(gp.bufferBytes, TENSOR_USAGE);
    const table = this.tables.get(gp.dispatches, gp.msbFirst, encoded);
    encodeGather(this.device, enc, gp, table, gatherPipelineNow(this.device, gp.unitBits), src, out);
    if (!own) return { buffers: [out], scratch: [] };
    encodeUnshare(enc, out, gp.outputs, own);
    return { buffers: own, scratch: [out] };
  }

  /** Views of the input: they join its lease (a caller's buffer gets a lease of its own, with no pool). */
  private aliases(gp: GpuPlan, req: SplitRequest, x: GpuView): GpuTensor[] {
    const lease = leaseFor(x.buffer, undefined);
    return gp.outputs.map((o, i) => handOut(lease, x.dtype, req.shapes[i]!, o.byteOffset, o.byteLength));
  }

  private handOutputs(gp: GpuPlan, buffers: readonly GPUBuffer[], req: SplitRequest, x: GpuView, home: Lease['home']): GpuTensor[] {
    if (buffers.length === 1 && req.layout === 'shared') {
      const lease = leaseFor(buffers[0]!, home);
      return gp.outputs.map((o, i) => handOut(lease, x.dtype, req.shapes[i]!, o.byteOffset, o.byteLength));
    }
    return gp.outputs.map((o, i) => handOut(leaseFor(buffers[i]!, home), x.dtype, req.shapes[i]!, 0, o.byteLength));
  }

  /** Waits for the staging buffer and the scopes; slices the outputs out of it. */
  private async finishReadback(what: string, staging: GPUBuffer, errors: readonly Promise<string | undefined>[],
    parts: GpuPlan['outputs'], x: { readonly dtype: HostView['dtype'] }, shapes: readonly (readonly number[])[]): Promise<HostTensor[]> {
    try {
      const out = await readBack(staging, MAP_READ_MODE, parts, x.dtype as GpuView['dtype'], shapes, errors, what);
      this.pool.give(staging);
      return out;
    } catch (e) {
      this.guard(what);
      this.pool.give(staging);
      throw e;
    }
  }
}

/** A caller's buffer must allow what the plan does with it: refused before any GPU work. */
function requireInputUsage(b: GPUBuffer, gp: Exclude<GpuPlan, { strategy: 'alias' }>): void {
  if (gp.strategy === 'gather') requireUsage(b, USAGE.STORAGE, 'STORAGE', 'split');
  else if (gp.copies.length > 0) requireUsage(b, USAGE.COPY_SRC, 'COPY_SRC', 'split');
}

function requireUsage(b: GPUBuffer, flag: number, name: string, what: string): void {
  const subject = { kind: 'input', name: 'input', part: 'buffer' } as const;
  check((b.usage & flag) !== 0, 'BAD_INPUT', () => `${what}: the input's GPU buffer needs usage ${name} for this split`, subject);
  check(b.mapState === 'unmapped', 'BAD_INPUT', () => `${what}: the input's GPU buffer is ${b.mapState}; unmap it first`, subject);
}
