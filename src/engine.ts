// The public engine: one flow for every call (read the caller's objects once, validate, plan,
// execute on the GPU or the CPU executor). Outputs live where the input lived: host tensors in,
// host tensors out; GPU tensors in, GPU tensors out with no readback.

import { SplitError, asInt, check, guardRead, show } from './errors.js';
import type { DType, FixedDType } from './dtype.js';
import type { AnyTensor, GpuTensor, HostTensor, Into } from './tensor.js';
import { type TensorView, readTensor } from './read/tensor.js';
import { readInto } from './read/into.js';
import { isA } from './read/webgpu-object.js';
import { readChoice, readCount, readLengths, readOptions } from './read/options.js';
import { type SplitPlan, equalParts, normalizeAxis } from './planner/split.js';
import { planSplitRecent } from './cache/recent-plans.js';
import type { Strategy } from './planner/gpu.js';
import { CPU_STATS, type SplitStats } from './stats.js';
import { splitOnCpu } from './cpu/split.js';
import { GpuExecutor, type SplitRequest } from './gpu/executor.js';
import { acquireDevice } from './gpu/device.js';
import { missingUsage } from './usage.js';
import { checkLive, release } from './gpu/leases.js';
import { warmUp } from './gpu/pipelines.js';
import { calibrate } from './gpu/calibrate.js';
import { type SplitNode, resolveRun } from './ops/index.js';

export type Backend = 'webgpu' | 'cpu';

export interface SplitEngineOptions {
  /** Use this device (Cleave never destroys a device it did not create). */
  readonly device?: GPUDevice;
  /** 'auto' (default) uses WebGPU when an adapter exists, else the CPU (`fallbackReason` says why). */
  readonly backend?: 'auto' | Backend;
  /** Force a GPU strategy where the plan allows it; 'auto' (default) lets the planner choose. */
  readonly strategy?: 'auto' | Strategy;
  /**
   * Hears the GPU error (`GPU_ERROR`) of a split that resolved before its GPU errors were known (a
   * caller's buffer split again, then found destroyed): its outputs are refused from then on. Without
   * it, such errors collect in `lateErrors` and the engine refuses its calls until `acknowledge()`.
   */
  readonly onLateError?: (error: SplitError) => void;
}

/** Split lengths along `axis` (default 0), or a number of equal parts with a smaller tail. */
export type SplitOptions =
  | { readonly axis?: number; readonly sizes: readonly number[]; readonly parts?: never }
  | { readonly axis?: number; readonly parts: number; readonly sizes?: never };

/**
 * `D` as given, never inferred from where it appears (TypeScript 5.4's `NoInfer`, written so that
 * every TypeScript 5 reads it): a destination's dtype must be the input's, not widen it.
 */
export type Fixed<D> = [D][D extends unknown ? 0 : never];

/** Where GPU outputs go; for GPU-resident inputs only. */
export interface OutputOptions<D extends FixedDType = FixedDType> {
  /** 'shared' (default): one buffer, outputs at aligned offsets. 'separate': a buffer per output, at offset 0. */
  readonly layout?: 'shared' | 'separate';
  /** Outputs as views of the input: 'owned' (default) when this engine owns it, 'any', or 'none' (always copy). */
  readonly alias?: 'owned' | 'any' | 'none';
  /**
   * One entry per output: write it at this destination (a place in your buffer, strided if you
   * say so), or `undefined` to let the engine place it. With any destination, no output is a view.
   */
  readonly into?: readonly (Into<D> | undefined)[];
}

export interface EngineStats extends SplitStats {
  /** Pipelines compiled on this engine's device (0 on the CPU backend). */
  readonly pipelinesCreated: number;
  /** Buffers this engine created that are still alive (leased, pooled or cached). */
  readonly liveBuffers: number;
}

/** A node's outputs: where its data input lives, with its dtype when the type says which. */
export type NodeOutputs<N extends SplitNode> = N['inputs'][0] extends GpuTensor
  ? GpuTensor<N['inputs'][0]['dtype']>[]
  : N['inputs'][0] extends HostTensor
    ? HostTensor<N['inputs'][0]['dtype']>[]
    : HostTensor[];

