// The public engine: one flow for every call (read the caller's objects once, validate, plan,
// execute on the GPU or the CPU executor). Outputs live where the input lived: host tensors in,
// host tensors out; GPU tensors in, GPU tensors out with no readback.

import { type SplitSubject, SplitError, check, show } from './errors.js';
import type { DType, FixedDType } from './dtype.js';
import { type AnyTensor, type GpuTensor, type GpuView, type HostTensor, type TensorView, readTensor } from './tensor.js';
import { readChoice, readCount, readInteger, readLengths, readOptions } from './options.js';
import { type SplitPlan, equalParts, normalizeAxis, planSplit } from './planner/split.js';
import type { Strategy } from './planner/gpu.js';
import { CPU_STATS, type SplitStats } from './stats.js';
import { splitOnCpu } from './cpu/split.js';
import { GpuExecutor, type SplitRequest } from './gpu/executor.js';
import { acquireDevice, isGpuDevice } from './gpu/device.js';
import { release } from './gpu/leases.js';
import { warmUp } from './gpu/pipelines.js';
import { type SplitNode, resolveRun } from './ops/index.js';

export type Backend = 'webgpu' | 'cpu';

export interface SplitEngineOptions {
  /** Use this device (Cleave never destroys a device it did not create). */
  readonly device?: GPUDevice;
  /** 'auto' (default) uses WebGPU when an adapter exists, else the CPU (`fallbackReason` says why). */
  readonly backend?: 'auto' | Backend;
  /** Force a GPU strategy where the plan allows it; 'auto' (default) lets the planner choose. */
  readonly strategy?: 'auto' | Strategy;
}

/** Split lengths along `axis` (default 0), or a number of equal parts with a smaller tail. */
export type SplitOptions =
  | { readonly axis?: number; readonly sizes: readonly number[]; readonly parts?: never }
  | { readonly axis?: number; readonly parts: number; readonly sizes?: never };

/** Where GPU outputs go; for GPU-resident inputs only. */
export interface OutputOptions {
  /** 'shared' (default): one buffer, outputs at aligned offsets. 'separate': a buffer per output, at offset 0. */
  readonly layout?: 'shared' | 'separate';
  /** Outputs as views of the input: 'owned' (default) when this engine owns it, 'any', or 'none' (always copy). */
  readonly alias?: 'owned' | 'any' | 'none';
}

export interface EngineStats extends SplitStats {
  /** Pipelines compiled on this engine's device (0 on the CPU backend). */
  readonly pipelinesCreated: number;
  /** Buffers this engine created that are still alive (leased, pooled or cached). */
  readonly liveBuffers: number;
}

/** A node's outputs: GPU tensors when its data input is on the GPU, else host tensors. */
export type NodeOutputs<N extends SplitNode> = N['inputs'][0] extends GpuTensor ? GpuTensor[] : HostTensor[];

export interface SplitEngine {
  readonly backend: Backend;
  /** The device in use (undefined on the CPU backend). */
  readonly device: GPUDevice | undefined;
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string } | undefined;
  /** Why an 'auto' engine runs on the CPU (no WebGPU, no adapter, ...); undefined otherwise. */
  readonly fallbackReason: string | undefined;
  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  split<D extends FixedDType>(x: GpuTensor<D>, options: SplitOptions & OutputOptions): Promise<GpuTensor<D>[]>;
  /** Runs one operator node (Split, SplitToSequence, VariadicSplit); outputs live where the data input lived. */
  run<const N extends SplitNode>(node: N, options?: OutputOptions): Promise<NodeOutputs<N>>;
  /** Records a split of a GPU tensor into your encoder; outputs are valid once you submit it. Copies unless `alias` says otherwise. */
  encodeSplit<D extends FixedDType>(encoder: GPUCommandEncoder, x: GpuTensor<D>, options: SplitOptions & OutputOptions): GpuTensor<D>[];
  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D>;
  download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>>;
  /** Ends a GPU tensor's use; its buffer returns to its engine's pool with the last tensor of its lease. */
  release(x: GpuTensor | undefined): void;
  /** Frees every buffer the engine created, and its device if it created that too. */
  destroy(): void;
  readonly stats: EngineStats;
}

const BACKENDS = ['auto', 'webgpu', 'cpu'] as const;
const STRATEGIES = ['auto', 'alias', 'copy', 'gather'] as const;
const at = (name: string): SplitSubject => ({ kind: 'engine', name });

