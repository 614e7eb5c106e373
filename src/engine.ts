// The public engine: one flow for every call (validate, plan, execute), on the GPU executor or
// the CPU executor. Outputs live where the input lived: host tensors in, host tensors out; GPU
// tensors in, GPU tensors out with no readback.

import { SplitError, check } from './errors.js';
import { type DType, type FixedDType, isFixedDType } from './dtype.js';
import { type AnyTensor, type GpuTensor, type HostTensor, isGpuTensor, validateTensor } from './tensor.js';
import { type SplitPlan, type Strategy, equalParts, normalizeAxis, planSplit } from './planner.js';
import { splitOnCpu } from './cpu/split.js';
import { CPU_STATS, GpuExecutor, type SplitStats } from './gpu/executor.js';
import { acquireDevice } from './gpu/device.js';
import { type SplitNode, resolveNode } from './ops/index.js';

export type Backend = 'webgpu' | 'cpu';

export interface SplitEngineOptions {
  /** Use this device (Cleave never destroys a device it did not create). */
  readonly device?: GPUDevice;
  /** 'auto' (default) uses WebGPU when an adapter exists, else the CPU. */
  readonly backend?: 'auto' | Backend;
  /** Force a GPU strategy where the plan allows it; 'auto' (default) lets the planner choose. */
  readonly strategy?: 'auto' | Strategy;
}

/** Split lengths along `axis` (default 0), or a number of equal parts with a smaller tail. */
export type SplitOptions =
  | { readonly axis?: number; readonly sizes?: readonly number[]; readonly parts?: never }
  | { readonly axis?: number; readonly parts: number; readonly sizes?: never };

export interface EngineStats extends SplitStats {
  /** Pipelines compiled on this engine's device (0 on the CPU backend). */
  readonly pipelinesCreated: number;
  /** Buffers this engine created that are still alive. */
  readonly liveBuffers: number;
}

/** A node's outputs: GPU tensors when its data input is on the GPU, else host tensors. */
export type NodeOutputs<N extends SplitNode> = N['inputs'][0] extends GpuTensor ? GpuTensor[] : HostTensor[];

export interface SplitEngine {
  readonly backend: Backend;
  /** The device in use (undefined on the CPU backend). */
  readonly device: GPUDevice | undefined;
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string } | undefined;
  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  split<D extends FixedDType>(x: GpuTensor<D>, options: SplitOptions): Promise<GpuTensor<D>[]>;
  /** Runs one operator node (Split, SplitToSequence, VariadicSplit); outputs live where the data input lived. */
  run<const N extends SplitNode>(node: N): Promise<NodeOutputs<N>>;
  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D>;
  download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>>;
  /** Ends a GPU tensor's use; its buffer returns to the pool once no output of the same split is left. */
  release(x: GpuTensor | undefined): void;
  /** Frees every buffer the engine created, and its device if it created that too. */
  destroy(): void;
  readonly stats: EngineStats;
}

export async function createSplitEngine(options: SplitEngineOptions = {}): Promise<SplitEngine> {
  const want = options.backend ?? 'auto';
  check(['auto', 'webgpu', 'cpu'].includes(want), 'BAD_OPTIONS', () => `createSplitEngine: backend must be 'auto', 'webgpu' or 'cpu', got '${want}'`);
  if (want === 'cpu') return new Engine(undefined, undefined, false, options);
  if (options.device) return new Engine(options.device, undefined, false, options);
  const found = await acquireDevice();
  if (!found) {
    check(want === 'auto', 'NO_WEBGPU', () => "createSplitEngine: backend 'webgpu' was asked for but this environment has no WebGPU adapter");
    return new Engine(undefined, undefined, false, options);
  }
  return new Engine(found.device, found.adapterInfo, true, options);
}

export class Engine implements SplitEngine {
  readonly backend: Backend;
  private readonly gpu: GpuExecutor | undefined;
  private readonly strategy: 'auto' | Strategy;
  private destroyed = false;
  /** Of the split that finished last. */
  private last: SplitStats = { ...CPU_STATS, strategy: 'copy' };

