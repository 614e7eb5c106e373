// A split program: one split, made once and run on every call. It holds what never changes between calls: the options
// as read and checked, the split's plan, the destinations it was prepared with, and its GPU plans (gpu/split.ts, one
// per placement of its input and outputs, with their tables and bind groups). `engine.prepare` hands one to the
// caller; `split`, `encodeSplit` and `run` find one the engine keeps (or make one) and run it. A call checks only what
// can change between calls: the tensor and destinations it is given (read, compared with what was prepared, alive),
// and that a caller's input buffer is not mapped; a GPU error its commands cause is blamed on it alone.

import { SplitError, asInt, check, show } from '../errors.js';
import type { AnyTensor } from '../tensor.js';
import { type GpuView, type TensorView, readTensor } from '../read/tensor.js';
import { type Destinations, readInto } from '../read/into.js';
import { isA } from '../read/webgpu-object.js';
import { readChoice, readCount, readLengths } from '../read/options.js';
import { type SplitPlan, equalParts, planSplit } from '../planner/split.js';
import type { GpuPlan, Strategy } from '../planner/types.js';
import { sameList } from '../shape.js';
import { splitOnCpu } from '../cpu/split.js';
import type { GpuExecutor } from '../gpu/executor.js';
import { type Done, GpuSplit } from '../gpu/split.js';
import { checkLive, mayEnd } from '../gpu/leases.js';
import { USAGE, missingUsage } from '../usage.js';

/** What a program needs of its engine. */
export interface Runner {
  readonly strategy: 'auto' | Strategy;
  /** Throws when the engine cannot take a call: destroyed, its device lost, a late GPU error unacknowledged. */
  usable(what: string): void;
  /** The engine's GPU, or WRONG_BACKEND on a CPU engine. */
  requireGpu(what: string): GpuExecutor;
  readonly gpu: GpuExecutor | undefined;
  /** A split finished: the GPU plan it ran (undefined on the CPU) is what `engine.stats` reports. */
  ran(gp: GpuPlan | undefined): void;
}

/** The options a split or a prepared split takes. */
export const SPLIT_KEYS = ['axis', 'sizes', 'parts', 'layout', 'alias', 'into'] as const;
/** Options as read, each still to be checked. */
export type Fields = { readonly [K in (typeof SPLIT_KEYS)[number]]?: unknown };

export class Program {
  /** What it does on the GPU. */
  readonly onGpu: GpuSplit;
  /** The destinations it was prepared with (`engine.prepare` with `into`). */
  private into: Destinations | undefined;
  /**
   * Which of them a call checks again: those whose bytes may stop being theirs (a tensor Cleave handed out, or one in
   * a buffer of Cleave's). A tensor of yours in your buffer stays yours.
   */
  private mayEnd: number[] = [];

  constructor(
    private readonly engine: Runner,
    readonly plan: SplitPlan,
    /** Output shapes as reported (a node's differ where keepdims=0 drops the axis). */
    readonly shapes: readonly (readonly number[])[],
    readonly kind: TensorView['kind'],
    /** The options as given, to be found again by them. */
    readonly asked: Fields,
    what: string,
  ) {
    check(
      kind === 'gpu' || (asked.layout === undefined && asked.alias === undefined && asked.into === undefined),
      'BAD_OPTIONS',
      () => `${what}: layout, alias and into place GPU outputs; a host input gives host outputs`,
      asked.into === undefined ? 'option:layout' : 'option:into',
    );
    const layout = readChoice(asked.layout, ['shared', 'separate'] as const, 'shared', what, 'option:layout');
    const alias =
      asked.alias === undefined
        ? undefined
        : readChoice(asked.alias, ['owned', 'any', 'none'] as const, 'owned', what, 'option:alias');
    this.onGpu = new GpuSplit(plan, shapes, layout, alias, engine.strategy);
    // Taken off the object (`const { split } = prepared`), they still work.
    this.split = this.split.bind(this);
    this.encode = this.encode.bind(this);
  }