export interface SplitEngine {
  readonly backend: Backend;
  /** The device in use (undefined on the CPU backend). */
  readonly device: GPUDevice | undefined;
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string } | undefined;
  /** Why an 'auto' engine runs on the CPU (no WebGPU, no adapter, ...); undefined otherwise. */
  readonly fallbackReason: string | undefined;
  // The host form comes last: a call that matches neither form reports the last one's error, and
  // a host tensor with a widened dtype (`dtype: string`, or `number[]` data) is the usual mistake.
  split<D extends FixedDType>(
    x: GpuTensor<D>,
    options: SplitOptions & OutputOptions<Fixed<D>>,
  ): Promise<GpuTensor<D>[]>;
  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  /** Runs one operator node (Split, SplitToSequence, VariadicSplit); outputs live where the data input lived. */
  run<const N extends SplitNode>(node: N, options?: OutputOptions): Promise<NodeOutputs<N>>;
  /**
   * Records a split of a GPU tensor into your encoder; outputs are valid once you submit it. Copies unless `alias` says
   * otherwise.
   */
  encodeSplit<D extends FixedDType>(
    encoder: GPUCommandEncoder,
    x: GpuTensor<D>,
    options: SplitOptions & OutputOptions<Fixed<D>>,
  ): GpuTensor<D>[];
  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D>;
  download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>>;
  /** Ends a GPU tensor's use; its buffer returns to its engine's pool with the last tensor of its lease. */
  release(x: GpuTensor | undefined): void;
  /**
   * Measures the device's costs for the planner now, once per device, and resolves when splits plan
   * with them. Without this call the measurement starts after the engine's first split; splits
   * until it ends plan with default costs. Resolves at once on the CPU backend.
   */
  calibrate(): Promise<void>;
  /** Frees every buffer the engine created, and its device if it created that too. */
  destroy(): void;
  /**
   * GPU errors of splits that resolved before their GPU errors were known, oldest first, not yet
   * acknowledged (always empty with `onLateError`). While there is one, every call but `release`,
   * `destroy` and `acknowledge` rejects with `GPU_ERROR`.
   */
  readonly lateErrors: readonly SplitError[];
  /** Returns `lateErrors` and clears them: the engine takes calls again. */
  acknowledge(): SplitError[];
  readonly stats: EngineStats;
}

const BACKENDS = ['auto', 'webgpu', 'cpu'] as const;
const STRATEGIES = ['auto', 'alias', 'copy', 'gather'] as const;
type Out = { readonly layout?: unknown; readonly alias?: unknown; readonly into?: unknown };

export async function createSplitEngine(options?: SplitEngineOptions): Promise<SplitEngine> {
  const what = 'createSplitEngine';
  const o = readOptions(options, what, ['device', 'backend', 'strategy', 'onLateError'], 'engine');
  const want = readChoice(o.backend, BACKENDS, 'auto', what, 'engine:backend');
  const strategy = readChoice(o.strategy, STRATEGIES, 'auto', what, 'engine:strategy');
  const given = o.device as GPUDevice | undefined;
  const onLate = o.onLateError as SplitEngineOptions['onLateError'];
  check(
    onLate === undefined || typeof onLate === 'function',
    'BAD_OPTIONS',
    () => `${what}: onLateError must be a function`,
    'engine:onLateError',
  );
  check(
    given === undefined || (isA(given, 'GPUDevice', ['createBuffer']) && want !== 'cpu'),
    'BAD_OPTIONS',
    () => `${what}: device must be a GPUDevice, with backend 'auto' or 'webgpu', got ${show(given)}`,
    'engine:device',
  );
  const found = given
    ? { device: given, adapterInfo: guardRead(what, () => given.adapterInfo) }
    : want === 'cpu'
      ? { reason: undefined }
      : await acquireDevice();
  if (!('device' in found)) {
    check(
      want !== 'webgpu',
      'NO_WEBGPU',
      () => `${what}: backend 'webgpu' was asked for, but ${found.reason}`,
      'engine:backend',
    );
    return new Engine(undefined, undefined, false, strategy, found.reason, onLate);
  }
  await warmUp(found.device);
  const info = found.adapterInfo;
  return new Engine(
    found.device,
    info && { vendor: info.vendor, architecture: info.architecture },
    !given,
    strategy,
    undefined,
    onLate,
  );
}

class Engine implements SplitEngine {
  readonly backend: Backend;
  private readonly gpu: GpuExecutor | undefined;
  private destroyed = false;
  private lost: string | undefined;
  /** Of the split that finished last. */
  private last: SplitStats = CPU_STATS;
  private late: SplitError[] = [];