export async function createSplitEngine(options?: SplitEngineOptions): Promise<SplitEngine> {
  const o = readOptions(options, 'createSplitEngine', ['device', 'backend', 'strategy'], 'engine');
  const want = readChoice(o.backend, BACKENDS, 'auto', 'createSplitEngine', at('backend'));
  const strategy = readChoice(o.strategy, STRATEGIES, 'auto', 'createSplitEngine', at('strategy'));
  if (o.device !== undefined) {
    check(isGpuDevice(o.device), 'BAD_OPTIONS', () => `createSplitEngine: 'device' must be a GPUDevice, got ${show(o.device)}`, at('device'));
    check(want !== 'cpu', 'BAD_OPTIONS', () => "createSplitEngine: a 'device' was given with backend 'cpu'; give one or the other", at('device'));
    const info = o.device.adapterInfo;
    await warmUp(o.device);
    return new Engine(o.device, info && { vendor: info.vendor, architecture: info.architecture }, false, strategy, undefined);
  }
  if (want === 'cpu') return new Engine(undefined, undefined, false, strategy, undefined);
  const found = await acquireDevice();
  if ('reason' in found) {
    check(want === 'auto', 'NO_WEBGPU', () => `createSplitEngine: backend 'webgpu' was asked for, but ${found.reason}`, at('backend'));
    return new Engine(undefined, undefined, false, strategy, found.reason);
  }
  await warmUp(found.device);
  return new Engine(found.device, found.adapterInfo, true, strategy, undefined);
}

class Engine implements SplitEngine {
  readonly backend: Backend;
  private readonly gpu: GpuExecutor | undefined;
  private destroyed = false;
  private lost: string | undefined;
  /** Of the split that finished last. */
  private last: SplitStats = CPU_STATS;

  constructor(
    readonly device: GPUDevice | undefined,
    readonly adapterInfo: SplitEngine['adapterInfo'],
    private readonly ownsDevice: boolean,
    private readonly strategy: 'auto' | Strategy,
    readonly fallbackReason: string | undefined,
  ) {
    this.backend = device ? 'webgpu' : 'cpu';
    this.gpu = device ? new GpuExecutor(device, (what) => this.usable(what)) : undefined;
    void device?.lost.then((info) => { this.lost = info.message || info.reason || 'lost'; });
  }

  get stats(): EngineStats {
    return { ...this.last, pipelinesCreated: this.gpu?.pipelinesCreated ?? 0, liveBuffers: this.gpu?.liveBuffers ?? 0 };
  }

  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  split<D extends FixedDType>(x: GpuTensor<D>, options: SplitOptions & OutputOptions): Promise<GpuTensor<D>[]>;
  async split(x: AnyTensor, options: SplitOptions & OutputOptions): Promise<AnyTensor[]> {
    this.usable('split');
    const view = readTensor(x, 'split: input');
    const { plan, out } = this.splitArguments(view, options, 'split');
    return this.execute(plan, view, plan.outputShapes, out, 'owned');
  }

  async run<const N extends SplitNode>(node: N, options?: OutputOptions): Promise<NodeOutputs<N>> {
    this.usable('run');
    const r = resolveRun(node);
    const out = readOptions(options, 'run', ['layout', 'alias']);
    return await this.execute(r.plan, r.data, r.outputShapes, out, 'owned') as NodeOutputs<N>;
  }

  encodeSplit<D extends FixedDType>(encoder: GPUCommandEncoder, x: GpuTensor<D>, options: SplitOptions & OutputOptions): GpuTensor<D>[] {
    this.usable('encodeSplit');
    const gpu = this.requireGpu('encodeSplit');
    check(isEncoder(encoder), 'BAD_INPUT', () => `encodeSplit: expected a GPUCommandEncoder, got ${show(encoder)}`, { kind: 'input', name: 'encoder' });
    const view = readTensor(x, 'encodeSplit: input');
    check(view.kind === 'gpu', 'BAD_INPUT', () => 'encodeSplit: the input must be a GPU tensor; split host tensors with split()', { kind: 'input', name: 'input' });
    const { plan, out } = this.splitArguments(view, options, 'encodeSplit');
    const r = gpu.encodeSplit(encoder, this.request(plan, plan.outputShapes, out, 'none'), view as GpuView);
    this.last = r.stats;
    return r.outputs as GpuTensor<D>[];
  }

  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D> {
    this.usable('upload');
    const view = readTensor(x, 'upload');
    check(view.kind === 'host', 'BAD_INPUT', () => 'upload: the tensor is already on the GPU (it has a buffer)', { kind: 'input', name: 'input' });
    check(view.dtype !== 'string', 'WRONG_BACKEND', () => 'upload: string tensors cannot live on the GPU; split them as host tensors',
      { kind: 'input', name: 'input', part: 'dtype' });
    return this.requireGpu('upload').upload(view) as GpuTensor<D>;
  }

