// The engine: one flow for every call. It reads the caller's objects once, finds the split program the call asks for
// (one it keeps, or a new one: the options checked and the split planned), and runs it where the input lives: host
// tensors in, host tensors out; GPU tensors in, GPU tensors out with no readback. It keeps the API, whether it is
// still usable (destroyed, its device lost), the late-error ledger, the costs it plans with, and its one plan cache.
// It does nothing a call did not ask for: no measurement, no compile, no buffer before a split needs one. Operator
// nodes (`run`) are node-engine.ts's, so that an engine without them (`cleave-gpu/core`) leaves the front-ends out
// of a bundle.

import { SplitError, check, guardRead } from '../errors.js';
import type { AnyTensor, GpuTensor, HostTensor } from '../tensor.js';
import { type TensorView, readGpuTensor, readInput, readTensor } from '../read/tensor.js';
import { readEncoder } from '../read/webgpu-object.js';
import { readChoice, readOptions } from '../read/options.js';
import type { GpuPlan, Strategy } from '../planner/types.js';
import type { CostModel } from '../planner/costs.js';
import { GpuExecutor } from '../gpu/executor.js';
import type { Done } from '../gpu/split.js';
import { type Table, makeTable } from '../gpu/encode.js';
import { checkLive, release } from '../gpu/leases.js';
import { measure } from '../gpu/calibrate.js';
import type { CoreSplitEngine, EngineStats } from './api.js';
import type { Backend, SplitEngineOptions } from './options.js';
import { type Context, type Fields, type Program, SPLIT_KEYS, finish, onGpu, programOf } from './program.js';
import { PlanCache } from './plans.js';

/** How an engine was opened (open.ts): its device, or why it has none, and its options as read. */
export interface Opened {
  readonly device: GPUDevice | undefined;
  readonly adapterInfo: CoreSplitEngine['adapterInfo'];
  readonly madeDevice: boolean;
  readonly fallbackReason: string | undefined;
  readonly strategy: 'auto' | Strategy;
  readonly costs: CostModel | undefined;
  readonly onLateError: SplitEngineOptions['onLateError'];
}

export class Engine implements Context {
  readonly backend: Backend;
  readonly gpu: GpuExecutor | undefined;
  readonly device: GPUDevice | undefined;
  readonly adapterInfo: CoreSplitEngine['adapterInfo'];
  readonly fallbackReason: string | undefined;
  readonly strategy: 'auto' | Strategy;
  /** The costs it plans with: its adapter's table, the ones it was given, or the last `calibrate()` measured. */
  costs: CostModel | undefined;
  readonly plans: PlanCache<Program>;
  private readonly madeDevice: boolean;
  private destroyed = false;
  private lost: string | undefined;
  private late: SplitError[] = [];
  /** The GPU plan of the split that finished last (undefined: on the CPU). */
  private last: GpuPlan | undefined;
  /** Frees the table of a program that nothing holds any more (a prepared split let go of, a failed call's). */
  private readonly collected = new FinalizationRegistry<Table>((t) => {
    if (this.gpu && !this.destroyed) this.gpu.retire(t);
  });

  constructor(o: Opened) {
    ({ device: this.device, adapterInfo: this.adapterInfo, fallbackReason: this.fallbackReason } = o);
    ({ strategy: this.strategy, costs: this.costs, madeDevice: this.madeDevice } = o);
    const { device, onLateError } = o;
    this.backend = device ? 'webgpu' : 'cpu';
    void device?.lost.then((info) => {
      this.lost = info.message || info.reason;
    });
    // The caller's listener hears a late error as a method of the engine, or the ledger keeps it.
    const onLate = (e: SplitError) => (onLateError ? onLateError.call(this, e) : this.late.push(e));
    this.gpu = device && new GpuExecutor(device, (what) => this.alive(what), onLate);
    this.plans = new PlanCache((p) => {
      if (p.table) this.gpu?.retire(p.table);
      this.collected.unregister(p);
    });
    // Methods taken off the engine (`const { split } = engine`) still work: every method is bound (a getter is not),
    // a subclass's too (node-engine.ts's `run`).
    const self = this as unknown as Record<string, unknown>;
    for (const proto of new Set<object>([Engine.prototype, new.target.prototype]))
      for (const m of Object.getOwnPropertyNames(proto)) {
        const f = Object.getOwnPropertyDescriptor(proto, m)?.value as unknown;
        if (typeof f === 'function' && m !== 'constructor') self[m] = f.bind(this);
      }
  }

  get lateErrors(): readonly SplitError[] {
    return [...this.late];
  }

  acknowledge(): SplitError[] {
    const all = this.late;
    this.late = [];
    return all;
  }

  get stats(): EngineStats {
    const g = this.last;
    return {
      strategy: g?.strategy ?? 'cpu',
      unitBits: g?.unitBits ?? 0,
      dispatches: g?.dispatches.length ?? 0,
      copies: g?.copies.length ?? 0,
      pipelinesCreated: this.gpu?.pipelinesCreated ?? 0,
      liveBuffers: this.gpu?.liveBuffers ?? 0,
      costs: this.costs,
    };
  }

