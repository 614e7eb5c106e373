// How a placed split runs on the GPU. A placement is a program's GPU plan for one way of lying of its input and its
// destinations within their alignment, with the tile table made for it; a call gives the bases (whole alignments)
// the plan's offsets count from, so a KV-cache slot that moves by whole alignments every step records the same plan
// at new bases, binding bind groups made before at new dynamic offsets (encode.ts). A split runs recorded into a
// caller's encoder, or submitted inside the error scopes it needs; its outputs are handed out under leases.

import type { AnyTensor, Destination, GpuTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import type { GpuPlan } from '../planner/types.js';
import { type Buffers, type Table, encodeCopies, encodeGather, makeTable } from './encode.js';
import { type GpuExecutor, SCOPES, lateError, throwIfFailed, writePadded } from './executor.js';
import { type Lease, handOut, leaseFor, leaseOn, settle } from './leases.js';
import { STAGING_USAGE, TENSOR_USAGE } from '../usage.js';
import { align4 } from '../planner/dispatch.js';

/** A finished split: its outputs, and the GPU plan it ran (undefined on the CPU). */
export type Done = { readonly outputs: AnyTensor[]; readonly gp: GpuPlan | undefined };

/** A program's GPU plan at one placement, and its tile table (a gather's), made at its first recording. */
export interface Placement {
  readonly gp: GpuPlan;
  table?: Table;
  /** Recorded into a caller's encoder: its table's last use is unknown, so Cleave never destroys it. */
  handedOver: boolean;
}

/** Its GPU objects are no longer needed (its program let it go, or was let go of). */
export function retire(gpu: GpuExecutor, placements: readonly Placement[]): void {
  for (const p of placements) if (p.table) gpu.retire(p.table.buffer, p.handedOver);
}

/**
 * Splits a GPU-resident tensor at `bases` (one per target of the plan, from `fits`): recorded into the caller's
 * encoder, or submitted now inside the error scopes it needs. Finished at once when it waits for no scope (views, the
 * engine's own buffers, or a caller's buffers all split here before, resolved early); else a promise that settles with
 * its scopes. `lease` is the input's, when its bytes are under one.
 */
export function resident(
  gpu: GpuExecutor,
  p: Placement,
  bases: readonly number[],
  x: GpuView,
  lease: Lease | undefined,
  dests: readonly (Destination | undefined)[] | undefined,
  shapes: readonly (readonly number[])[],
  what: string,
  encoder?: GPUCommandEncoder,
): Done | Promise<Done> {
  const gp = p.gp;
  const ours = lease?.home === gpu.pool;
  // Outputs of an input whose own split's errors are still unknown share its fate.
  const done = (buffers: readonly GPUBuffer[]): Done => {
    const outputs = outputsOf(gp, x, gpu.pool, buffers, bases, dests, shapes);
    if (lease?.settling) settle(outputs, lease.settling);
    return { outputs, gp };
  };
  if (gp.strategy === 'alias') return done([x.buffer]);
  if (gp.outputs.length === 0) return { outputs: [], gp };
  // Each target's buffer, filled as the split is recorded.
  const b = { src: x.buffer, srcBase: x.byteOffset - gp.srcByteOffset, targets: [] as GPUBuffer[], bases };
  if (encoder) {
    p.handedOver = true;
    return done(record(gpu, encoder, p, b, dests));
  }
  const theirs = callerBuffers(gpu, ours ? undefined : x.buffer, dests);
  let seen = true;
  for (const t of theirs) seen &&= gpu.seen.has(t);
  const { scopes, early } = scopesFor(theirs.length, seen, gpu.pool.has(gp.buffers, TENSOR_USAGE));
  const { value: taken, error } = gpu.submit((enc) => record(gpu, enc, p, b, dests), scopes);
  // Nothing of the caller's and nothing allocated: these commands cannot fail.
  if (scopes.length === 0) return done(taken);
  const forget = () => theirs.forEach((t) => gpu.seen.delete(t));
  if (early) {
    const r = done(taken);
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
      return done(taken);
    },
    (e: unknown) => {
      forget();
      // The buffers it took from the pool.
      gp.targets.forEach((t, k) => t.kind !== 'into' && gpu.pool.give(taken[k]!));
      throw e;
    },
  );
}

