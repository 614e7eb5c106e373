// The resident path: splits of a tensor already on the GPU, submitted by the engine or recorded
// into a caller's encoder. Outputs are views of the input, or written to buffers from the pool and
// to the caller's destinations; they go to the caller under leases. Which error scopes a submitted
// split waits for is scope-policy.ts's decision.

import type { GpuTensor } from '../tensor.js';
import type { GpuView } from '../read/tensor.js';
import { align4 } from '../planner/dispatch.js';
import { statsOf } from '../stats.js';
import { type Targets, encodeCopies } from './encode.js';
import { type Lease, checkLive, handOut, handOutAll, leaseFor, leaseOn, settle } from './leases.js';
import { lateError, throwIfFailed } from './scope.js';
import { scopePolicy } from './scope-policy.js';
import type { Table } from './tables.js';
import { TENSOR_USAGE, USAGE, requireUsage } from '../usage.js';
import { calibrateSoon } from './calibrate.js';
import type { GpuExecutor, SplitRequest, SplitResult, Work } from './executor.js';

/** A resident split after planning: finished (views, or no outputs), or work to record. */
type Prepared =
  | { readonly work?: undefined; readonly done: SplitResult<GpuTensor> }
  | {
      readonly work: Work;
      /** The input lies in a buffer of this engine's pool. */
      readonly owned: boolean;
      /** The outputs on these target buffers (see Targets), going to `home` when released. */
      readonly result: (targets: Targets, home: Lease['home']) => SplitResult<GpuTensor>;
    };

/**
 * Splits a GPU-resident tensor: recorded and submitted now, inside the error scopes its policy
 * asks for. Finished at once when it has no scope to wait for (views, or only this engine's own
 * buffers) or resolves early; else a promise that settles with its scopes.
 */
export function splitResident(
  gpu: GpuExecutor,
  req: SplitRequest,
  x: GpuView,
): SplitResult<GpuTensor> | Promise<SplitResult<GpuTensor>> {
  const p = prepare(gpu, req, x);
  if (!p.work) return p.done;
  const pooled = gpu.pool.has(outputBuffers(p.work), TENSOR_USAGE);
  const theirs = [...(p.owned ? [] : [x.buffer]), ...(req.into?.buffers.filter((b) => !ours(gpu, b)) ?? [])];
  const { early, scopes } = scopePolicy(
    theirs.length,
    theirs.every((b) => gpu.seen.has(b)),
    pooled,
  );
  const { value, error } = gpu.submit('split', (enc) => record(gpu, enc, p.work, x.buffer, req), scopes);
  // Nothing of the caller's and nothing allocated: these commands cannot fail.
  if (scopes.length === 0) return p.result(value.targets, gpu.pool);
  const forget = () => theirs.forEach((b) => gpu.seen.delete(b));
  if (early) {
    const r = p.result(value.targets, gpu.pool);
    const fate = lateError('split', error);
    settle(r.outputs, fate);
    void fate.then((e) => {
      if (!e) return;
      forget();
      gpu.onLate(e);
    });
    return r;
  }
  return throwIfFailed('split', error).then(
    () => {
      gpu.guard('split');
      for (const b of theirs) gpu.seen.add(b);
      return p.result(value.targets, gpu.pool);
    },
    (e: unknown) => {
      forget();
      for (const b of value.made) gpu.pool.give(b);
      throw e;
    },
  );
}

/**
 * Records the split of a GPU-resident tensor into a caller's encoder and returns at once: its
 * errors surface where the caller submits.
 */
export function encodeResident(
  gpu: GpuExecutor,
  req: SplitRequest,
  x: GpuView,
  encoder: GPUCommandEncoder,
): SplitResult<GpuTensor> {
  const p = prepare(gpu, req, x);
  if (!p.work) return p.done;
  const { targets, table } = record(gpu, encoder, p.work, x.buffer, req);
  // The caller submits when it likes: the table's last use is unknown from here on.
  if (table) gpu.tables.handOver(table);
  return p.result(targets, gpu.pool);
}

/**
 * What both resident splits share: the input checked, the plan, and either the finished result
 * (views, or no outputs) or the work to record and a function that hands out its outputs.
 */
function prepare(gpu: GpuExecutor, req: SplitRequest, x: GpuView): Prepared {
  const lease = checkLive(x, 'split');
  calibrateSoon(gpu.device, gpu.costs);
  const owned = lease?.home === gpu.pool;
  const { into } = req;
  const allowAlias = req.layout === 'shared' && (req.alias === 'any' || (req.alias === 'owned' && owned));
  const gp = gpu.plans.get(req.plan, {
    srcByteOffset: x.byteOffset,
    allowAlias,
    strategy: req.strategy,
    into: into?.places,
    separate: req.layout === 'separate',
  });
  const stats = statsOf(gp);
  // Outputs of an input whose own split's errors are still unknown share its fate.
  const upstream = lease?.settling;
  const result = (targets: Targets, home: Lease['home']): SplitResult<GpuTensor> => {
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
    const outputs = handOutAll(gp.outputs, targets, req.shapes, x.dtype, home, there);
    if (upstream) settle(outputs, upstream);
    return { outputs, stats };
  };
  if (gp.strategy === 'alias') return { done: result([x.buffer], undefined) };
  if (gp.outputs.length === 0) return { done: { outputs: [], stats } };
  // The engine's own buffers have TENSOR_USAGE and no map usage: only a caller's is asked (two native getters).
  if (owned) return { work: gp, owned, result };
  if (gp.strategy === 'gather') requireUsage(x.buffer, USAGE.STORAGE, 'STORAGE', 'split');
  else if (gp.copies.length > 0) requireUsage(x.buffer, USAGE.COPY_SRC, 'COPY_SRC', 'split');
  return { work: gp, owned, result };
}

/** Whether a buffer lies in this engine's pool under a live lease. */
function ours(gpu: GpuExecutor, b: GPUBuffer): boolean {
  return leaseOn(b)?.home === gpu.pool;
}

/** Each GPU plan's pool buffer sizes, found once: a kept plan comes back on every split of its shape. */
const bufferSizes = new WeakMap<Work, readonly number[]>();

/** The sizes of the output buffers a split takes from the pool: the shared one, and each output's own. */
function outputBuffers(gp: Work): readonly number[] {
  let sizes = bufferSizes.get(gp);
  if (!sizes) {
    const s = gp.bufferBytes > 0 ? [gp.bufferBytes] : [];
    for (const o of gp.outputs) if (o.own) s.push(align4(o.byteLength));
    bufferSizes.set(gp, (sizes = s));
  }
  return sizes;
}

/**
 * Records copies or the gather into `enc`; returns the target buffers (the shared one first, then the
 * caller's, then the outputs' own), the buffers it took from the pool, and the gather's table.
 */
function record(gpu: GpuExecutor, enc: GPUCommandEncoder, gp: Work, src: GPUBuffer, req: SplitRequest) {
  const made: GPUBuffer[] = [];
  const take = (n: number) => {
    const b = gpu.pool.take(n, TENSOR_USAGE);
    made.push(b);
    return b;
  };
  const targets: (GPUBuffer | undefined)[] = [gp.bufferBytes > 0 ? take(gp.bufferBytes) : undefined];
  if (req.into) targets.push(...req.into.buffers);
  for (const o of gp.outputs) if (o.own) targets[o.target!] = take(align4(o.byteLength));
  gpu.pool.took(made.length);
  let table: Table | undefined;
  if (gp.strategy === 'copy') encodeCopies(enc, gp.copies, src, gp.outputs, targets);
  else table = gpu.gather(enc, gp, src, targets);
  return { targets, made, table };
}
