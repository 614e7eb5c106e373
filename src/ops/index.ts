// Operator front-ends: ONNX Split (1, 2, 11, 13, 18), SplitToSequence (11, 24) and OpenVINO
// VariadicSplit-1. Each turns a node (inputs, attributes, opset), read once, into the planner's
// arguments, enforcing its version's rules; the engine then runs the plan like any other split.

import type { DType } from '../dtype.js';
import { guardRead } from '../errors.js';
import type { ResolvedNode, ResolvedRun, SplitNode } from './types.js';
import { readNode } from './node-rules.js';
import { resolveSplit } from './onnx-split.js';
import { resolveSplitToSequence } from './split-to-sequence.js';
import { resolveVariadicSplit } from './variadic-split.js';

export type { OpName, ResolvedNode, ResolvedRun, SplitNode } from './types.js';

const FRONT_ENDS = {
  Split: resolveSplit,
  SplitToSequence: resolveSplitToSequence,
  VariadicSplit: resolveVariadicSplit,
};

/** Validates a node and plans it, keeping its data input as read (what the engine runs). */
export function resolveRun(node: SplitNode): ResolvedRun {
  // A caller's getter or Proxy that throws anywhere in the node becomes a SplitError.
  return guardRead('node', () => {
    const n = readNode(node);
    return FRONT_ENDS[n.op](n);
  });
}

/** Validates a node against its version's rules and plans it. Pure: no GPU, no data movement. */
export function resolveNode(node: SplitNode): ResolvedNode {
  const { label, plan, outputShapes } = resolveRun(node);
  return { label, plan, outputShapes };
}

/** Output dtypes and shapes of a node, with the same validation as running it. */
export function inferShapes(node: SplitNode): { dtype: DType; shape: number[] }[] {
  const r = resolveRun(node);
  return r.outputShapes.map((shape) => ({ dtype: r.plan.dtype, shape: [...shape] }));
}
