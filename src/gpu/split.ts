// A split on the GPU: a program's GPU plans, one per placement of its input and outputs, each with the tile table and
// bind groups made for it, and how a split runs there. A placement is where the input starts and where each output
// goes, counted from a base that is a multiple of the device's storage offset alignment: a GPU plan made for those
// offsets holds at any such base, so a KV-cache slot that moves by whole alignments every step records the same plan
// at new bases. A placement no kept plan has is planned at the call, and the last few are kept. A split runs recorded
// into a caller's encoder, or submitted inside the error scopes it needs, its outputs handed out under leases.

import type { AnyTensor, GpuTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import type { Destinations } from '../read/into.js';
import type { SplitPlan } from '../planner/split.js';
import { planGpu } from '../planner/gpu.js';
import { align4 } from '../planner/dispatch.js';
import type { GpuPlan, Placement, Strategy } from '../planner/types.js';
import type { CostModel } from '../planner/costs.js';
import { check } from '../errors.js';
import { sameList } from '../shape.js';
import { type BindGroups, type Buffers, type Table, encodeCopies, encodeGather, makeTable } from './encode.js';
import { type GpuExecutor, SCOPES, lateError, throwIfFailed, writePadded } from './executor.js';
import { type Lease, checkLive, handOut, leaseFor, leaseOn, settle } from './leases.js';
import { calibrateSoon } from './calibrate.js';
import { STAGING_USAGE, TENSOR_USAGE } from '../usage.js';
import { findKept, keep } from '../kept.js';

/** A finished split: its outputs, and the GPU plan it ran (undefined on the CPU). */
export type Done = { readonly outputs: AnyTensor[]; readonly gp: GpuPlan | undefined };

/** One placement of a split (see above): its GPU plan, and the GPU objects made for it. */
interface Placed extends Placement {
  readonly costs: CostModel;
  readonly gp: GpuPlan;
  table?: Table;
  readonly groups: BindGroups;
  /** Recorded into a caller's encoder: its table's last use is unknown, so Cleave never destroys it. */
  handedOver: boolean;
}

/** Placements a program keeps: a KV-cache slot's offsets within an alignment, an input in either kind of buffer. */
const KEPT_PLACEMENTS = 4;

/**
 * Where a call's destinations put its outputs: their offsets within their buffers' bases, and each target buffer's
 * base (0 for the engine's own; for a destination buffer, its lowest destination's offset rounded down).
 */
type Where = { readonly dests?: Destinations; readonly into: Placement['into']; readonly bases: readonly number[] };

const NOWHERE: Where = { dests: undefined, into: undefined, bases: [0] };

export class GpuSplit {
  /** Placements planned, most recently used last. */
  readonly placed: Placed[] = [];
  /** The last call's destinations, worked out: a prepared split's are the same object every call. */
  private where = NOWHERE;

  constructor(
    readonly plan: SplitPlan,
    /** Output shapes as reported (a node's differ where keepdims=0 drops the axis). */
    readonly shapes: readonly (readonly number[])[],
    readonly layout: 'shared' | 'separate',
    readonly alias: 'owned' | 'any' | 'none' | undefined,
    readonly strategy: 'auto' | Strategy,
  ) {}

  /** Its GPU objects are no longer needed (its program is no longer kept, or was collected). */
  static retire(gpu: GpuExecutor, placed: readonly Placed[]): void {
    for (const p of placed) if (p.table) gpu.retire(p.table.buffer, p.handedOver);
  }

  /** The kept placement for these offsets and destinations, or a new one; and the base the input counts from. */
  private placement(gpu: GpuExecutor, srcByteOffset: number, allowAlias: boolean, w: Where) {
    const srcAt = srcByteOffset % gpu.limits.alignment;
    const costs = gpu.limits.costs;
    const list = this.placed;
    let p = findKept(
      list,
      (q) => q.srcByteOffset === srcAt && q.allowAlias === allowAlias && q.costs === costs && sameInto(q.into, w.into),
    );
    if (!p) {
      const at = { srcByteOffset: srcAt, allowAlias, strategy: this.strategy, into: w.into };
      const gp = planGpu(this.plan, gpu.limits, { ...at, separate: this.layout === 'separate' });
      const old = keep(list, (p = { ...at, costs, gp, groups: [], handedOver: false }), KEPT_PLACEMENTS);
      if (old) GpuSplit.retire(gpu, [old]);
    }
    return { p, srcBase: srcByteOffset - srcAt };
  }

  /** The call's destinations worked out (see Where), kept for the next call with the same ones. */
  private whereOf(dests: Destinations | undefined, alignment: number): Where {
    if (dests === this.where.dests) return this.where;
    if (!dests) return (this.where = NOWHERE);
    const bases = [0];
    for (const d of dests.places)
      if (d) bases[d.target] = Math.min(bases[d.target] ?? Infinity, d.byteOffset - (d.byteOffset % alignment));
    const into = dests.places.map((d) => d && { ...d, byteOffset: d.byteOffset - bases[d.target]! });
    return (this.where = { dests, into, bases });
  }

  /**
   * Splits a GPU-resident tensor: recorded into the caller's encoder, or submitted now inside the error scopes it
   * needs. Finished at once when it waits for no scope (views, the engine's own buffers, or a caller's buffers all
   * split here before, resolved early); else a promise that settles with its scopes.
   */
  resident(
    gpu: GpuExecutor,
    x: GpuView,
    dests: Destinations | undefined,
    what: string,
    encoder?: GPUCommandEncoder,
  ): Done | Promise<Done> {
    const lease = checkLive(x, what);
    calibrateSoon(gpu.device, gpu.costs);
    const ours = lease?.home === gpu.pool;
    const alias = this.alias ?? (encoder ? 'none' : 'owned');
    const allowAlias = !dests && this.layout === 'shared' && (alias === 'any' || (alias === 'owned' && ours));
    const w = this.whereOf(dests, gpu.limits.alignment);
    const { p, srcBase } = this.placement(gpu, x.byteOffset, allowAlias, w);
    const gp = p.gp;
    // Outputs of an input whose own split's errors are still unknown share its fate.
    const done = (targets: readonly (GPUBuffer | undefined)[], home: Lease['home'], bases = w.bases): Done => {
      const outputs = this.handOut(gp, x.dtype, targets, home, dests, bases);
      if (lease?.settling) settle(outputs, lease.settling);
      return { outputs, gp };
    };
    // Views count from the input's base.
    if (gp.strategy === 'alias') return done([x.buffer], undefined, [srcBase]);
    if (gp.outputs.length === 0) return { outputs: [], gp };
    check(
      ours || x.buffer.mapState === 'unmapped',
      'BAD_INPUT',
      () => `${what}: the input's GPU buffer is ${x.buffer.mapState}; unmap it first`,
      'input:input.buffer',
    );
    if (!encoder) return this.submit(gpu, p, x.buffer, srcBase, w, ours ? [] : [x.buffer], done, what);
    p.handedOver = true;
    return done(this.record(gpu, encoder, p, x.buffer, srcBase, w), gpu.pool);
  }

  /** Submits the split inside the scopes it needs (scopesFor), given the caller's buffers it touches (`theirs`). */
  private submit(
    gpu: GpuExecutor,
    p: Placed,
    src: GPUBuffer,
    srcBase: number,
    w: Where,
    theirs: GPUBuffer[],
    done: (targets: readonly (GPUBuffer | undefined)[], home: Lease['home']) => Done,
    what: string,
  ): Done | Promise<Done> {
    if (w.dests) for (const t of w.dests.buffers) if (leaseOn(t)?.home !== gpu.pool) theirs.push(t);
    let seen = true;
    for (const t of theirs) seen &&= gpu.seen.has(t);
    const { scopes, early } = scopesFor(theirs.length, seen, gpu.pool.has(p.gp.buffers, TENSOR_USAGE));
    const { value: targets, error } = gpu.submit((enc) => this.record(gpu, enc, p, src, srcBase, w), scopes);
    // Nothing of the caller's and nothing allocated: these commands cannot fail.
    if (scopes.length === 0) return done(targets, gpu.pool);
    const forget = () => theirs.forEach((t) => gpu.seen.delete(t));
    if (early) {
      const r = done(targets, gpu.pool);
      const fate = lateError(what, error);
      settle(r.outputs as GpuTensor[], fate);
      void fate.then((e) => {
        if (!e) return;
        forget();
        gpu.onLate(e);
      });
      return r;
    }
    return throwIfFailed(what, error).then(
      () => {
        gpu.alive(what);
        for (const t of theirs) gpu.seen.add(t);
        return done(targets, gpu.pool);
      },
      (e: unknown) => {
        forget();
        // The buffers it took from the pool: the shared one, and the outputs' own.
        for (const [t, b] of targets.entries())
          if (b && (t === 0 || t > (w.dests?.buffers.length ?? 0))) gpu.pool.give(b);
        throw e;
      },
    );
  }

  /**
   * Records the placement's copies or gather into `enc`, its output buffers taken from the pool; returns the target
   * buffers: the shared one first, then the caller's, then the outputs' own.
   */
  private record(gpu: GpuExecutor, enc: GPUCommandEncoder, p: Placed, src: GPUBuffer, srcBase: number, w: Where) {
    const gp = p.gp;
    const targets: (GPUBuffer | undefined)[] = [
      gp.bufferBytes > 0 ? gpu.pool.take(gp.bufferBytes, TENSOR_USAGE) : undefined,
    ];
    if (w.dests) for (const b of w.dests.buffers) targets.push(b);
    let bases = w.bases;
    if (this.layout === 'separate') {
      const own = [...bases];
      for (const o of gp.outputs)
        if (o.separate) [targets[o.target!], own[o.target!]] = [gpu.pool.take(align4(o.byteLength), TENSOR_USAGE), 0];
      bases = own;
    }
    gpu.pool.took(gp.buffers.length);
    this.encodeWork(gpu, enc, p, { src, srcBase, targets, bases });
    return targets;
  }

  private encodeWork(gpu: GpuExecutor, enc: GPUCommandEncoder, p: Placed, b: Buffers): void {
    if (p.gp.strategy === 'copy') return encodeCopies(enc, p.gp, b);
    p.table ??= makeTable(gpu.device, gpu.pool, p.gp.dispatches);
    encodeGather(gpu.device, enc, p.gp, p.table, b, p.groups);
  }

  /**
   * The outputs as tensors: on the shared buffer `targets[0]` (one lease; views of the input join its lease), each on
   * a buffer of its own (layout 'separate'), or at a caller's destination, describing it (with its strides). Offsets
   * count from `bases`, by target.
   */
  private handOut(
    gp: GpuPlan,
    dtype: GpuView['dtype'],
    targets: readonly (GPUBuffer | undefined)[],
    home: Lease['home'],
    dests: Destinations | undefined,
    bases: readonly number[],
  ): GpuTensor[] {
    const shared = targets[0] && leaseFor(targets[0], home);
    const outputs: GpuTensor[] = [];
    for (let i = 0; i < gp.outputs.length; i++) {
      const o = gp.outputs[i]!;
      const shape = this.shapes[i]!;
      if (o.separate) outputs.push(handOut(leaseFor(targets[o.target!]!, home), dtype, shape, 0, o.byteLength));
      else if (!o.target) outputs.push(handOut(shared!, dtype, shape, bases[0]! + o.byteOffset, o.byteLength));
      else {
        const t = handOut(
          leaseFor(targets[o.target]!, undefined),
          dtype,
          shape,
          bases[o.target]! + o.byteOffset,
          o.byteLength,
        );
        const strides = dests!.strides[i];
        outputs.push(strides ? Object.assign(t, { strides }) : t);
      }
    }
    return outputs;
  }

  /** Splits a host tensor: one upload, one submit, one readback of every output, in the input's array class. */
  async host(gpu: GpuExecutor, x: HostView, what: string): Promise<Done> {
    calibrateSoon(gpu.device, gpu.costs);
    const { p } = this.placement(gpu, 0, false, NOWHERE);
    const gp = p.gp;
    const staging = gpu.pool.take(gp.bufferBytes, STAGING_USAGE);
    const input = gpu.pool.take(align4(x.bytes.length), TENSOR_USAGE);
    const { value, error } = gpu.submit((enc) => {
      writePadded(gpu.device.queue, input, x.bytes);
      const at = { src: input, srcBase: 0, bases: NOWHERE.bases };
      if (gp.strategy === 'copy') return this.encodeWork(gpu, enc, p, { ...at, targets: [staging] });
      const out = gpu.pool.take(gp.bufferBytes, TENSOR_USAGE);
      this.encodeWork(gpu, enc, p, { ...at, targets: [out] });
      enc.copyBufferToBuffer(out, 0, staging, 0, gp.bufferBytes);
      return out;
    });
    gpu.pool.give(input);
    if (value) gpu.pool.give(value);
    const form = { dtype: x.dtype as GpuView['dtype'], array: x.array! };
    return { outputs: await gpu.readBack(staging, gp.outputs, form, this.shapes, error, what), gp };
  }
}

/**
 * The error scopes of a submitted split that touches `theirs` of the caller's buffers (its input's, its destinations'),
 * `seen` when every one of those was split here before with no GPU error, `pooled` when every output buffer it takes is
 * free in the pool (nothing is allocated); and whether it resolves before they report (`early`). Commands on the
 * engine's own live buffers cannot fail: no scope, no round trip. A caller's buffer split here before is on this
 * device; with nothing allocated, the one error left is the caller having destroyed it since: such a split resolves
 * at once, and an error its validation scope reports later poisons its outputs and goes to the engine's late errors.
 */
export function scopesFor(theirs: number, seen: boolean, pooled: boolean) {
  const early = theirs > 0 && pooled && seen;
  return { early, scopes: theirs === 0 && pooled ? SCOPES.none : early ? SCOPES.validation : SCOPES.both };
}

function sameInto(a: Placement['into'], b: Placement['into']): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  for (let i = 0; i < a.length; i++) {
    const [p, q] = [a[i], b[i]];
    if (p === undefined || q === undefined) {
      if (p !== q) return false;
    } else if (p.target !== q.target || p.byteOffset !== q.byteOffset || !sameList(p.strides, q.strides)) return false;
  }
  return true;
}
