// The GPU executor of one engine: its device and limits, its buffer pool, its caches of tables and
// GPU plans, and the caller's buffers it has split without error. Every split records and submits
// its commands synchronously, at the call, inside its own error scopes: the bytes it reads are the
// ones there when it was called, and a GPU error it causes is its own. The paths are modules of
// their own: GPU-resident inputs (resident.ts, with scope-policy.ts), and host tensors, uploads and
// downloads (host.ts).

import type { SplitError } from '../errors.js';
import type { IntoPlan } from '../read/into.js';
import type { SplitPlan } from '../planner/split.js';
import type { GatherPlan, GpuLimits, GpuPlan, Strategy } from '../planner/types.js';
import { GpuPlanCache } from '../cache/gpu-plans.js';
import type { SplitStats } from '../stats.js';
import { type Targets, encodeGather } from './encode.js';
import { endAll, trackBuffer } from './leases.js';
import { pipelineFor, pipelinesCreated } from './pipelines.js';
import { BufferPool } from './pool.js';
import { scoped } from './scope.js';
import { BOTH } from './scope-policy.js';
import { type Table, TableCache } from './tables.js';
import { limitsOf } from './device.js';
import { type DeviceCosts, costsRecord } from './calibrate.js';

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

/** A plan with GPU commands to record. */
export type Work = Exclude<GpuPlan, { strategy: 'alias' }>;

export class GpuExecutor {
  readonly limits: GpuLimits;
  readonly pool: BufferPool;
  readonly tables: TableCache;
  readonly plans: GpuPlanCache;
  /** The device's costs, as the planner reads them (`calibrate.ts`). */
  readonly costs: DeviceCosts;
  /**
   * Buffers not this engine's whose last split here settled with no GPU error: they are on this
   * device, and were not destroyed then.
   */
  readonly seen = new WeakSet<GPUBuffer>();

  /**
   * `guard` throws when the engine was destroyed or its device lost (checked again after every
   * wait); `onLate` hears the GPU error of a split that resolved before its errors were known.
   */
  constructor(
    readonly device: GPUDevice,
    readonly guard: (what: string) => void,
    readonly onLate: (error: SplitError) => void,
  ) {
    this.costs = costsRecord(device);
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

  destroy(): void {
    endAll(this.pool.buffers());
    this.pool.destroy();
  }

  /** One command buffer, recorded and submitted inside the call's own error scopes (`scopes`). */
  submit<T>(
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

  /** Records a gather into `enc` with its table (cached) and pipeline; returns the table. */
  gather(enc: GPUCommandEncoder, gp: GatherPlan, src: GPUBuffer, targets: Targets): Table {
    const table = this.tables.get(gp.dispatches);
    encodeGather(this.device, enc, gp, table, pipelineFor(this.device, gp.unitBits, gp.msbFirst), src, targets);
    return table;
  }
}