  /** A prepared split: as `engine.split`, for a tensor of the prepared dtype and shape. */
  split(x: unknown, into?: unknown): Promise<AnyTensor[]> {
    try {
      const v = this.read(x, 'prepared split');
      return finish(this.engine, this.run(v, this.destinationsAt(into, v, 'prepared split'), 'prepared split'));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** A prepared split recorded into the caller's encoder: as `engine.encodeSplit`. */
  encode(encoder: unknown, x: unknown, into?: unknown): AnyTensor[] {
    const v = this.read(x, 'prepared encode');
    const enc = readEncoder(encoder, 'prepared encode');
    const r = this.run(v, this.destinationsAt(into, v, 'prepared encode'), 'prepared encode', enc) as Done;
    this.engine.ran(r.gp);
    return r.outputs;
  }

  /** Whether a call with these options (`sizes` is the caller's, read here once) would get this program. */
  matches(v: TensorView, o: Fields, drops = false): boolean {
    const a = this.asked;
    const p = this.plan;
    if (v.kind !== this.kind || v.dtype !== p.dtype || !sameList(v.shape, p.shape)) return false;
    if (o.axis !== a.axis || o.layout !== a.layout || o.alias !== a.alias || o.parts !== a.parts) return false;
    if ((o.into === undefined) !== (a.into === undefined) || drops !== (this.shapes !== p.outputShapes)) return false;
    return o.parts === undefined ? a.parts === undefined && sameList(o.sizes, p.sizes) : o.sizes === undefined;
  }

  /** The caller's destinations for this split, checked against its outputs; undefined without any. */
  destinations(into: unknown, v: TensorView, what: string): Destinations | undefined {
    if (into === undefined) return undefined;
    check(v.kind === 'gpu', 'BAD_OPTIONS', () => `${what}: into places GPU outputs; a host input gives host outputs`);
    return readInto(into, v, this.shapes, this.plan.outputShapes, this.plan.axis, what, checkLive);
  }

  /** Keeps the destinations `prepare` was given, for every call that gives none. */
  prepareInto(into: unknown, v: TensorView): void {
    this.into = this.destinations(into, v, 'prepare');
    this.mayEnd = [];
    this.into?.live.forEach((l, i) => l && mayEnd(l) && this.mayEnd.push(i));
  }

  /** Runs on a view read at the call, with its destinations: where the input lives decides the path. */
  run(x: TensorView, dests: Destinations | undefined, what: string, encoder?: GPUCommandEncoder): Done | Promise<Done> {
    const gpu = this.engine.gpu;
    check(!encoder || x.kind === 'gpu', 'BAD_INPUT', () => `${what}: the input must be a GPU tensor`, 'input:input');
    if (x.kind === 'gpu') return this.onGpu.resident(this.engine.requireGpu(what), x, dests, what, encoder);
    if (gpu && !x.strings && !x.dtype.startsWith('complex')) return this.onGpu.host(gpu, x, what);
    return { outputs: splitOnCpu(this.plan, x, this.shapes), gp: undefined };
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

  /** A prepared call's destinations: its own `into`, checked and with the prepared strides, or the prepared ones. */
  private destinationsAt(into: unknown, v: TensorView, what: string): Destinations | undefined {
    const kept = this.into;
    if (into === undefined) {
      if (!kept) return kept;
      for (const i of this.mayEnd) checkLive(kept.live[i]!, what, `option:into[${i}]`);
      const input = kept.buffers.indexOf((v as GpuView).buffer);
      if (input >= 0) {
        const i = kept.places.findIndex((d) => d?.target === input + 1);
        throw new SplitError(
          'BAD_INPUT',
          `${what}: into[${i}]: the destination is in the input's buffer; a split writes outside the buffer it reads`,
          `option:into[${i}].buffer`,
        );
      }
      return kept;
    }
    const d = this.destinations(into, v, what);
    kept?.places.forEach((k, i) => {
      const at = d!.places[i];
      check(
        (k === undefined) === (at === undefined) && (!k || sameList(k.strides, at!.strides)),
        'BAD_OPTIONS',
        () =>
          `${what}: into[${i}] must be placed as prepared: ` +
          (k ? `a destination with strides [${k.strides.join(', ')}]` : 'no destination (the engine places it)'),
        `option:into[${i}]`,
      );
    });
    return d;
  }
}

/** A program for `split(x, options)` or `prepare(x, options)`: the options read once, the split planned and checked. */
export function programOf(engine: Runner, v: TensorView, o: Fields, what: string): Program {
  check(
    (o.sizes === undefined) !== (o.parts === undefined),
    'BAD_OPTIONS',
    () => `${what}: give exactly one of sizes and parts`,
    'option:sizes',
  );
  const axis = o.axis === undefined ? undefined : asInt(o.axis);
  check(
    axis !== undefined || o.axis === undefined,
    'AXIS_RANGE',
    () => `${what}: axis must be an integer, got ${show(o.axis)}`,
    'option:axis',
  );
  const lengths =
    o.sizes !== undefined
      ? readLengths(o.sizes, what, 'option:sizes')
      : (dim: number) => equalParts(dim, readCount(o.parts, what, 'option:parts', 'BAD_PARTS'));
  const subjects = { axis: 'option:axis', sizes: o.sizes !== undefined ? 'option:sizes' : 'option:parts' } as const;
  const plan = planSplit(v.dtype, v.shape, axis, lengths, what, subjects);
  return new Program(engine, plan, plan.outputShapes, v.kind, o, what);
}

/**
 * A split's input, read: a tensor Cleave can read, and for a GPU one, a buffer with usage STORAGE | COPY_SRC, whatever
 * the plan (which of the two a split uses depends on the shapes and the device, so a buffer that worked for one split
 * would fail another).
 */
export function readInput(x: unknown, what: string): TensorView {
  const v = readTensor(x, `${what}: input`);
  if (v.kind === 'gpu' && (~v.usage & (USAGE.STORAGE | USAGE.COPY_SRC)) !== 0)
    throw new SplitError(
      'BAD_INPUT',
      `${what}: the input's GPU buffer needs usage ${missingUsage(v.usage, ['STORAGE', 'COPY_SRC']).join(' | ')}: ` +
        "every split's input needs STORAGE | COPY_SRC " +
        '(create it with GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, or TENSOR_USAGE from cleave-gpu)',
      'input:input.buffer',
    );
  return v;
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
export function finish(engine: Runner, r: Done | Promise<Done>): Promise<AnyTensor[]> {
  const got = (d: Done) => {
    engine.ran(d.gp);
    return d.outputs;
  };
  return r instanceof Promise ? r.then(got) : Promise.resolve(got(r));
}
