// The GPU executor: carries out split plans on one device. Every split records and submits its
// commands synchronously, at the call, inside its own error scopes: the bytes it reads are the ones
// there when it was called, and a GPU error it causes is its own. It rejects the split, except in
// a caller's steady state (a buffer split here before, outputs from the pool), where the split
// resolves first and a later error poisons its outputs and goes to `onLate`. Buffers come from the
// engine's pool and go to the caller under leases; tables and pipelines are cached.

import { type SplitError, check } from '../errors.js';
import { hostDataFromBytes } from '../dtype.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import type { SplitPlan } from '../planner/split.js';
import { align4 } from '../planner/dispatch.js';
import type { GatherPlan, GpuLimits, GpuPlan, Strategy } from '../planner/gpu.js';
import type { IntoPlan } from '../read/into.js';
import { type SplitStats, statsOf } from '../stats.js';
import { type Targets, encodeCopies, encodeGather, encodeUnshare } from './encode.js';
import {
  type Lease,
  ScratchHome,
  checkLive,
  endAll,
  handOut,
  handOutAll,
  leaseFor,
  fateOf,
  leaseOn,
  poisoned,
  settle,
  trackBuffer,
} from './leases.js';
import { pipelineFor, pipelinesCreated } from './pipelines.js';
import { BufferPool } from './pool.js';
import { BOTH, lateError, scoped, throwIfFailed } from './scope.js';
import { type Table, TableCache } from './tables.js';
import { GpuPlanCache } from '../cache/gpu-plans.js';
import { STAGING_USAGE, TENSOR_USAGE, USAGE, requireUsage } from '../usage.js';
import { limitsOf } from './device.js';
import { calibrateSoon } from './calibrate.js';
import { readBack, writePadded } from './transfer.js';

/** What one split asks for, beyond its plan. */
export interface SplitRequest {
  readonly plan: SplitPlan;
  /** Output shapes to report (the plan's, or a node's when it drops the axis). */
  readonly shapes: readonly (readonly number[])[];
  readonly strategy: Strategy | 'auto';
  readonly layout: 'shared' | 'separate';
  readonly alias: 'owned' | 'any' | 'none';
  /** The caller's destinations, checked (`readInto`). */
  readonly into?: IntoPlan;
}

export interface SplitResult<T> {
  readonly outputs: T[];
  readonly stats: SplitStats;
}

type Work = Exclude<GpuPlan, { strategy: 'alias' }>;

const VALIDATION: readonly GPUErrorFilter[] = ['validation'];

/** A resident split after planning: finished (views, or no outputs), or work to record. */
type Prepared =
  | { readonly work?: undefined; readonly done: SplitResult<GpuTensor> }
  | {
      readonly work: Work;
      /** The input lies in a buffer of this engine's pool. */
      readonly owned: boolean;
      /** The outputs on these buffers, going to `home` when released. */
      readonly result: (buffers: readonly (GPUBuffer | undefined)[], home: Lease['home']) => SplitResult<GpuTensor>;
    };

/**
 * The output buffers a split takes: with layout 'separate', one per output the engine places (0:
 * none, a caller's destination); the shared one unless a separate copy or the destinations need none.
 */
function outputBuffers(gp: Work, layout: SplitRequest['layout']): { own?: number[]; shared?: number } {
  const own = layout === 'separate' ? gp.outputs.map((o) => (o.target ? 0 : align4(o.byteLength))) : undefined;
  return (own && gp.strategy === 'copy') || gp.bufferBytes === 0 ? { own } : { own, shared: gp.bufferBytes };
}

export class GpuExecutor {
  readonly limits: GpuLimits;
  private readonly pool: BufferPool;
  private readonly tables: TableCache;
  private readonly plans: GpuPlanCache;
  /**
   * Buffers not this engine's whose last split here settled with no GPU error: they are on this
   * device, and were not destroyed then.
   */
  private readonly seen = new WeakSet<GPUBuffer>();