  constructor(
    readonly device: GPUDevice | undefined,
    readonly adapterInfo: SplitEngine['adapterInfo'],
    private readonly ownsDevice: boolean,
    private readonly strategy: 'auto' | Strategy,
    readonly fallbackReason: string | undefined,
    private readonly onLateError: SplitEngineOptions['onLateError'],
  ) {
    this.backend = device ? 'webgpu' : 'cpu';
    this.gpu =
      device &&
      new GpuExecutor(
        device,
        (what) => this.alive(what),
        (e) => (this.onLateError ? this.onLateError(e) : this.late.push(e)),
      );
    // Methods taken off the engine (`const { split } = engine`) still work.
    const methods = [
      'split',
      'run',
      'encodeSplit',
      'upload',
      'download',
      'release',
      'destroy',
      'acknowledge',
      'calibrate',
    ] as const;
    for (const m of methods) this[m] = this[m].bind(this) as never;
    void device?.lost.then((info) => {
      this.lost = info.message || info.reason;
    });
  }

  get lateErrors(): readonly SplitError[] {
    return [...this.late];
  }

  acknowledge(): SplitError[] {
    const late = this.late;
    this.late = [];
    return late;
  }

  get stats(): EngineStats {
    return { ...this.last, pipelinesCreated: this.gpu?.pipelinesCreated ?? 0, liveBuffers: this.gpu?.liveBuffers ?? 0 };
  }

  split<D extends FixedDType>(
    x: GpuTensor<D>,
    options: SplitOptions & OutputOptions<Fixed<D>>,
  ): Promise<GpuTensor<D>[]>;
  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  async split(x: AnyTensor, options: SplitOptions & OutputOptions): Promise<AnyTensor[]> {
    const [view, plan, out] = this.splitArguments('split', x, options);
    return this.execute(plan, view, plan.outputShapes, out);
  }

  async run<const N extends SplitNode>(node: N, options?: OutputOptions): Promise<NodeOutputs<N>> {
    this.usable('run');
    const r = resolveRun(node);
    requireInputUsage(r.data, 'run');
    return (await this.execute(
      r.plan,
      r.data,
      r.outputShapes,
      readOptions(options, 'run', ['layout', 'alias', 'into']),
    )) as NodeOutputs<N>;
  }

  encodeSplit<D extends FixedDType>(
    encoder: GPUCommandEncoder,
    x: GpuTensor<D>,
    options: SplitOptions & OutputOptions<Fixed<D>>,
  ): GpuTensor<D>[] {
    const gpu = this.requireGpu('encodeSplit');
    check(
      isA(encoder, 'GPUCommandEncoder', ['beginComputePass']),
      'BAD_INPUT',
      () => `encodeSplit: expected a GPUCommandEncoder, got ${show(encoder)}`,
      'input:encoder',
    );
    const [view, plan, out] = this.splitArguments('encodeSplit', x, options);
    check(view.kind === 'gpu', 'BAD_INPUT', () => 'encodeSplit: the input must be a GPU tensor', 'input:input');
    const r = gpu.encodeResident(this.request(plan, view, plan.outputShapes, out, 'none'), view, encoder);
    this.last = r.stats;
    return r.outputs as GpuTensor<D>[];
  }

  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D> {
    const gpu = this.requireGpu('upload');
    const view = readTensor(x, 'upload');
    check(
      view.kind === 'host' && view.dtype !== 'string',
      view.kind === 'host' ? 'WRONG_BACKEND' : 'BAD_INPUT',
      () =>
        `upload: ${view.kind === 'host' ? 'string tensors cannot live on the GPU' : 'takes a host tensor, got a GPU tensor'}`,
      'input:input',
    );
    return gpu.upload(view) as GpuTensor<D>;
  }

  async download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>> {
    const gpu = this.requireGpu('download');
    const view = readTensor(x, 'download');
    check(view.kind === 'gpu', 'BAD_INPUT', () => 'download: takes a GPU tensor, got a host tensor', 'input:input');
    return (await gpu.download(view)) as HostTensor<D>;
  }

  release(x: GpuTensor | undefined): void {
    release(x);
  }

  async calibrate(): Promise<void> {
    this.alive('calibrate');
    if (this.device) await calibrate(this.device);
  }

  destroy(): void {
    if (!this.destroyed) {
      this.destroyed = true;
      this.gpu?.destroy();
      if (this.ownsDevice) this.device?.destroy();
    }
  }

