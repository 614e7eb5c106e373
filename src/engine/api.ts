// The engine's public types: its options, a split's options and where its outputs go, the engine
// interface every backend implements, and what it reports. The engine itself is engine.ts.

import type { SplitError } from '../errors.js';
import type { DType, FixedDType } from '../dtype.js';
import type { GpuTensor, HostTensor, Into } from '../tensor.js';
import type { Strategy } from '../planner/types.js';
import type { CostModel } from '../planner/costs.js';
import type { SplitStats } from '../stats.js';
import type { SplitNode } from '../ops/index.js';

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
  /** The device's costs the planner uses now: defaults until measured (`calibrate()`); undefined on the CPU. */
  readonly costs: CostModel | undefined;
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