/** The caller's buffers a split touches: its input's (unless the engine's), its destinations'. */
function callerBuffers(
  gpu: GpuExecutor,
  input: GPUBuffer | undefined,
  dests: readonly (Destination | undefined)[] | undefined,
): GPUBuffer[] {
  const theirs = input ? [input] : [];
  if (dests) for (const d of dests) if (d && leaseOn(d.buffer)?.home !== gpu.pool) theirs.push(d.buffer);
  return theirs;
}

/**
 * Records the placement's copies or gather into `enc`; returns each target's buffer for this call: the caller's
 * destination's, or one taken from the pool now.
 */
function record(
  gpu: GpuExecutor,
  enc: GPUCommandEncoder,
  p: Placement,
  b: Buffers & { readonly targets: GPUBuffer[] },
  dests: readonly (Destination | undefined)[] | undefined,
): GPUBuffer[] {
  for (const t of p.gp.targets)
    b.targets.push(t.kind === 'into' ? dests![t.output]!.buffer : gpu.pool.take(t.bytes, TENSOR_USAGE));
  gpu.pool.took(p.gp.buffers.length);
  encodeWork(gpu, enc, p, b);
  return b.targets;
}

function encodeWork(gpu: GpuExecutor, enc: GPUCommandEncoder, p: Placement, b: Buffers): void {
  if (p.gp.strategy === 'copy') return encodeCopies(enc, p.gp, b);
  p.table ??= makeTable(gpu.device, gpu.pool, p.gp);
  encodeGather(gpu.device, enc, p.gp, p.table, b);
}

/**
 * The outputs as tensors, each where its target is: views of the input (joining its lease), on the shared buffer (one
 * lease), on a buffer of its own (layout 'separate'), or at a caller's destination, describing it (with its strides).
 */
function outputsOf(
  gp: GpuPlan,
  x: GpuView,
  pool: GpuExecutor['pool'],
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
  dests: readonly (Destination | undefined)[] | undefined,
  shapes: readonly (readonly number[])[],
): GpuTensor[] {
  const leases = gp.targets.map((t, k) =>
    leaseFor(buffers[k]!, t.kind === 'input' || t.kind === 'into' ? undefined : pool),
  );
  const outputs: GpuTensor[] = [];
  for (let i = 0; i < gp.outputs.length; i++) {
    const o = gp.outputs[i]!;
    const t = handOut(leases[o.target]!, x.dtype, shapes[i]!, bases[o.target]! + o.byteOffset, o.byteLength);
    const strides = dests?.[i]?.given;
    outputs.push(strides ? Object.assign(t, { strides }) : t);
  }
  return outputs;
}

/** Splits a host tensor: one upload, one submit, one readback of every output, in the input's array class. */
export async function host(
  gpu: GpuExecutor,
  p: Placement,
  x: HostView,
  shapes: readonly (readonly number[])[],
  what: string,
): Promise<Done> {
  const gp = p.gp;
  const bytes = gp.targets[0]!.bytes;
  const staging = gpu.pool.take(bytes, STAGING_USAGE);
  const input = gpu.pool.take(align4(x.bytes.length), TENSOR_USAGE);
  const { value, error } = gpu.submit((enc) => {
    writePadded(gpu.device.queue, input, x.bytes);
    const at = { src: input, srcBase: 0, bases: [0] };
    if (gp.strategy === 'copy') return encodeWork(gpu, enc, p, { ...at, targets: [staging] });
    const out = gpu.pool.take(bytes, TENSOR_USAGE);
    encodeWork(gpu, enc, p, { ...at, targets: [out] });
    enc.copyBufferToBuffer(out, 0, staging, 0, bytes);
    return out;
  });
  gpu.pool.give(input);
  if (value) gpu.pool.give(value);
  const form = { dtype: x.dtype as GpuView['dtype'], array: x.array! };
  return { outputs: await gpu.readBack(staging, gp.outputs, form, shapes, error, what), gp };
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
