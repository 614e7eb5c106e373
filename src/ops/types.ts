// The node contract every front-end reads: a node as an ONNX or OpenVINO runtime would hand it
// over (positional inputs, attributes by their spec names, opset), and what a front-end resolves
// it to (the version that applied, a planner plan, the output shapes).

import type { GpuTensor, HostTensor } from '../tensor.js';
import type { TensorView } from '../read/tensor.js';
import type { SplitPlan } from '../planner/split.js';

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

/** A resolved node with its data input as read at the call (what the engine runs). */
export interface ResolvedRun extends ResolvedNode {
  readonly data: TensorView;
}
