// How a planned split runs on the GPU: at the bases a call gives (whole alignments; gpu.ts's basesOf), with the buffer
// of each target (the caller's destinations', or the pool's), recorded into a caller's encoder or submitted inside
// the error scopes it needs; its outputs are handed out under leases. A call that fails, at once or after it resolved,
// hands its pool buffers back, drops the bind groups it made and tells its program (`failed`), so nothing of it stays.

import type { AnyTensor, Destination, GpuTensor } from '../tensor.js';
import type { GpuView, HostView } from '../read/tensor.js';
import type { GpuPlan } from '../planner/types.js';
import { align4 } from '../planner/dispatch.js';
import { type Made, type Table, dropGroups, encodeCopies, encodeGather, sourceGroup, targetGroup } from './encode.js';
import { type GpuExecutor, SCOPES, inScopes, lateError, throwIfFailed, writePadded } from './executor.js';
import { type Lease, handOut, leaseFor, leaseOn, settle } from './leases.js';
import { gatherKit, pipelineNow } from './pipelines.js';
import { STAGING_USAGE, TENSOR_USAGE } from '../usage.js';
import { bufferFacts } from '../read/webgpu-object.js';

/** A finished split: its outputs, and the GPU plan it ran (undefined on the CPU). */
export type Done = { readonly outputs: AnyTensor[]; readonly gp: GpuPlan | undefined };

/**
 * A call as read: its input and the lease its bytes are under, its destinations, its name for messages, the encoder
 * it records into (none: Cleave submits), and what to tell its program when it fails.
 */
export interface Call {
  readonly x: GpuView;
  readonly lease: Lease | undefined;
  readonly dests: readonly (Destination | undefined)[] | undefined;
  readonly what: string;
  readonly encoder?: GPUCommandEncoder;
  readonly failed: () => void;
}

/**
 * Splits a GPU-resident tensor by `gp` at `bases`: recorded into the caller's encoder, or submitted now inside the
 * error scopes it needs. Finished at once when it waits for no scope (views, the engine's own buffers, or a caller's
 * buffers all split here before, resolved early); else a promise that settles with its scopes. `table` is the
 * gather's tile table.
 */
export function resident(
  gpu: GpuExecutor,
  gp: GpuPlan,
  table: Table | undefined,
  bases: readonly number[],
  shapes: readonly (readonly number[])[],
  call: Call,
): Done | Promise<Done> {
  const { x, lease, dests, what, encoder } = call;
  // Outputs of an input whose own split's errors are still unknown share its fate.
  const done = (buffers: readonly GPUBuffer[]): Done => {
    const outputs = outputsOf(gp, x, gpu.pool, buffers, bases, dests, shapes);
    if (lease?.settling) settle(outputs, lease.settling);
    return { outputs, gp };
  };
  if (gp.strategy === 'alias') return done([x.buffer]);
  if (gp.outputs.length === 0) return { outputs: [], gp };
  const run = (enc: GPUCommandEncoder) => {
    const buffers = targetBuffers(gpu, gp, dests);
    return { buffers, made: record(enc, gp, table, x, buffers, bases) };
  };
  if (encoder) {
    if (table) table.handedOver = true;
    return done(run(encoder).buffers);
  }
  const theirs = callerBuffers(gpu, lease?.home === gpu.pool ? undefined : x.buffer, dests);
  const seen = theirs.every((t) => bufferFacts(t)!.clean);
  const { scopes, early } = scopesFor(theirs.length, seen, pooled(gpu, gp));
  const { value: ran, error } = gpu.submit(run, scopes);
  // Nothing of the caller's and nothing allocated: these commands cannot fail.
  if (scopes.length === 0) return done(ran.buffers);
  const fail = () => {
    for (const t of theirs) bufferFacts(t)!.clean = false;
    dropGroups(ran.made);
    call.failed();
  };
  if (early) {
    const r = done(ran.buffers);
    const fate = lateError(what, error);
    settle(r.outputs as GpuTensor[], fate);
    void fate.then((e) => {
      if (!e) return;
      fail();
      gpu.onLate(e);
    });
    return r;
  }
  return throwIfFailed(what, error).then(
    () => {
      gpu.alive(what);
      for (const t of theirs) bufferFacts(t)!.clean = true;
      return done(ran.buffers);
    },
    (e: unknown) => {
      fail();
      gp.targets.forEach((t, k) => t.kind !== 'into' && gpu.pool.give(ran.buffers[k]!));
      throw e;
    },
  );
}

/**
 * The input of a call that must wait before it records, copied now (one copy command, submitted at the call) into a
 * buffer of the pool: the view of the copy, placed as the input was within its alignment, and `done` to give it back.
 */
export function snapshot(gpu: GpuExecutor, gp: GpuPlan, x: GpuView, what: string) {
  const from = x.byteOffset - gp.key.srcByteOffset;
  const size = align4(gp.key.srcByteOffset + x.byteLength);
  const copy = gpu.pool.take(size, TENSOR_USAGE);
  const { error } = gpu.submit((enc) => enc.copyBufferToBuffer(x.buffer, from, copy, 0, size));
  const waited = throwIfFailed(what, error);
  return { x: { ...x, buffer: copy, byteOffset: gp.key.srcByteOffset }, waited, done: () => gpu.pool.give(copy) };
}