  constructor(
    readonly device: GPUDevice | undefined,
    readonly adapterInfo: { readonly vendor: string; readonly architecture: string } | undefined,
    private readonly ownsDevice: boolean,
    options: SplitEngineOptions,
  ) {
    this.backend = device ? 'webgpu' : 'cpu';
    this.gpu = device ? new GpuExecutor(device) : undefined;
    this.strategy = options.strategy ?? 'auto';
  }

  get stats(): EngineStats {
    return { ...this.last, pipelinesCreated: this.gpu?.pipelinesCreated ?? 0, liveBuffers: this.gpu?.liveBuffers ?? 0 };
  }

  split<D extends DType>(x: HostTensor<D>, options: SplitOptions): Promise<HostTensor<D>[]>;
  split<D extends FixedDType>(x: GpuTensor<D>, options: SplitOptions): Promise<GpuTensor<D>[]>;
  async split(x: AnyTensor, options: SplitOptions): Promise<AnyTensor[]> {
    this.usable(x);
    validateTensor(x, 'split: input');
    const o = (options ?? {}) as { axis?: number; sizes?: readonly number[]; parts?: number };
    check(o.sizes === undefined || o.parts === undefined, 'BAD_OPTIONS', () => 'split: give either sizes or parts, not both');
    check(o.sizes !== undefined || o.parts !== undefined, 'BAD_OPTIONS', () => 'split: give sizes (split lengths) or parts (a number of outputs)');
    const axis = o.axis ?? 0;
    const rank = x.shape.length;
    const sizes = o.sizes ?? equalParts(x.shape[normalizeAxis(axis, rank)]!, o.parts!);
    return this.execute(planSplit(x.dtype, x.shape, axis, sizes), x);
  }

  async run<const N extends SplitNode>(node: N): Promise<NodeOutputs<N>> {
    this.usable(node?.inputs?.[0]);
    const r = resolveNode(node);
    return await this.execute(r.plan, node.inputs[0]!, r.outputShapes) as NodeOutputs<N>;
  }

  /** Runs a checked plan on the right executor; `x` has been validated. */
  async execute(plan: SplitPlan, x: AnyTensor, shapes = plan.outputShapes): Promise<AnyTensor[]> {
    const onCpu = !isGpuTensor(x) && (!this.gpu || !isFixedDType(x.dtype) || x.dtype === 'complex64' || x.dtype === 'complex128');
    if (onCpu) {
      this.last = CPU_STATS;
      return splitOnCpu(plan, x, shapes);
    }
    const gpu = this.requireGpu('a GPU tensor');
    const { outputs, stats } = isGpuTensor(x)
      ? await gpu.split(plan, x, this.strategy, shapes)
      : await gpu.splitHost(plan, x as HostTensor<FixedDType>, this.strategy, shapes);
    this.last = stats;
    return outputs;
  }

  upload<D extends FixedDType>(x: HostTensor<D>): GpuTensor<D> {
    this.usable();
    validateTensor(x as HostTensor, 'upload');
    check(isFixedDType(x.dtype), 'WRONG_BACKEND', () => 'upload: string tensors cannot live on the GPU; split them as host tensors');
    return this.requireGpu('upload').upload(x);
  }

  async download<D extends FixedDType>(x: GpuTensor<D>): Promise<HostTensor<D>> {
    this.usable(x);
    validateTensor(x as GpuTensor, 'download');
    return this.requireGpu('download').download(x);
  }

  release(x: GpuTensor | undefined): void {
    this.gpu?.release(x);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.gpu?.destroy();
    if (this.ownsDevice) this.device?.destroy();
  }

  private usable(t?: object): void {
    check(!this.destroyed, 'RELEASED', () => 'this engine was destroyed');
    this.gpu?.checkUsable(t);
  }

  private requireGpu(what: string): GpuExecutor {
    if (!this.gpu) throw new SplitError('WRONG_BACKEND', `${what}: this engine runs on the CPU backend and has no GPU device`);
    return this.gpu;
  }
}
