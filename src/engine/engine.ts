// The engine: one flow for every call (read the caller's objects once, validate, plan, execute on
// the GPU or the CPU executor). Outputs live where the input lived: host tensors in, host tensors
// out; GPU tensors in, GPU tensors out with no readback. The engine keeps the API; what it is made
// of has its own module: its arguments (arguments.ts), whether it is usable (lifecycle.ts), the
// late-error ledger (late-errors.ts), and the executors. Operator nodes (`run`) are node-engine.ts's,
// so that an engine without them (`cleave-gpu/core`) leaves the operator front-ends out of a bundle.

import { SplitError, check, show } from '../errors.js';
import type { DType, FixedDType } from '../dtype.js';
import type { AnyTensor, GpuInput, GpuTensor, HostInput, HostOutput, HostTensor } from '../tensor.js';
import { type TensorView, readGpuTensor, readTensor } from '../read/tensor.js';
import { type OutputFields, requestOf, splitArguments } from './arguments.js';
import { isA } from '../read/webgpu-object.js';
import type { SplitPlan } from '../planner/split.js';
import type { Strategy } from '../planner/types.js';
import { CPU_STATS, type SplitStats } from '../stats.js';
import { splitOnCpu } from '../cpu/split.js';
import { GpuExecutor, type SplitRequest } from '../gpu/executor.js';
import { encodeResident, splitResident } from '../gpu/resident.js';
import { downloadTensor, splitHost, uploadTensor } from '../gpu/host.js';
import { release } from '../gpu/leases.js';
import { calibrate, costsOf } from '../gpu/calibrate.js';
import type { CoreSplitEngine, EngineStats } from './api.js';
import type { Backend, Fixed, OutputOptions, SplitEngineOptions, SplitOptions } from './options.js';
import { lateErrorLedger } from './late-errors.js';
import { type Lifecycle, lifecycle } from './lifecycle.js';

export class Engine implements CoreSplitEngine {
  readonly backend: Backend;
  private readonly gpu: GpuExecutor | undefined;
  private readonly life: Lifecycle;
  private readonly late = lateErrorLedger();
  /** Of the split that finished last. */
  private last: SplitStats = CPU_STATS;

  constructor(
    readonly device: GPUDevice | undefined,
    readonly adapterInfo: CoreSplitEngine['adapterInfo'],
    private readonly ownsDevice: boolean,
    private readonly strategy: 'auto' | Strategy,
    readonly fallbackReason: string | undefined,
    onLateError: SplitEngineOptions['onLateError'],
  ) {
    this.backend = device ? 'webgpu' : 'cpu';
    this.life = lifecycle(device);
    this.gpu =
      device &&
      new GpuExecutor(
        device,
        this.life.alive,
        // The caller's listener hears it as a method of the engine, or the ledger keeps it.
        (e) => (onLateError ? onLateError.call(this, e) : this.late.add(e)),
      );
    // Methods taken off the engine (`const { split } = engine`) still work.
    const methods = [
      'split',
      'encodeSplit',
      'upload',
      'download',
      'release',
      'destroy',
      'acknowledge',
      'calibrate',
    ] as const;
    for (const m of methods) this[m] = this[m].bind(this) as never;
  }

  get lateErrors(): readonly SplitError[] {
    return this.late.list();
  }

  acknowledge(): SplitError[] {
    return this.late.acknowledge();
  }

  get stats(): EngineStats {
    const gpu = this.gpu;
    const live = { pipelinesCreated: gpu?.pipelinesCreated ?? 0, liveBuffers: gpu?.liveBuffers ?? 0 };
    return { ...this.last, ...live, costs: this.device && costsOf(this.device) };
  }

