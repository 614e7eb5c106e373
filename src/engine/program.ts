// A split program: one split under one plan key (planner/types.ts PlanKey), made once and run on every call whose
// arguments give that key. It holds the split as asked and planned (shared with the programs of the same split under
// other keys), its GPU plan, and the tile table made for that plan. An engine keeps its programs in one bounded cache
// (PlanCache); `engine.prepare` hands one to the caller, ready ahead (`ready`), and a call of it whose arguments give
// another key (a KV-cache slot in another alignment class) runs the program of that key, found in the engine's cache
// or made there once. A call checks only what can change between calls: the tensor and destinations it is given
// (read, compared with what was prepared, alive), and that a caller's input buffer is not mapped; a GPU error its
// commands cause is blamed on it alone, and leaves nothing of it in any cache.

import { SplitError, check } from '../errors.js';
import type { AnyTensor, Destination } from '../tensor.js';
import { type GpuView, type HostView, type TensorView, readInput } from '../read/tensor.js';
import { readInto } from '../read/into.js';
import { readEncoder } from '../read/webgpu-object.js';
import { readChoice, readCount, readSizes } from '../read/options.js';
import { type SplitPlan, equalParts, planSplit } from '../planner/split.js';
import { basesOf, keyOf, planGpu } from '../planner/gpu.js';
import type { CostModel } from '../planner/costs.js';
import type { GpuPlan, Strategy } from '../planner/types.js';
import { sameList } from '../shape.js';
import { splitOnCpu } from '../cpu/split.js';
import type { GpuExecutor } from '../gpu/executor.js';
import { type Call, type Done, bindAhead, host, resident, snapshot } from '../gpu/split.js';
import type { Table } from '../gpu/encode.js';
import { compile, compiled } from '../gpu/pipelines.js';
import { checkLive } from '../gpu/leases.js';
import type { PlanCache } from './plans.js';

/** The options a split or a prepared split takes. */
export const SPLIT_KEYS = ['axis', 'sizes', 'parts', 'layout', 'alias', 'into'] as const;
/** Options as read, each still to be checked. */
export type Fields = { readonly [K in (typeof SPLIT_KEYS)[number]]?: unknown };

/** What a program needs of the engine that made it (engine.ts's Engine). */
export interface Context {
  readonly gpu: GpuExecutor | undefined;
  readonly strategy: 'auto' | Strategy;
  /** The costs the engine plans with now. */
  readonly costs: CostModel | undefined;
  readonly plans: PlanCache<Program>;
  usable(what: string): void;
  /** Reports a finished split's plan (`engine.stats`) and hands back its outputs. */
  ran(d: Done): AnyTensor[];
  /** A new tile table for program `p`'s gather plan, which the engine frees when `p` is garbage-collected. */
  tableFor(p: Program, gp: GpuPlan): Table;
}

/** One split as asked and planned: what the programs of that split under every key share. */
interface Spec {
  readonly plan: SplitPlan;
  /** Output shapes as reported (a node's differ where keepdims=0 drops the axis). */
  readonly shapes: readonly (readonly number[])[];
  readonly kind: TensorView['kind'];
  /** The options as given, to be found again by them; for `run`, the node as read (ops/index.ts keyOf). */
  readonly asked: Fields;
  readonly node?: string;
  readonly separate: boolean;
  readonly alias: 'owned' | 'any' | 'none' | undefined;
  /** The costs a prepared split plans with, whatever the engine's are later; undefined: the engine's. */
  readonly costs?: CostModel;
}

export class Program {
  /** Handed to the caller by `engine.prepare`: the caller's, never kept in the engine's cache. */
  prepared = false;
  /** Let go of by the engine's cache (its table retired): never kept again. */
  dropped = false;
  /** The destinations it was prepared with (`engine.prepare` with `into`), for every call that gives none. */
  into: readonly (Destination | undefined)[] | undefined;
  /** Settles once its pipeline is compiled, its table written and its bind groups made (`engine.prepare`). */
  ready: Promise<void> = Promise.resolve();
  /** Its gather's tile table, made with it. */
  readonly table: Table | undefined;
  /** Why `ready` failed: every later call fails with its code. */
  private broken: SplitError | undefined;

