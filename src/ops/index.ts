// Operator front-ends: ONNX Split (1, 2, 11, 13, 18), SplitToSequence (11, 24) and OpenVINO
// VariadicSplit-1. Each turns a node (inputs, attributes, opset) into the planner's arguments,
// enforcing its version's rules; the engine then runs the plan like any other split.

import { SplitError, check } from '../errors.js';
import type { DType } from '../dtype.js';
import type { ResolvedNode, SplitNode } from './types.js';
import { describe } from './node-rules.js';
import { resolveSplit } from './onnx-split.js';
import { resolveSplitToSequence } from './split-to-sequence.js';
import { resolveVariadicSplit } from './variadic-split.js';

export type { OpName, ResolvedNode, SplitNode } from './types.js';

/** Validates a node against its version's rules and plans it. Pure: no GPU, no data movement. */
export function resolveNode(node: SplitNode): ResolvedNode {
  check(typeof node === 'object' && node !== null, 'BAD_OPTIONS', () => `a node must be an object { op, inputs, ... }, got ${describe(node)}`);
  switch (node.op) {
    case 'Split': return resolveSplit(node);
    case 'SplitToSequence': return resolveSplitToSequence(node);
    case 'VariadicSplit': return resolveVariadicSplit(node);
    default:
      throw new SplitError('BAD_OPTIONS', `unknown op ${describe(node.op)}: Cleave runs 'Split', 'SplitToSequence' and 'VariadicSplit'`);
  }
}

/** Output dtypes and shapes of a node, with the same validation as running it. */
export function inferShapes(node: SplitNode): { dtype: DType; shape: number[] }[] {
  const r = resolveNode(node);
  return r.outputShapes.map((shape) => ({ dtype: r.plan.dtype, shape: [...shape] }));
}
