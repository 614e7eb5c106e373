// A split program: one split, made once and run on every call. It holds what never changes between calls: the options
// as read and checked, the split's plan, the destinations it was prepared with, and its GPU plans, one per placement
// of its input and destinations within their alignment (gpu/split.ts), the last few kept. `engine.prepare` hands one
// to the caller; `split`, `encodeSplit` and `run` find one the engine keeps (or make one) and call it. A call checks
// only what can change between calls: the tensor and destinations it is given (read, compared with what was prepared,
// alive), and that a caller's input buffer is not mapped; a GPU error its commands cause is blamed on it alone.

import { SplitError, check, show } from '../errors.js';
import type { AnyTensor, Destination } from '../tensor.js';
import { type GpuView, type TensorView, readTensor } from '../read/tensor.js';
import { readInto } from '../read/into.js';
import { isA } from '../read/webgpu-object.js';
import { readChoice, readCount, readLengths } from '../read/options.js';
import { type SplitPlan, equalParts, planSplit } from '../planner/split.js';
import { fits, planGpu } from '../planner/gpu.js';
import { sameList } from '../shape.js';
import { splitOnCpu } from '../cpu/split.js';
import type { GpuExecutor } from '../gpu/executor.js';
import { type Done, type Placement, host, resident, retire } from '../gpu/split.js';
import { calibrateSoon } from '../gpu/calibrate.js';
import { checkLive } from '../gpu/leases.js';
import { findKept, keep } from '../kept.js';
import { USAGE, missingUsage } from '../usage.js';
import type { Engine } from './engine.js';

/** The options a split or a prepared split takes. */
export const SPLIT_KEYS = ['axis', 'sizes', 'parts', 'layout', 'alias', 'into'] as const;
/** Options as read, each still to be checked. */
export type Fields = { readonly [K in (typeof SPLIT_KEYS)[number]]?: unknown };

/** GPU plans a program keeps: a KV-cache slot's offsets within an alignment, an input in either kind of buffer. */
const KEPT_PLACEMENTS = 4;

export class Program {
  /** Its GPU plans, one per placement, most recently used last. */
  readonly placements: Placement[] = [];
  /** The destinations it was prepared with (`engine.prepare` with `into`), for every call that gives none. */
  into: readonly (Destination | undefined)[] | undefined;
  private readonly separate: boolean;
  private readonly alias: 'owned' | 'any' | 'none' | undefined;

  constructor(
    private readonly engine: Engine,
    readonly plan: SplitPlan,
    /** Output shapes as reported (a node's differ where keepdims=0 drops the axis). */
    readonly shapes: readonly (readonly number[])[],
    readonly kind: TensorView['kind'],
    /** The options as given, to be found again by them. */
    readonly asked: Fields,
    what: string,
    /** For a node's program (`run`): the node as read, to be found again by it. */
    readonly node?: string,
  ) {
    check(
      kind === 'gpu' || (asked.layout === undefined && asked.alias === undefined),
      'BAD_OPTIONS',
      () => `${what}: layout and alias place GPU outputs; a host input gives host outputs`,
      'option:layout',
    );
    this.separate =
      readChoice(asked.layout, ['shared', 'separate'] as const, 'shared', what, 'option:layout') !== 'shared';
    this.alias =
      asked.alias === undefined
        ? undefined
        : readChoice(asked.alias, ['owned', 'any', 'none'] as const, 'owned', what, 'option:alias');
    // Taken off the object (`const { split } = prepared`), they still work.
    this.split = this.split.bind(this);
    this.encode = this.encode.bind(this);
  }