  async download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>> {
    this.usable('download');
    const view = readTensor(x, 'download');
    check(view.kind === 'gpu', 'BAD_INPUT', () => 'download: the tensor is already on the host (it has data, not a buffer)', { kind: 'input', name: 'input' });
    return await this.requireGpu('download').download(view as GpuView) as HostTensor<D>;
  }

  release(x: GpuTensor | undefined): void {
    release(x);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.gpu?.destroy();
    if (this.ownsDevice) this.device?.destroy();
  }

  /** The plan and output options of split() and encodeSplit(), read from the options object once. */
  private splitArguments(x: TensorView, options: unknown, what: string): { plan: SplitPlan; out: { layout?: unknown; alias?: unknown } } {
    const o = readOptions(options, what, ['axis', 'sizes', 'parts', 'layout', 'alias'], 'option', false);
    check(o.sizes === undefined || o.parts === undefined, 'BAD_OPTIONS', () => `${what}: give either sizes or parts, not both`, { kind: 'option', name: 'parts' });
    check(o.sizes !== undefined || o.parts !== undefined, 'BAD_OPTIONS',
      () => `${what}: give sizes (split lengths) or parts (a number of outputs)`, { kind: 'option', name: 'sizes' });
    const axis = readInteger(o.axis, 0, what, { kind: 'option', name: 'axis' });
    const sizes = o.sizes !== undefined ? readLengths(o.sizes, what, { kind: 'option', name: 'sizes' })
      : equalParts(x.shape[normalizeAxis(axis, x.shape.length, what)]!, readCount(o.parts, what, { kind: 'option', name: 'parts' }, 'BAD_PARTS'));
    const subjects = { axis: { kind: 'option', name: 'axis' }, sizes: { kind: 'option', name: o.sizes !== undefined ? 'sizes' : 'parts' } } as const;
    return { plan: planSplit(x.dtype, x.shape, axis, sizes, what, subjects), out: { layout: o.layout, alias: o.alias } };
  }

  private request(plan: SplitPlan, shapes: SplitRequest['shapes'], out: { layout?: unknown; alias?: unknown }, alias: SplitRequest['alias']): SplitRequest {
    return {
      plan, shapes, strategy: this.strategy,
      layout: readChoice(out.layout, ['shared', 'separate'] as const, 'shared', 'split', { kind: 'option', name: 'layout' }),
      alias: readChoice(out.alias, ['owned', 'any', 'none'] as const, alias, 'split', { kind: 'option', name: 'alias' }),
    };
  }

  /** Runs a checked plan where its input lives: host data on the CPU or through the GPU, GPU data on the GPU. */
  private async execute(plan: SplitPlan, x: TensorView, shapes: SplitRequest['shapes'], out: { layout?: unknown; alias?: unknown },
    alias: SplitRequest['alias']): Promise<AnyTensor[]> {
    const req = this.request(plan, shapes, out, alias);
    if (x.kind === 'gpu') {
      const r = await this.requireGpu('split').splitResident(req, x);
      this.last = r.stats;
      return r.outputs;
    }
    check(out.layout === undefined && out.alias === undefined, 'BAD_OPTIONS',
      () => "split: 'layout' and 'alias' place GPU outputs; a host input gives host outputs", { kind: 'option', name: out.layout === undefined ? 'alias' : 'layout' });
    if (!this.gpu || x.strings || x.dtype === 'complex64' || x.dtype === 'complex128') {
      this.last = CPU_STATS;
      return splitOnCpu(plan, x, shapes);
    }
    const r = await this.gpu.splitHost(req, x);
    this.last = r.stats;
    return r.outputs;
  }

  /** Throws when this engine was destroyed or its device lost: the one check every call (and every resumed wait) makes. */
  private usable(what: string): void {
    check(!this.destroyed, 'RELEASED', () => `${what}: this engine was destroyed`, at('engine'));
    check(this.lost === undefined, 'DEVICE_LOST', () => `${what}: the GPU device was lost: ${this.lost}`, at('device'));
  }

  private requireGpu(what: string): GpuExecutor {
    if (!this.gpu) throw new SplitError('WRONG_BACKEND', `${what}: this engine runs on the CPU backend and has no GPU device`, at('backend'));
    return this.gpu;
  }
}

function isEncoder(e: unknown): e is GPUCommandEncoder {
  const cls = (globalThis as { GPUCommandEncoder?: unknown }).GPUCommandEncoder;
  if (typeof cls === 'function') return e instanceof (cls as new () => GPUCommandEncoder);
  return typeof e === 'object' && e !== null && typeof (e as GPUCommandEncoder).beginComputePass === 'function';
}