  /**
   * `guard` throws when the engine was destroyed or its device lost (checked again after every
   * wait); `onLate` hears the GPU error of a split that resolved before its errors were known.
   */
  constructor(
    readonly device: GPUDevice,
    private readonly guard: (what: string) => void,
    private readonly onLate: (error: SplitError) => void,
  ) {
    this.limits = limitsOf(device);
    this.pool = new BufferPool(device, trackBuffer);
    this.tables = new TableCache(device, this.pool);
    this.plans = new GpuPlanCache(this.limits);
  }

  get liveBuffers(): number {
    return this.pool.live;
  }

  get pipelinesCreated(): number {
    return pipelinesCreated(this.device);
  }

  upload(x: HostView): GpuTensor {
    check(
      x.bytes.length <= this.limits.maxBufferBytes,
      'TOO_LARGE',
      () => `upload: ${x.bytes.length} bytes exceed maxBufferSize`,
      'input:input',
    );
    const buffer = this.pool.take(align4(x.bytes.length), TENSOR_USAGE);
    writePadded(this.device.queue, buffer, x.bytes);
    return handOut(leaseFor(buffer, this.pool), x.dtype as GpuTensor['dtype'], x.shape, 0, x.bytes.length);
  }

  async download(x: GpuView): Promise<HostTensor> {
    checkLive(x, 'download');
    if (!x.byteLength)
      return { dtype: x.dtype, shape: x.shape, data: hostDataFromBytes(x.dtype, new Uint8Array(0)) } as HostTensor;
    requireUsage(x.buffer, USAGE.COPY_SRC, 'COPY_SRC', 'download');
    const from = x.byteOffset & ~3;
    const size = align4(x.byteOffset + x.byteLength - from);
    const staging = this.pool.take(size, STAGING_USAGE);
    const fate = fateOf(x, 'download');
    const { error } = this.submit('download', (enc) => enc.copyBufferToBuffer(x.buffer, from, staging, 0, size));
    const [bytes] = await this.readBack(
      'download',
      staging,
      error,
      [{ byteOffset: x.byteOffset - from, byteLength: x.byteLength }],
      x.dtype,
      [x.shape],
    );
    // The tensor's split resolved before its GPU errors were known: its bytes are the split's only if it did not fail.
    const failed = await fate;
    if (failed) throw poisoned('download', failed);
    return bytes!;
  }

  /**
   * Splits a GPU-resident tensor: recorded and submitted now, inside error scopes unless it cannot
   * fail; then its scopes are awaited, except in a caller's steady state (see `early`).
   */
  async splitResident(req: SplitRequest, x: GpuView): Promise<SplitResult<GpuTensor>> {
    const p = this.prepare(req, x);
    if (!p.work) return p.done;
    // Commands on this engine's own live buffers, all taken from the pool, cannot fail: they skip
    // the error scopes' round trip (most of a small split's time in a browser). Anything else runs
    // inside them. A caller's buffer split here before without error is on this device, and with
    // every output from the pool nothing is allocated: the one error left is the caller having
    // destroyed it since. Such a split resolves without waiting for its scopes; an error they
    // report later poisons its outputs and goes to `onLate`.
    // The same holds for a caller's destinations (`into`): every one seen before, or all unscoped
    // only when every buffer is this engine's own, live.
    const { own = [], shared } = outputBuffers(p.work, req.layout);
    const pooled = this.pool.has(
      [...own.filter((n) => n > 0), ...(shared === undefined ? [] : [shared])],
      TENSOR_USAGE,
    );
    const theirs = [...(p.owned ? [] : [x.buffer]), ...(req.into?.buffers.filter((b) => !this.ours(b)) ?? [])];
    const early = theirs.length > 0 && pooled && theirs.every((b) => this.seen.has(b));
    // Nothing allocated: an out-of-memory error cannot happen, and only validation is scoped.
    const scopes = theirs.length === 0 && pooled ? [] : early ? VALIDATION : BOTH;
    const { value, error } = this.submit('split', (enc) => this.record(enc, p.work, x.buffer, req), scopes);
    for (const b of value.scratch) this.pool.give(b);
    const forget = () => theirs.forEach((b) => this.seen.delete(b));
    if (early) {
      const r = p.result(value.buffers, this.pool);
      const fate = lateError('split', error);
      settle(r.outputs, fate);
      void fate.then((e) => {
        if (!e) return;
        forget();
        this.onLate(e);
      });
      return r;
    }
    try {
      await throwIfFailed('split', error);
    } catch (e) {
      forget();
      for (const b of value.buffers) if (b) this.pool.give(b);
      throw e;
    }
    this.guard('split');
    for (const b of theirs) this.seen.add(b);
    return p.result(value.buffers, this.pool);
  }

