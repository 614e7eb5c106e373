// Operator front-ends: ONNX Split (1, 2, 11, 13, 18), SplitToSequence (11, 24) and OpenVINO
// VariadicSplit-1. Each turns a node (inputs, attributes, opset), read once, into the planner's
// arguments, enforcing its version's rules; the engine then runs the plan like any other split.

import type { DType } from '../dtype.js';
import { guardRead } from '../errors.js';
import type { TensorView } from '../read/tensor.js';
import type { CheckedNode, ReadNode, ResolvedNode, SplitNode, TensorLike } from './types.js';
import { readNode } from './node-rules.js';
import { resolveSplit } from './onnx-split.js';
import { resolveSplitToSequence } from './split-to-sequence.js';
import { resolveVariadicSplit } from './variadic-split.js';

export type { CheckedInput, CheckedNode, OpName, ReadNode, ResolvedNode, SplitNode, TensorLike } from './types.js';

const FRONT_ENDS = {
  Split: resolveSplit,
  SplitToSequence: resolveSplitToSequence,
  VariadicSplit: resolveVariadicSplit,
};

/** Reads a node and checks it against its version's rules, without planning it (what `engine.run` does first). */
export function readRun(node: unknown): ReadNode {
  // A caller's getter or Proxy that throws anywhere in the node becomes a SplitError.
  return guardRead('node', () => {
    const n = readNode(node);
    return FRONT_ENDS[n.op](n);
  });
}

/**
 * What a node's plan depends on, as one string: its version, its data input's kind, dtype and shape, and the values
 * its front-end read (attributes, parameter tensors' bytes). Undefined when a value is of a kind no key holds (such a
 * node is planned at every call).
 */
export function keyOf(r: ReadNode): string | undefined {
  const parts: string[] = [r.label, r.data.kind, r.data.dtype, r.data.shape.join()];
  for (const v of r.read) {
    const t = v as TensorView | null;
    if (v === undefined || typeof v === 'number' || typeof v === 'bigint') parts.push(`${typeof v}:${v}`);
    else if (Array.isArray(v) && v.every((n) => typeof n === 'number')) parts.push(`[${v.join()}]`);
    else if (typeof t === 'object' && t?.kind === 'host' && !t.strings)
      parts.push(`${t.dtype}[${t.shape.join()}]${t.bytes.join()}`);
    else return undefined;
  }
  return parts.join('|');
}

/**
 * Validates a node against its version's rules and plans it, without moving any data.
 *
 * @param node - The node (its data input may be a host or a GPU tensor; only its fields are read).
 * @returns The version that applies, the plan and the output shapes.
 * @throws {@link SplitError} `BAD_OPTIONS`: not a node, or an unknown op or field; `BAD_OPSET`, `BAD_ATTRIBUTE`,
 *   `BAD_INPUT`, `BAD_DTYPE`, `OUTPUT_COUNT`: the node breaks its version's rules; `BAD_SHAPE`, `DATA_TYPE`,
 *   `DATA_LENGTH`, `WRONG_BACKEND`: an input is not a valid tensor; `RANK`, `AXIS_RANGE`, `BAD_SIZE`, `SIZE_SUM`,
 *   `NOT_DIVISIBLE`: the split does not fit the data; `TOO_LARGE`: past a cap.
 * @example
 * ```ts
 * import { resolveNode, tensor } from 'cleave-gpu';
 *
 * const x = tensor('float32', new Float32Array(10), [2, 5]);
 * const r = resolveNode({ op: 'Split', opset: 13, inputs: [x], attrs: { axis: 1 }, outputs: 5 });
 * console.log(r.label, r.plan.sizes); // Split-13 [1, 1, 1, 1, 1]
 * ```
 */
export function resolveNode<N extends SplitNode<TensorLike>>(node: CheckedNode<N>): ResolvedNode {
  return readRun(node).plan();
}

/**
 * The dtype and shape of each output of a node, with the same validation as running it.
 *
 * @param node - The node (its data input may be a host or a GPU tensor; only its fields are read).
 * @returns One entry per output, in order.
 * @throws {@link SplitError} `BAD_OPTIONS`: not a node, or an unknown op or field; `BAD_OPSET`, `BAD_ATTRIBUTE`,
 *   `BAD_INPUT`, `BAD_DTYPE`, `OUTPUT_COUNT`: the node breaks its version's rules; `BAD_SHAPE`, `DATA_TYPE`,
 *   `DATA_LENGTH`, `WRONG_BACKEND`: an input is not a valid tensor; `RANK`, `AXIS_RANGE`, `BAD_SIZE`, `SIZE_SUM`,
 *   `NOT_DIVISIBLE`: the split does not fit the data; `TOO_LARGE`: past a cap.
 * @example
 * ```ts
 * import { inferShapes, tensor } from 'cleave-gpu';
 *
 * const x = tensor('int32', new Int32Array(10), [2, 5]);
 * const node = { op: 'Split', opset: 18, inputs: [x], attrs: { axis: 1, num_outputs: 3 }, outputs: 3 } as const;
 * console.log(inferShapes(node).map((o) => o.shape)); // [[2, 2], [2, 2], [2, 1]]
 * ```
 */
export function inferShapes<N extends SplitNode<TensorLike>>(
  node: CheckedNode<N>,
): {
  /** The output's dtype: the data input's. */
  dtype: DType;
  /** The output's shape. */
  shape: number[];
}[] {
  const r = readRun(node).plan();
  return r.outputShapes.map((shape) => ({ dtype: r.plan.dtype, shape: [...shape] }));
}