  constructor(
    private readonly ctx: Context,
    readonly spec: Spec,
    readonly gp?: GpuPlan,
  ) {
    // Taken off the object (`const { split } = prepared`), they still work.
    this.split = this.split.bind(this);
    this.encode = this.encode.bind(this);
    if (gp?.strategy === 'gather') this.table = ctx.tableFor(this, gp);
  }

  /** A prepared split: as `engine.split`, for a tensor of the prepared dtype and shape. */
  split(x: unknown, into?: unknown): Promise<AnyTensor[]> {
    try {
      const v = this.read(x, 'prepared split');
      return finish(this.ctx, this.call(v, this.destinationsAt(into, v, 'prepared split'), 'prepared split'));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** A prepared split recorded into the caller's encoder: as `engine.encodeSplit`. */
  encode(encoder: unknown, x: unknown, into?: unknown): AnyTensor[] {
    const v = this.read(x, 'prepared encode');
    check(v.kind === 'gpu', 'BAD_INPUT', () => 'prepared encode: the input must be a GPU tensor', 'input:input');
    const enc = readEncoder(encoder, 'prepared encode');
    return this.ctx.ran(this.call(v, this.destinationsAt(into, v, 'prepared encode'), 'prepared encode', enc) as Done);
  }

  /** Whether a call with these options (`sizes` is the caller's, read here once) asks for this program's split. */
  matches(v: TensorView, o: Fields): boolean {
    const { asked: a, plan: p, kind, node } = this.spec;
    if (node !== undefined || v.kind !== kind || v.dtype !== p.dtype || !sameList(v.shape, p.shape)) return false;
    if (o.axis !== a.axis || o.parts !== a.parts || !this.placesAlike(o)) return false;
    return o.parts === undefined ? a.parts === undefined && sameList(o.sizes, p.sizes) : o.sizes === undefined;
  }

  /** Whether a call with these output options would place its outputs as this program does. */
  placesAlike(o: Pick<Fields, 'layout' | 'alias' | 'into'>): boolean {
    const a = this.spec.asked;
    return o.layout === a.layout && o.alias === a.alias && (o.into === undefined) === (a.into === undefined);
  }

  /** The caller's destinations for this split, checked against its outputs; undefined without any. */
  destinations(into: unknown, v: TensorView, what: string): (Destination | undefined)[] | undefined {
    if (into === undefined) return undefined;
    check(
      v.kind === 'gpu',
      'BAD_OPTIONS',
      () => `${what}: into places GPU outputs; a host input gives host outputs`,
      'option:into',
    );
    const { shapes, plan } = this.spec;
    return readInto(into, v, shapes, plan.outputShapes, plan.axis, what, checkLive, this.into);
  }

  /**
   * Runs on a view read at the call, with its destinations: where the input lives decides the path; the program of
   * the call's key runs it, and is kept in the engine's cache once the call went through.
   */
  call(x: TensorView, dests: Call['dests'], what: string, enc?: GPUCommandEncoder) {
    if (this.broken) throw new SplitError(this.broken.code, `${what}: ${this.broken.message}`, undefined, this.broken);
    const gpu = this.ctx.gpu;
    if (!onGpu(gpu, x)) {
      this.ctx.plans.keep(this);
      return { outputs: splitOnCpu(this.spec.plan, x as HostView, this.spec.shapes), gp: undefined };
    }
    if (x.kind === 'host') return this.host(gpu, x, what);
    const lease = checkLive(x, what);
    const ours = lease?.home === gpu.pool;
    check(
      ours || x.buffer.mapState === 'unmapped',
      'BAD_INPUT',
      () => `${what}: the input's GPU buffer is ${x.buffer.mapState}; unmap it first`,
      'input:input.buffer',
    );
    const alias = this.viewsAllowed(ours, dests, enc);
    const [p, bases] = this.at(gpu, x.byteOffset, dests, alias);
    const call: Call = { x, lease, dests, what, encoder: enc, failed: () => this.ctx.plans.forget(p) };
    if (enc || !p.waits(gpu)) return p.resident(gpu, bases, call);
    // A promise-returning call whose shader is not compiled yet waits for its asynchronous compile, its input copied
    // now: it still splits the input as it was at the call. If the cache dropped the program meanwhile (its table
    // with it), the program of its key is found again.
    const copy = snapshot(gpu, p.gp!, x, what);
    return Promise.all([compile(gpu.device, p.gp!), copy.waited])
      .then(() => {
        gpu.alive(what);
        const [q, at] = p.dropped ? this.at(gpu, x.byteOffset, dests, alias) : [p, bases];
        return q.resident(gpu, at, { ...call, x: copy.x, failed: () => this.ctx.plans.forget(q) });
      })
      .finally(copy.done);
  }

  /** Whether a call's outputs may be views of its input (`ours`: in a buffer of the engine's pool). */
  viewsAllowed(ours: boolean, dests: readonly unknown[] | undefined, encoder?: GPUCommandEncoder): boolean {
    const alias = this.spec.alias ?? (encoder ? 'none' : 'owned');
    return !dests && !this.spec.separate && (alias === 'any' || (alias === 'owned' && ours));
  }

  /** The program of this split for a call's key, and the call's bases: this one, one the engine keeps, or a new one. */
  at(gpu: GpuExecutor, srcByteOffset: number, dests: Call['dests'], allowAlias: boolean): [Program, number[]] {
    const a = gpu.limits.alignment;
    const costs = (this.spec.costs ?? this.ctx.costs)!;
    const fits = (p: Program) =>
      p.gp?.key.costs === costs ? basesOf(p.gp, srcByteOffset, dests, allowAlias, a) : undefined;
    let bases = fits(this);
    if (bases) return [this, bases];
    const found = this.ctx.plans.find((p) => p.spec === this.spec && (bases = fits(p)) !== undefined);
    if (found && bases) return [found, bases];
    const rest = { allowAlias, separate: this.spec.separate, strategy: this.ctx.strategy, costs };
    const key = keyOf(srcByteOffset, dests, a, rest);
    const p = new Program(this.ctx, this.spec, planGpu(this.spec.plan, gpu.limits, key));
    return [p, fits(p) as number[]];
  }

  /** Whether a promise-returning call of this program waits for its shader's asynchronous compile. */
  private waits(gpu: GpuExecutor): boolean {
    const gp = this.gp!;
    return gp.strategy === 'gather' && !(this.table!.pipeline ??= compiled(gpu.device, gp));
  }

  /** Runs a GPU-resident split by this program's plan at `bases`; kept in the engine's cache once it went through. */
  private resident(gpu: GpuExecutor, bases: number[], call: Call): Done | Promise<Done> {
    return this.kept(resident(gpu, this.gp!, this.table, bases, this.spec.shapes, call));
  }

  /**
   * Splits a host tensor on the GPU: uploaded, split, read back. One that waits for its shader copies its bytes
   * first, and finds the program of its key again after the wait.
   */
  private async host(gpu: GpuExecutor, x: HostView, what: string): Promise<Done> {
    let [p] = this.at(gpu, 0, undefined, false);
    if (p.waits(gpu)) {
      const bytes = x.bytes.slice();
      await compile(gpu.device, p.gp!);
      gpu.alive(what);
      if (p.dropped) [p] = this.at(gpu, 0, undefined, false);
      x = { ...x, bytes };
    }
    const failed = () => this.ctx.plans.forget(p);
    return p.kept(await host(gpu, p.gp!, p.table, x, p.spec.shapes, { what, failed }));
  }

  /** Keeps this program in the engine's cache once `r` went through (a prepared split's own program stays its own). */
  private kept<T extends Done | Promise<Done>>(r: T): T {
    if (this.prepared) return r;
    const keep = () => this.ctx.plans.keep(this);
    if (r instanceof Promise) void r.then(keep, () => undefined);
    else keep();
    return r;
  }

  /**
   * Makes everything a call needs ahead (`ready`): its pipeline compiled asynchronously, its table, and the bind
   * groups of the prepared input's and destinations' buffers and of output buffers taken from the pool (and given
   * back). A failure is kept: every later call fails with its code.
   */
  prepareAhead(gpu: GpuExecutor, x: TensorView, bases: readonly number[]): void {
    const gp = this.gp;
    if (!gp || gp.strategy !== 'gather') return;
    this.ready = (async () => {
      try {
        await compile(gpu.device, gp);
        if (x.kind === 'gpu') await bindAhead(gpu, gp, x, this.into, bases);
        // A device lost before it is ready: once the queue is done, the engine has heard of it.
        await gpu.device.queue.onSubmittedWorkDone();
        gpu.alive('ready');
      } catch (e) {
        throw (this.broken = gpu.failure(e, 'ready'));
      }
    })();
    // A caller that never awaits `ready` hears of a failure at its next call.
    this.ready.catch(() => undefined);
  }

  /** The tensor of a prepared call: read, and of the prepared dtype and shape, where the prepared one lived. */
  private read(x: unknown, what: string): TensorView {
    this.ctx.usable(what);
    const v = readInput(x, what);
    const { plan: p, kind } = this.spec;
    if (v.kind === kind && v.dtype === p.dtype && sameList(v.shape, p.shape)) return v;
    const t = (kind: string, dtype: string, shape: readonly number[]) =>
      `${kind === 'gpu' ? 'a GPU' : 'a host'} tensor of ${dtype} [${shape.join(', ')}]`;
    throw new SplitError(
      v.dtype !== p.dtype ? 'BAD_DTYPE' : v.kind !== kind ? 'BAD_INPUT' : 'BAD_SHAPE',
      `${what}: prepared for ${t(kind, p.dtype, p.shape)}, got ${t(v.kind, v.dtype, v.shape)}`,
      'input:input',
    );
  }

  /** A prepared call's destinations: its own `into`, read against the prepared ones, or the prepared ones. */
  private destinationsAt(into: unknown, v: TensorView, what: string) {
    if (into !== undefined) return this.destinations(into, v, what);
    const prepared = this.into;
    if (!prepared) return prepared;
    // Their bytes must still be theirs: a tensor Cleave handed out may have been released since.
    for (let i = 0; i < prepared.length; i++) if (prepared[i]) checkLive(prepared[i]!, what, `option:into[${i}]`);
    const i = prepared.findIndex((d) => d?.buffer === (v as GpuView).buffer);
    check(
      i < 0,
      'BAD_INPUT',
      () => `${what}: into[${i}]: the destination is in the input's buffer; a split writes outside the buffer it reads`,
      `option:into[${i}].buffer`,
    );
    return prepared;
  }
}

/** Whether a split of `v` runs on the GPU: on a GPU engine, all but string and complex host tensors (the CPU's). */
export function onGpu(gpu: GpuExecutor | undefined, v: TensorView): gpu is GpuExecutor {
  return !!gpu && (v.kind === 'gpu' || !(v.strings || v.dtype.startsWith('complex')));
}

/** A program for `split(x, options)` or `prepare(x, options)`: the options read once, the split planned and checked. */
export function programOf(ctx: Context, v: TensorView, o: Fields, what: string, costs?: CostModel): Program {
  check(
    (o.sizes === undefined) !== (o.parts === undefined),
    'BAD_OPTIONS',
    () => `${what}: give exactly one of sizes and parts`,
    'option:sizes',
  );
  const sizes =
    o.sizes !== undefined
      ? readSizes(o.sizes, what, 'option:sizes')
      : (dim: number) => equalParts(dim, readCount(o.parts, what, 'option:parts', 'BAD_PARTS'));
  const subjects = { axis: 'option:axis', sizes: o.sizes !== undefined ? 'option:sizes' : 'option:parts' } as const;
  const plan = planSplit(v.dtype, v.shape, o.axis, sizes, what, subjects);
  return programFor(ctx, { plan, shapes: plan.outputShapes, kind: v.kind, asked: o, costs }, what);
}

/** A program for a planned split, its output options checked (layout and alias place GPU outputs only). */
export function programFor(ctx: Context, s: Omit<Spec, 'separate' | 'alias'>, what: string): Program {
  const { asked } = s;
  check(
    s.kind === 'gpu' || (asked.layout === undefined && asked.alias === undefined),
    'BAD_OPTIONS',
    () => `${what}: layout and alias place GPU outputs; a host input gives host outputs`,
    'option:layout',
  );
  const separate =
    readChoice(asked.layout, ['shared', 'separate'] as const, 'shared', what, 'option:layout') !== 'shared';
  const alias = readChoice(asked.alias, ['owned', 'any', 'none'] as const, undefined, what, 'option:alias');
  return new Program(ctx, { ...s, separate, alias });
}

/** A split's outputs once it is done, its plan reported by the engine; not async (see engine.split). */
export function finish(ctx: Pick<Context, 'ran'>, r: Done | Promise<Done>): Promise<AnyTensor[]> {
  return r instanceof Promise ? r.then((d) => ctx.ran(d)) : Promise.resolve(ctx.ran(r));
}
