// The node contract every front-end reads: a node as an ONNX or OpenVINO runtime would hand it
// over (positional inputs, attributes by their spec names, opset), and what a front-end resolves
// it to (the version that applied, a planner plan, the output shapes).

import type { DType } from '../dtype.js';
import type { HostData } from '../host-data.js';
import type { GpuInput, GpuTensor, HostInput, HostTensor } from '../tensor.js';
import type { TensorView } from '../read/tensor.js';
import type { SplitPlan } from '../planner/split.js';

/** The operators `engine.run` takes: ONNX Split and SplitToSequence, OpenVINO VariadicSplit. */
export type OpName = 'Split' | 'SplitToSequence' | 'VariadicSplit';

/**
 * One operator node, as an ONNX or OpenVINO runtime hands it over: positional inputs, attributes by their spec
 * names, the opset. `engine.run` runs it; {@link resolveNode} and {@link inferShapes} read it without moving data.
 * `T` is what an input may be: any host or GPU tensor (the calls take a node of any {@link TensorLike} inputs and
 * check each with {@link CheckedNode}).
 */
export interface SplitNode<T = HostTensor<DType, HostData<DType>> | GpuTensor> {
  /** The operator. */
  readonly op: OpName;
  /** ONNX opset; any opset maps to the newest version <= it. Ignored for VariadicSplit. */
  readonly opset?: number;
  /**
   * Positional inputs as in the spec; undefined marks an omitted optional input. The data input may be a host or a
   * GPU tensor; parameter inputs (`split`, `axis`, `split_lengths`) must be host tensors.
   */
  readonly inputs: readonly (T | undefined)[];
  /** Attributes, by their ONNX names; each version accepts only its own. */
  readonly attrs?: {
    /** Split and SplitToSequence: the axis to split (negative counts from the back). Default 0. */
    readonly axis?: number;
    /** Split-1, -2 and -11: the output lengths. */
    readonly split?: readonly number[];
    /** Split-18: the number of equal parts, with a smaller tail. */
    readonly num_outputs?: number;
    /** SplitToSequence: 0 drops the axis from chunks of 1 when no `split` is given. */
    readonly keepdims?: number;
  };
  /**
   * How many outputs the node declares. Only Split-1 to -13 without `split` need it (the axis is cut into that many
   * equal parts); elsewhere the node gives the count (Split-18's `num_outputs`, `split`, VariadicSplit's
   * `split_lengths`), and a declared count must agree with it (`OUTPUT_COUNT`; SplitToSequence takes 1 or the number
   * of tensors).
   */
  readonly outputs?: number;
}

/** Anything with a `dtype` string, literal or widened: what a node's inputs are first read as, to check each. */
export interface TensorLike {
  /** The dtype as written. */
  readonly dtype: string;
}

/**
 * The node a call takes: `N` as written, each input checked as the tensor its own dtype makes it ({@link HostInput},
 * {@link GpuInput}), so that a mismatched input, or one whose dtype was widened to `string`, is reported as itself.
 */
export type CheckedNode<N extends SplitNode<TensorLike>> = N & {
  /** Each input, checked. */
  readonly inputs: { readonly [I in keyof N['inputs']]: CheckedInput<N['inputs'][I]> };
};

/** One node input as {@link CheckedNode} checks it: a GPU tensor if it has a `buffer`, else a host tensor. */
export type CheckedInput<T> = T extends TensorLike
  ? 'buffer' extends keyof T
    ? GpuInput<T['dtype']>
    : HostInput<T['dtype'], T[keyof T & 'data']>
  : T;

/** A node validated against its version's rules and planned: what {@link resolveNode} returns. */
export interface ResolvedNode {
  /** e.g. 'Split-18': the version that applies, as messages name it. */
  readonly label: string;
  /** The split the node makes. */
  readonly plan: SplitPlan;
  /** Output shapes (differ from plan.outputShapes only where keepdims=0 drops the axis). */
  readonly outputShapes: readonly (readonly number[])[];
}

/**
 * A node read and checked against its version's rules, not planned yet: its label, its data input as read, the values
 * its plan depends on as read (`read`: attributes and parameter inputs), and `plan`, which plans it from those.
 */
export interface ReadNode {
  readonly label: string;
  readonly data: TensorView;
  readonly read: readonly unknown[];
  plan(): ResolvedNode;
}