  // The calls take and return what api.ts declares (createSplitEngine gives the engine that type); they read what they
  // are given as `unknown`, as plain JavaScript callers pass it.
  split(x: unknown, options: unknown): Promise<AnyTensor[]> {
    // Not async: a split that needs no wait resolves in the caller's one await (a microtask costs
    // microseconds in some browsers, more than the split's own calls), and a bad call still rejects.
    try {
      this.usable('split');
      const v = readInput(x, 'split');
      if (v.kind === 'gpu') this.requireGpu('split');
      const o = readOptions(options, 'split', SPLIT_KEYS);
      return finish(this, this.callProgram(v, o, 'split'));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  encodeSplit(encoder: unknown, x: unknown, options: unknown): AnyTensor[] {
    this.usable('encodeSplit');
    this.requireGpu('encodeSplit');
    const enc = readEncoder(encoder, 'encodeSplit');
    const v = readInput(x, 'encodeSplit');
    check(v.kind === 'gpu', 'BAD_INPUT', () => 'encodeSplit: the input must be a GPU tensor', 'input:input');
    return this.ran(this.callProgram(v, readOptions(options, 'encodeSplit', SPLIT_KEYS), 'encodeSplit', enc) as Done);
  }

  prepare(x: unknown, options: unknown): Program {
    this.usable('prepare');
    const v = readInput(x, 'prepare');
    // What a split of it would refuse: a GPU tensor on a CPU engine, a released one.
    if (v.kind === 'gpu') this.requireGpu('prepare');
    const ours = v.kind === 'gpu' && checkLive(v, 'prepare')?.home === this.gpu!.pool;
    const o = readOptions(options, 'prepare', SPLIT_KEYS);
    const q = programOf(this, v, o, 'prepare', this.costs);
    const into = q.destinations(o.into, v, 'prepare');
    const gpu = this.gpu;
    // The program of the prepared tensor's key: planned now, made ready ahead (compiled, its table and bind groups).
    const gpuSide = onGpu(gpu, v);
    const [p, bases] = gpuSide
      ? q.at(gpu, v.kind === 'gpu' ? v.byteOffset : 0, into, v.kind === 'gpu' && q.viewsAllowed(ours, into))
      : [q, []];
    p.prepared = true;
    p.into = into;
    if (gpuSide) p.prepareAhead(gpu, v, bases);
    return p;
  }

  upload(x: unknown): GpuTensor {
    this.usable('upload');
    const gpu = this.requireGpu('upload');
    const v = readTensor(x, 'upload');
    check(v.kind === 'host', 'BAD_INPUT', () => 'upload: takes a host tensor, got a GPU tensor', 'input:input');
    check(v.dtype !== 'string', 'WRONG_BACKEND', () => 'upload: string tensors cannot live on the GPU', 'input:input');
    return gpu.upload(v);
  }

  async download(x: unknown, options?: unknown): Promise<HostTensor> {
    this.usable('download');
    const gpu = this.requireGpu('download');
    const v = readGpuTensor(x, 'download');
    const o = readOptions(options, 'download', ['array']);
    const array = readChoice(o.array, ['Float16Array'] as const, undefined, 'download', 'option:array');
    const native = typeof (globalThis as { Float16Array?: unknown }).Float16Array === 'function';
    check(
      !array || (v.dtype === 'float16' && native),
      'BAD_OPTIONS',
      () =>
        v.dtype !== 'float16'
          ? `download: array 'Float16Array' is for float16 tensors, not ${v.dtype}`
          : "download: this runtime has no Float16Array (Node before 24): download without 'array' gives the bits, " +
            'and halfToNumber reads each',
      'option:array',
    );
    return gpu.download(v, array);
  }

  release(x: unknown): void {
    release(x);
  }

  async calibrate(): Promise<CostModel> {
    this.alive('calibrate');
    const gpu = this.requireGpu('calibrate');
    try {
      return (this.costs = await measure(gpu.device));
    } catch (e) {
      throw gpu.failure(e, 'calibrate: the measurement failed');
    }
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.gpu?.destroy();
    if (this.madeDevice) this.device?.destroy();
  }

  /** Throws when the engine was destroyed or its device lost. */
  alive(what: string): void {
    check(!this.destroyed, 'RELEASED', () => `${what}: this engine was destroyed`, 'engine:engine');
    check(!this.lost, 'DEVICE_LOST', () => `${what}: the GPU device was lost: ${this.lost}`, 'engine:device');
  }

  /** The one check every call makes: the engine is alive and no late GPU error is unacknowledged. */
  usable(what: string): void {
    this.alive(what);
    const [first] = this.late;
    if (first)
      throw new SplitError(
        'GPU_ERROR',
        `${what}: refused until engine.acknowledge(): ${first.message}`,
        'engine:engine',
      );
  }

  /** The engine's GPU, or WRONG_BACKEND on a CPU engine. */
  requireGpu(what: string): GpuExecutor {
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

  ran(d: Done): AnyTensor[] {
    this.last = d.gp;
    return d.outputs;
  }

  tableFor(p: Program, gp: GpuPlan): Table {
    const gpu = this.gpu!;
    const t = makeTable(gpu.device, gpu.pool, gp);
    this.collected.register(p, t, p);
    return t;
  }

  /**
   * Calls the program a call asks for: the split of one kept that `matches` (the caller's sizes are read while
   * comparing: a getter that throws is a SplitError, as any read of them), or one `make` makes; the program of the
   * call's key runs it (program.ts), kept once the call went through.
   */
  protected callWith(
    what: string,
    matches: (p: Program) => boolean,
    make: () => Program,
    call: (p: Program) => Done | Promise<Done>,
  ): Done | Promise<Done> {
    return call(guardRead(what, () => this.plans.find(matches), 'option:sizes') ?? make());
  }

  /** A split call's program, found or made, called on the input and destinations it was given. */
  private callProgram(v: TensorView, o: Fields, what: string, enc?: GPUCommandEncoder): Done | Promise<Done> {
    const make = () => programOf(this, v, o, what);
    const call = (p: Program) => p.call(v, p.destinations(o.into, v, what), what, enc);
    return this.callWith(what, (p) => p.matches(v, o), make, call);
  }
}
