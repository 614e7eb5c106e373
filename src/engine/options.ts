// The options of the public API, as types: creating an engine, cutting a split (axis and lengths),
// and placing its GPU outputs (layout, aliasing, the caller's destinations). read/options.ts reads
// them at run time; engine/api.ts is the engine that takes them.

import type { SplitError } from '../errors.js';
import type { FixedDType } from '../dtype.js';
import type { Into } from '../tensor.js';
import type { Strategy } from '../planner/types.js';
import type { CostModel } from '../planner/costs.js';

/** Where an engine splits: 'webgpu' (on a GPU device) or 'cpu' (Cleave's CPU executor). */
export type Backend = 'webgpu' | 'cpu';

/** The options of {@link createSplitEngine}; every one is optional. */
export interface SplitEngineOptions {
  /** Use this device (Cleave never destroys a device it did not create). */
  readonly device?: GPUDevice;
  /** 'auto' (default) uses WebGPU when an adapter exists, else the CPU (`fallbackReason` says why). */
  readonly backend?: 'auto' | Backend;
  /** Force a GPU strategy where the plan allows it; 'auto' (default) lets the planner choose. */
  readonly strategy?: 'auto' | Strategy;
  /**
   * The costs to plan with: ones `engine.calibrate()` measured on this kind of device before, kept by you. Without
   * them, the engine plans with its adapter's fixed table (docs/performance.md gives both tables); either way the
   * plans are the same on every run.
   */
  readonly costs?: CostModel;
  /**
   * Hears the GPU error (`GPU_ERROR`) of a split that resolved before its GPU errors were known (a
   * caller's buffer split again, then found destroyed): its outputs are refused from then on. Without
   * it, such errors collect in `lateErrors` and the engine refuses its calls until `acknowledge()`.
   *
   * @param error - The late `GPU_ERROR`; the listener is called with the engine as `this`.
   */
  readonly onLateError?: (error: SplitError) => void;
}

/**
 * Split lengths along `axis` (default 0), or a number of equal parts with a smaller tail: exactly one of `sizes` and
 * `parts`.
 */
export type SplitOptions =
  | {
      /** The axis to split; negative counts from the back. Default 0. */
      readonly axis?: number;
      /** Each output's length along the axis; they must sum to the axis's length. */
      readonly sizes: readonly number[];
      /** Not with `sizes`. */
      readonly parts?: never;
    }
  | {
      /** The axis to split; negative counts from the back. Default 0. */
      readonly axis?: number;
      /** The number of outputs: chunks of ceil(dim / parts), clamped to what remains (5 into 4 = [2, 2, 1, 0]). */
      readonly parts: number;
      /** Not with `parts`. */
      readonly sizes?: never;
    };

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