  split<D extends string>(
    x: GpuInput<D>,
    options: SplitOptions & OutputOptions<Fixed<D & FixedDType>>,
  ): Promise<GpuTensor<D & FixedDType>[]>;
  split<D extends string, A>(x: HostInput<D, A>, options: SplitOptions): Promise<HostOutput<D & DType, A>[]>;
  split(x: unknown, options: unknown): Promise<AnyTensor[]> {
    // Not async: a split that needs no wait resolves in the caller's one await (a microtask costs
    // microseconds in some browsers, more than the split's own calls), and a bad call still rejects.
    try {
      this.usable('split');
      const [view, plan, out] = splitArguments('split', x, options);
      return this.execute(plan, view, plan.outputShapes, out);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  encodeSplit<D extends string>(
    encoder: GPUCommandEncoder,
    x: GpuInput<D>,
    options: SplitOptions & OutputOptions<Fixed<D & FixedDType>>,
  ): GpuTensor<D & FixedDType>[] {
    const gpu = this.requireGpu('encodeSplit');
    check(
      isA(encoder, 'GPUCommandEncoder', ['beginComputePass'], false),
      'BAD_INPUT',
      () => `encodeSplit: expected a GPUCommandEncoder, got ${show(encoder)}`,
      'input:encoder',
    );
    const [view, plan, out] = splitArguments('encodeSplit', x, options);
    check(view.kind === 'gpu', 'BAD_INPUT', () => 'encodeSplit: the input must be a GPU tensor', 'input:input');
    const req = requestOf(plan, view, plan.outputShapes, out, 'none', this.strategy);
    const r = encodeResident(gpu, req, view, encoder);
    this.last = r.stats;
    return r.outputs as GpuTensor<D & FixedDType>[];
  }

  upload<D extends string, A>(x: HostInput<D, A, FixedDType>): GpuTensor<D & FixedDType> {
    const gpu = this.requireGpu('upload');
    const view = readTensor(x, 'upload');
    check(
      view.kind === 'host' && view.dtype !== 'string',
      view.kind === 'host' ? 'WRONG_BACKEND' : 'BAD_INPUT',
      () =>
        'upload: ' +
        (view.kind === 'host' ? 'string tensors cannot live on the GPU' : 'takes a host tensor, got a GPU tensor'),
      'input:input',
    );
    return uploadTensor(gpu, view) as GpuTensor<D & FixedDType>;
  }

  async download<D extends string>(x: GpuInput<D>): Promise<HostTensor<D & FixedDType>> {
    const gpu = this.requireGpu('download');
    return (await downloadTensor(gpu, readGpuTensor(x, 'download'))) as HostTensor<D & FixedDType>;
  }

  release<D extends string>(x: GpuInput<D> | undefined): void {
    release(x);
  }

  async calibrate(): Promise<void> {
    this.life.alive('calibrate');
    if (this.device) await calibrate(this.device);
  }

  destroy(): void {
    if (this.life.end()) {
      this.gpu?.destroy();
      if (this.ownsDevice) this.device?.destroy();
    }
  }

  /**
   * Runs a checked plan where its input lives: host data on the CPU or through the GPU, GPU data on
   * the GPU. A resident split that needs no wait is finished when this returns.
   */
  protected execute(
    plan: SplitPlan,
    x: TensorView,
    shapes: SplitRequest['shapes'],
    out: OutputFields,
  ): Promise<AnyTensor[]> {
    check(
      x.kind === 'gpu' || (out.layout === undefined && out.alias === undefined && out.into === undefined),
      'BAD_OPTIONS',
      () => 'split: layout, alias and into place GPU outputs; a host input gives host outputs',
      out.into === undefined ? 'option:layout' : 'option:into',
    );
    const req = requestOf(plan, x, shapes, out, 'owned', this.strategy);
    const r =
      x.kind === 'gpu'
        ? splitResident(this.requireGpu('split'), req, x)
        : this.gpu && !x.strings && !x.dtype.startsWith('complex')
          ? splitHost(this.gpu, req, x)
          : { outputs: splitOnCpu(plan, x, shapes), stats: CPU_STATS };
    return r instanceof Promise ? r.then((done) => this.finished(done)) : Promise.resolve(this.finished(r));
  }

  /** A split's outputs, once it is done: its stats become the engine's. */
  private finished(r: { outputs: AnyTensor[]; stats: SplitStats }): AnyTensor[] {
    this.last = r.stats;
    return r.outputs;
  }

  /** The one check every call makes: the engine is alive and no late GPU error is unacknowledged. */
  protected usable(what: string): void {
    this.life.alive(what);
    this.late.refuse(what);
  }

  private requireGpu(what: string): GpuExecutor {
    this.usable(what);
    if (!this.gpu)
      throw new SplitError(
        'WRONG_BACKEND',
        `${what}: this engine runs on the CPU backend and has no GPU device ` +
          `(${this.fallbackReason ?? "it was created with backend: 'cpu'"}); ` +
          "check engine.backend before a GPU call, or create the engine with backend: 'webgpu' to fail at creation",
        'engine:backend',
      );
    return this.gpu;
  }
}