  /**
   * Records the split of a GPU-resident tensor into a caller's encoder and returns at once: its
   * errors surface where the caller submits.
   */
  encodeResident(req: SplitRequest, x: GpuView, encoder: GPUCommandEncoder): SplitResult<GpuTensor> {
    const p = this.prepare(req, x);
    if (!p.work) return p.done;
    const { buffers, scratch, table } = this.record(encoder, p.work, x.buffer, req);
    // The caller submits when it likes: the table's last use is unknown from here on.
    if (table) this.tables.handOver(table);
    if (scratch.length === 0) return p.result(buffers, this.pool);
    // Scratch may be reused only after the caller's submit has run: it goes home with the last output.
    const placed = p.work.outputs.filter((o) => !o.target).length;
    return p.result(buffers, new ScratchHome(this.pool, scratch, placed));
  }

  /**
   * What both resident splits share: the input checked, the plan, and either the finished result
   * (views, or no outputs) or the work to record and a function that hands out its outputs.
   */
  private prepare(req: SplitRequest, x: GpuView): Prepared {
    checkLive(x, 'split');
    calibrateSoon(this.device);
    const owned = this.ours(x.buffer);
    const { into } = req;
    const allowAlias = req.layout === 'shared' && (req.alias === 'any' || (req.alias === 'owned' && owned));
    const gp = this.plans.get(req.plan, {
      srcByteOffset: x.byteOffset,
      allowAlias,
      strategy: req.strategy,
      into: into?.places,
    });
    const stats = statsOf(gp, req.layout === 'separate');
    // Outputs of an input whose own split's errors are still unknown share its fate.
    const upstream = fateOf(x, 'split');
    const result = (buffers: readonly (GPUBuffer | undefined)[], home: Lease['home']): SplitResult<GpuTensor> => {
      // Outputs at a caller's destination describe it; they hold its lease when Cleave made the buffer.
      const there = (i: number) => {
        const d = into!.places[i]!;
        const t = handOut(
          leaseFor(into!.buffers[d.target - 1]!, undefined),
          x.dtype,
          req.shapes[i]!,
          d.byteOffset,
          gp.outputs[i]!.byteLength,
        );
        const strides = into!.strides[i];
        return strides ? Object.assign(t, { strides }) : t;
      };
      const outputs = handOutAll(gp.outputs, buffers, req.layout, req.shapes, x.dtype, home, there);
      if (upstream) settle(outputs, upstream);
      return { outputs, stats };
    };
    if (gp.strategy === 'alias') return { done: result([x.buffer], undefined) };
    if (gp.outputs.length === 0) return { done: { outputs: [], stats } };
    if (gp.strategy === 'gather') requireUsage(x.buffer, USAGE.STORAGE, 'STORAGE', 'split');
    else if (gp.copies.length > 0) requireUsage(x.buffer, USAGE.COPY_SRC, 'COPY_SRC', 'split');
    return { work: gp, owned, result };
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output. */
  async splitHost(req: SplitRequest, x: HostView): Promise<SplitResult<HostTensor>> {
    calibrateSoon(this.device);
    const gp = this.plans.get(req.plan, { srcByteOffset: 0, allowAlias: false, strategy: req.strategy }) as Work;
    const staging = this.pool.take(gp.bufferBytes, STAGING_USAGE);
    const input = this.pool.take(align4(x.bytes.length), TENSOR_USAGE);
    const { value, error } = this.submit('split', (enc) => {
      writePadded(this.device.queue, input, x.bytes);
      if (gp.strategy === 'copy') return encodeCopies(enc, gp.copies, input, gp.outputs, { targets: [staging] });
      const out = this.pool.take(gp.bufferBytes, TENSOR_USAGE);
      this.gather(enc, gp, input, [out]);
      enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
      return out;
    });
    this.pool.give(input);
    if (value) this.pool.give(value);
    return {
      outputs: await this.readBack('split', staging, error, gp.outputs, x.dtype as GpuView['dtype'], req.shapes),
      stats: statsOf(gp, false),
    };
  }

  destroy(): void {
    endAll(this.pool.buffers());
    this.pool.destroy();
  }

  /** One command buffer, recorded and submitted inside the call's own error scopes (`scopes`). */
  private submit<T>(
    what: string,
    record: (enc: GPUCommandEncoder) => T,
    scopes = BOTH,
  ): { value: T; error: Promise<string | undefined> } {
    return scoped(
      this.device,
      () => {
        const enc = this.device.createCommandEncoder({ label: `cleave-${what}` });
        const value = record(enc);
        this.device.queue.submit([enc.finish()]);
        return value;
      },
      scopes,
    );
  }

  /** Whether a buffer lies in this engine's pool under a live lease. */
  private ours(b: GPUBuffer): boolean {
    return leaseOn(b)?.home === this.pool;
  }

  /**
   * Records copies or the gather into `enc`; returns the output buffers (one, or one per output:
   * undefined for those at a caller's destination), scratch, and the gather's table.
   */
  private record(enc: GPUCommandEncoder, gp: Work, src: GPUBuffer, req: SplitRequest) {
    const sizes = outputBuffers(gp, req.layout);
    const own = sizes.own?.map((n) => (n ? this.pool.take(n, TENSOR_USAGE) : undefined));
    const shared = sizes.shared === undefined ? undefined : this.pool.take(sizes.shared, TENSOR_USAGE);
    const to: Targets = { targets: [shared, ...(req.into?.buffers ?? [])], own };
    let table: Table | undefined;
    if (gp.strategy === 'copy') encodeCopies(enc, gp.copies, src, gp.outputs, to);
    else table = this.gather(enc, gp, src, to.targets);
    if (own && shared) encodeUnshare(enc, shared, gp.outputs, own);
    return own ? { buffers: own, scratch: shared ? [shared] : [], table } : { buffers: [shared], scratch: [], table };
  }

  private gather(enc: GPUCommandEncoder, gp: GatherPlan, src: GPUBuffer, targets: Targets['targets']): Table {
    const table = this.tables.get(gp.dispatches);
    encodeGather(this.device, enc, gp, table, pipelineFor(this.device, gp.unitBits, gp.msbFirst), src, targets);
    return table;
  }

  /** Waits for the staging buffer and the call's scopes; slices the outputs out of it. */
  private async readBack(
    what: string,
    staging: GPUBuffer,
    error: Promise<string | undefined>,
    parts: GpuPlan['outputs'],
    dtype: GpuView['dtype'],
    shapes: SplitRequest['shapes'],
  ): Promise<HostTensor[]> {
    try {
      return await readBack(staging, parts, dtype, shapes, error, what);
    } catch (e) {
      this.guard(what); // destroyed or lost meanwhile: say that instead
      throw e;
    } finally {
      this.pool.give(staging);
    }
  }
}
