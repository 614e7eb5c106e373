// Operator front-ends: ONNX Split (1, 2, 11, 13, 18), SplitToSequence (11, 24) and OpenVINO
// VariadicSplit-1. Each turns a node (inputs, attributes, opset) into the planner's arguments,
// enforcing its version's rules; the engine then runs the plan like any other split.

import { SplitError } from '../errors.js';
import type { DType } from '../dtype.js';
import type { GpuTensor, HostTensor } from '../tensor.js';
import type { SplitPlan } from '../planner.js';

export type OpName = 'Split' | 'SplitToSequence' | 'VariadicSplit';

export interface SplitNode {
  readonly op: OpName;
  /** ONNX opset; any opset maps to the newest version <= it. Ignored for VariadicSplit. */
  readonly opset?: number;
  /** Positional inputs as in the spec; undefined marks an omitted optional input. */
  readonly inputs: readonly (HostTensor | GpuTensor | undefined)[];
  readonly attrs?: {
    readonly axis?: number;
    readonly split?: readonly number[];
    readonly num_outputs?: number;
    readonly keepdims?: number;
  };
  /** How many outputs the node declares. */
  readonly outputs?: number;
}

export interface ResolvedNode {
  /** e.g. 'Split-18': the version that applies, as messages name it. */
  readonly label: string;
  readonly plan: SplitPlan;
  /** Output shapes (differ from plan.outputShapes only where keepdims=0 drops the axis). */
  readonly outputShapes: readonly (readonly number[])[];
}

/** Validates a node against its version's rules and plans it. Pure: no GPU, no data movement. */
export function resolveNode(node: SplitNode): ResolvedNode {
  throw new SplitError('BAD_OPTIONS', `${node.op}: operator front-ends are not implemented yet`);
}

/** Output dtypes and shapes of a node, with the same validation as running it. */
export function inferShapes(node: SplitNode): { dtype: DType; shape: number[] }[] {
  const r = resolveNode(node);
  return r.outputShapes.map((shape) => ({ dtype: r.plan.dtype, shape: [...shape] }));
}