  /** A prepared split: as `engine.split`, for a tensor of the prepared dtype and shape. */
  split(x: unknown, into?: unknown): Promise<AnyTensor[]> {
    try {
      const v = this.read(x, 'prepared split');
      return finish(this.engine, this.call(v, this.destinationsAt(into, v, 'prepared split'), 'prepared split'));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** A prepared split recorded into the caller's encoder: as `engine.encodeSplit`. */
  encode(encoder: unknown, x: unknown, into?: unknown): AnyTensor[] {
    const v = this.read(x, 'prepared encode');
    check(v.kind === 'gpu', 'BAD_INPUT', () => 'prepared encode: the input must be a GPU tensor', 'input:input');
    const enc = readEncoder(encoder, 'prepared encode');
    const r = this.call(v, this.destinationsAt(into, v, 'prepared encode'), 'prepared encode', enc) as Done;
    this.engine.ran(r.gp);
    return r.outputs;
  }

  /** Whether a call with these options (`sizes` is the caller's, read here once) would get this program. */
  matches(v: TensorView, o: Fields): boolean {
    const a = this.asked;
    const p = this.plan;
    if (this.node !== undefined || v.kind !== this.kind || v.dtype !== p.dtype || !sameList(v.shape, p.shape))
      return false;
    if (o.axis !== a.axis || o.parts !== a.parts || !this.placesAlike(o)) return false;
    return o.parts === undefined ? a.parts === undefined && sameList(o.sizes, p.sizes) : o.sizes === undefined;
  }

  /** Whether a call with these output options would place its outputs as this program does. */
  placesAlike(o: Pick<Fields, 'layout' | 'alias' | 'into'>): boolean {
    const a = this.asked;
    return o.layout === a.layout && o.alias === a.alias && (o.into === undefined) === (a.into === undefined);
  }

  /** The caller's destinations for this split, checked against its outputs; undefined without any. */
  destinations(
    into: unknown,
    v: TensorView,
    what: string,
    prepared = this.into,
  ): (Destination | undefined)[] | undefined {
    if (into === undefined) return undefined;
    check(
      v.kind === 'gpu',
      'BAD_OPTIONS',
      () => `${what}: into places GPU outputs; a host input gives host outputs`,
      'option:into',
    );
    return readInto(into, v, this.shapes, this.plan.outputShapes, this.plan.axis, what, checkLive, prepared);
  }

  /**
   * Runs on a view read at the call, with its destinations: where the input lives decides the path. The engine's
   * backend was checked for it by the call.
   */
  call(
    x: TensorView,
    dests: readonly (Destination | undefined)[] | undefined,
    what: string,
    encoder?: GPUCommandEncoder,
  ) {
    const gpu = this.engine.gpu;
    if (x.kind === 'gpu') return this.resident(gpu!, x, dests, what, encoder);
    if (!gpu || x.strings || x.dtype.startsWith('complex'))
      return { outputs: splitOnCpu(this.plan, x, this.shapes), gp: undefined };
    return host(gpu, this.placement(gpu, 0, false, undefined, []), x, this.shapes, what);
  }

  private resident(
    gpu: GpuExecutor,
    x: GpuView,
    dests: readonly (Destination | undefined)[] | undefined,
    what: string,
    encoder?: GPUCommandEncoder,
  ): Done | Promise<Done> {
    const lease = checkLive(x, what);
    const ours = lease?.home === gpu.pool;
    check(
      ours || x.buffer.mapState === 'unmapped',
      'BAD_INPUT',
      () => `${what}: the input's GPU buffer is ${x.buffer.mapState}; unmap it first`,
      'input:input.buffer',
    );
    const alias = this.alias ?? (encoder ? 'none' : 'owned');
    const allowAlias = !dests && !this.separate && (alias === 'any' || (alias === 'owned' && ours));
    const bases: number[] = [];
    const p = this.placement(gpu, x.byteOffset, allowAlias, dests, bases);
    return resident(gpu, p, bases, x, lease, dests, this.shapes, what, encoder);
  }

  /** The kept placement these offsets fit (filling `bases`), or a new one, planned now and kept. */
  private placement(
    gpu: GpuExecutor,
    srcByteOffset: number,
    allowAlias: boolean,
    into: readonly (Destination | undefined)[] | undefined,
    bases: number[],
  ): Placement {
    calibrateSoon(gpu.device, gpu.costs);
    const { alignment: a, costs } = gpu.limits;
    const list = this.placements;
    const found = findKept(list, (p) => fits(p.gp, srcByteOffset, allowAlias, costs, into, a, bases));
    if (found) return found;
    const at = {
      srcByteOffset: srcByteOffset % a,
      allowAlias,
      strategy: this.engine.strategy,
      into,
      separate: this.separate,
    };
    const p: Placement = { gp: planGpu(this.plan, gpu.limits, at), handedOver: false };
    fits(p.gp, srcByteOffset, allowAlias, costs, into, a, bases);
    const old = keep(list, p, KEPT_PLACEMENTS);
    if (old) retire(gpu, [old]);
    return p;
  }

  /** The tensor of a prepared call: read, and of the prepared dtype and shape, where the prepared one lived. */
  private read(x: unknown, what: string): TensorView {
    this.engine.usable(what);
    const v = readInput(x, what);
    const p = this.plan;
    if (v.kind === this.kind && v.dtype === p.dtype && sameList(v.shape, p.shape)) return v;
    const t = (kind: string, dtype: string, shape: readonly number[]) =>
      `${kind === 'gpu' ? 'a GPU' : 'a host'} tensor of ${dtype} [${shape.join(', ')}]`;
    throw new SplitError(
      v.dtype !== p.dtype ? 'BAD_DTYPE' : v.kind !== this.kind ? 'BAD_INPUT' : 'BAD_SHAPE',
      `${what}: prepared for ${t(this.kind, p.dtype, p.shape)}, got ${t(v.kind, v.dtype, v.shape)}`,
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

/** A program for `split(x, options)` or `prepare(x, options)`: the options read once, the split planned and checked. */
export function programOf(engine: Engine, v: TensorView, o: Fields, what: string): Program {
  check(
    (o.sizes === undefined) !== (o.parts === undefined),
    'BAD_OPTIONS',
    () => `${what}: give exactly one of sizes and parts`,
    'option:sizes',
  );
  const lengths =
    o.sizes !== undefined
      ? readLengths(o.sizes, what, 'option:sizes')
      : (dim: number) => equalParts(dim, readCount(o.parts, what, 'option:parts', 'BAD_PARTS'));
  const subjects = { axis: 'option:axis', sizes: o.sizes !== undefined ? 'option:sizes' : 'option:parts' } as const;
  const plan = planSplit(v.dtype, v.shape, o.axis, lengths, what, subjects);
  return new Program(engine, plan, plan.outputShapes, v.kind, o, what);
}

/**
 * A split's input, read: a tensor Cleave can read, and for a GPU one, a buffer with usage STORAGE | COPY_SRC, whatever
 * the plan (which of the two a split uses depends on the shapes and the device, so a buffer that worked for one split
 * would fail another).
 */
export function readInput(x: unknown, what: string): TensorView {
  const v = readTensor(x, `${what}: input`);
  checkUsage(v, what);
  return v;
}

/** The usage every split's GPU input needs. */
export function checkUsage(v: TensorView, what: string): void {
  if (v.kind === 'gpu' && (~v.usage & (USAGE.STORAGE | USAGE.COPY_SRC)) !== 0)
    throw new SplitError(
      'BAD_INPUT',
      `${what}: the input's GPU buffer needs usage ${missingUsage(v.usage, ['STORAGE', 'COPY_SRC']).join(' | ')}: ` +
        "every split's input needs STORAGE | COPY_SRC " +
        '(create it with GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, or TENSOR_USAGE from cleave-gpu)',
      'input:input.buffer',
    );
}

/** The caller's encoder. */
export function readEncoder(encoder: unknown, what: string): GPUCommandEncoder {
  check(
    isA(encoder, 'GPUCommandEncoder', ['beginComputePass']),
    'BAD_INPUT',
    () => `${what}: expected a GPUCommandEncoder, got ${show(encoder)}`,
    'input:encoder',
  );
  return encoder as GPUCommandEncoder;
}

/** A split's outputs once it is done, its plan reported by the engine; not async (see engine.split). */
export function finish(engine: Engine, r: Done | Promise<Done>): Promise<AnyTensor[]> {
  const got = (d: Done) => {
    engine.ran(d.gp);
    return d.outputs;
  };
  return r instanceof Promise ? r.then(got) : Promise.resolve(got(r));
}