  /** The input, plan and output options of split() and encodeSplit(), each read once. */
  private splitArguments(what: string, x: unknown, options: unknown): [TensorView, SplitPlan, Out] {
    this.usable(what);
    const view = readTensor(x, `${what}: input`);
    requireInputUsage(view, what);
    const o = readOptions(options, what, ['axis', 'sizes', 'parts', 'layout', 'alias', 'into']);
    check(
      (o.sizes === undefined) !== (o.parts === undefined),
      'BAD_OPTIONS',
      () => `${what}: give exactly one of sizes and parts`,
      'option:sizes',
    );
    const axis = o.axis === undefined ? 0 : asInt(o.axis);
    check(
      axis !== undefined,
      'AXIS_RANGE',
      () => `${what}: axis must be an integer, got ${show(o.axis)}`,
      'option:axis',
    );
    const sizes =
      o.sizes !== undefined
        ? readLengths(o.sizes, what, 'option:sizes')
        : equalParts(
            view.shape[normalizeAxis(axis, view.shape.length, what)]!,
            readCount(o.parts, what, 'option:parts', 'BAD_PARTS'),
          );
    const plan = planSplitRecent(view.dtype, view.shape, axis, sizes, what, {
      axis: 'option:axis',
      sizes: o.sizes ? 'option:sizes' : 'option:parts',
    });
    return [view, plan, o];
  }

  private request(
    plan: SplitPlan,
    x: TensorView,
    shapes: SplitRequest['shapes'],
    out: Out,
    alias: SplitRequest['alias'],
  ): SplitRequest {
    return {
      plan,
      shapes,
      strategy: this.strategy,
      layout: readChoice(out.layout, ['shared', 'separate'] as const, 'shared', 'split', 'option:layout'),
      alias: readChoice(out.alias, ['owned', 'any', 'none'] as const, alias, 'split', 'option:alias'),
      into:
        x.kind === 'gpu' ? readInto(out.into, x, shapes, plan.outputShapes, plan.axis, 'split', checkLive) : undefined,
    };
  }

  /** Runs a checked plan where its input lives: host data on the CPU or through the GPU, GPU data on the GPU. */
  private async execute(
    plan: SplitPlan,
    x: TensorView,
    shapes: SplitRequest['shapes'],
    out: Out,
  ): Promise<AnyTensor[]> {
    check(
      x.kind === 'gpu' || (out.layout === undefined && out.alias === undefined && out.into === undefined),
      'BAD_OPTIONS',
      () => 'split: layout, alias and into place GPU outputs; a host input gives host outputs',
      out.into === undefined ? 'option:layout' : 'option:into',
    );
    const req = this.request(plan, x, shapes, out, 'owned');
    const r =
      x.kind === 'gpu'
        ? await this.requireGpu('split').splitResident(req, x)
        : this.gpu && !x.strings && !x.dtype.startsWith('complex')
          ? await this.gpu.splitHost(req, x)
          : { outputs: splitOnCpu(plan, x, shapes), stats: CPU_STATS };
    this.last = r.stats;
    return r.outputs;
  }

  /**
   * Throws when this engine was destroyed, its device lost, or a late GPU error is unacknowledged: the one check every
   * call makes.
   */
  private usable(what: string): void {
    this.alive(what);
    const [first] = this.late;
    if (first)
      throw new SplitError(
        'GPU_ERROR',
        `${what}: refused until engine.acknowledge(): ${first.message}`,
        'engine:engine',
      );
  }

  /** Throws when this engine was destroyed or its device lost (checked again after every wait). */
  private alive(what: string): void {
    check(!this.destroyed, 'RELEASED', () => `${what}: this engine was destroyed`, 'engine:engine');
    check(
      this.lost === undefined,
      'DEVICE_LOST',
      () => `${what}: the GPU device was lost: ${this.lost}`,
      'engine:device',
    );
  }

  private requireGpu(what: string): GpuExecutor {
    this.usable(what);
    if (!this.gpu)
      throw new SplitError(
        'WRONG_BACKEND',
        `${what}: this engine runs on the CPU backend and has no GPU device (${this.fallbackReason ?? "it was created with backend: 'cpu'"}); ` +
          "check engine.backend before a GPU call, or create the engine with backend: 'webgpu' to fail at creation",
        'engine:backend',
      );
    return this.gpu;
  }
}

/**
 * A GPU input's buffer needs STORAGE | COPY_SRC, whatever the plan: which of the two a split uses
 * depends on the shapes and the device, so a buffer that worked for one split would fail another.
 */
function requireInputUsage(x: TensorView, what: string): void {
  if (x.kind !== 'gpu') return;
  const missing = missingUsage(x.buffer, ['STORAGE', 'COPY_SRC']);
  check(
    missing.length === 0,
    'BAD_INPUT',
    () =>
      `${what}: the input's GPU buffer needs usage ${missing.join(' | ')}: every split's input needs STORAGE | COPY_SRC ` +
      '(create it with GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, or TENSOR_USAGE from cleave)',
    'input:input.buffer',
  );
}