/**
 * Makes ahead what a prepared split's calls bind: the bind groups of its input's and destinations' buffers, and of
 * output buffers taken from the pool for it (given back after). Best effort, inside error scopes: where the GPU
 * refuses one (a buffer the caller destroyed since `prepare`), the groups are dropped and the calls make their own.
 */
export async function bindAhead(
  gpu: GpuExecutor,
  gp: GpuPlan,
  x: GpuView,
  dests: readonly (Destination | undefined)[] | undefined,
  bases: readonly number[],
): Promise<void> {
  const made: Made[] = [];
  const { value: buffers, error } = inScopes(gpu.device, (device) => {
    const taken = targetBuffers(gpu, gp, dests);
    const kit = gatherKit(device);
    for (const d of gp.dispatches) {
      sourceGroup(kit, device, x.buffer, d.srcWindow[1], made);
      targetGroup(kit, device, d, taken, bases, made);
    }
    return taken;
  });
  gp.targets.forEach((t, k) => t.kind !== 'into' && gpu.pool.give(buffers[k]!));
  if ((await error) !== undefined) dropGroups(made);
}

/** Whether the pool holds a free buffer for each one the plan takes (as targetBuffers takes them). */
function pooled(gpu: GpuExecutor, gp: GpuPlan): boolean {
  const taken = gp.targets.filter((t) => t.kind === 'shared' || t.kind === 'separate');
  const exact = taken.some((t) => t.kind === 'separate');
  const bytes = taken.map((t) => t.bytes);
  return gpu.pool.has(bytes, TENSOR_USAGE, exact);
}

/** Each target's buffer for this call: the input's (views), its destinations', or one taken from the pool now. */
function targetBuffers(gpu: GpuExecutor, gp: GpuPlan, dests: Call['dests']): GPUBuffer[] {
  const buffers = new Array<GPUBuffer>(gp.targets.length);
  const into = gp.key.into ?? [];
  for (let i = 0; i < into.length; i++) if (into[i]) buffers[into[i]!.target] ??= dests![i]!.buffer;
  let taken = 0;
  gp.targets.forEach((t, k) => {
    if (t.kind !== 'shared' && t.kind !== 'separate') return;
    // A 'separate' output's buffer is exactly its bytes: TF.js reads a buffer it wraps whole (tfjs.ts, toTfTensor).
    buffers[k] = gpu.pool.take(t.bytes, TENSOR_USAGE, t.kind === 'separate');
    taken++;
  });
  gpu.pool.took(taken);
  return buffers;
}

/** Records the copies or the gather of `gp` into `enc`; the bind groups it made. */
function record(
  enc: GPUCommandEncoder,
  gp: GpuPlan,
  table: Table | undefined,
  x: Pick<GpuView, 'buffer' | 'byteOffset'>,
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
): Made[] {
  if (gp.strategy === 'copy') {
    encodeCopies(enc, gp, x, buffers, bases);
    return [];
  }
  const t = table!;
  return encodeGather(enc, gp, t, (t.pipeline ??= pipelineNow(t.device, gp)), x, buffers, bases);
}

/** The caller's buffers a split touches: its input's (unless the engine's), its destinations'. */
function callerBuffers(gpu: GpuExecutor, input: GPUBuffer | undefined, dests: Call['dests']): GPUBuffer[] {
  const theirs = input ? [input] : [];
  if (dests) for (const d of dests) if (d && leaseOn(d.buffer)?.home !== gpu.pool) theirs.push(d.buffer);
  return theirs;
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

/**
 * Splits a host tensor: one upload, one submit, one readback of every output, in the input's array class. Every
 * target (the engine's buffers) is read back through one staging buffer, target after target: copies land there
 * directly; the gather writes pooled buffers, copied there after.
 */
export async function host(
  gpu: GpuExecutor,
  gp: GpuPlan,
  table: Table | undefined,
  x: HostView,
  shapes: readonly (readonly number[])[],
  call: Pick<Call, 'what' | 'failed'>,
): Promise<Done> {
  const bases: number[] = [];
  let bytes = 0;
  for (const t of gp.targets) {
    bases.push(bytes);
    bytes += t.bytes;
  }
  const staging = gpu.pool.take(bytes, STAGING_USAGE);
  const input = gpu.pool.take(align4(x.bytes.length), TENSOR_USAGE);
  const { value, error } = gpu.submit((enc) => {
    writePadded(gpu.device.queue, input, x.bytes);
    const src = { buffer: input, byteOffset: 0 };
    const copy = gp.strategy === 'copy';
    const outs = copy ? [] : gp.targets.map((t) => gpu.pool.take(t.bytes, TENSOR_USAGE));
    // Copies land in the staging buffer at each target's base; the gather writes each pooled buffer from byte 0.
    const [buffers, at] = copy ? [gp.targets.map(() => staging), bases] : [outs, bases.map(() => 0)];
    const made = record(enc, gp, table, src, buffers, at);
    outs.forEach((b, k) => enc.copyBufferToBuffer(b, 0, staging, bases[k]!, gp.targets[k]!.bytes));
    return { outs, made };
  });
  for (const b of [input, ...value.outs]) gpu.pool.give(b);
  const parts = gp.outputs.map((o) => ({ byteOffset: bases[o.target]! + o.byteOffset, byteLength: o.byteLength }));
  const form = { dtype: x.dtype as GpuView['dtype'], array: x.array! };
  try {
    return { outputs: await gpu.readBack(staging, parts, form, shapes, error, call.what), gp };
  } catch (e) {
    dropGroups(value.made);
    call.failed();
    throw e;
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
