// Cleave's public entry: everything `cleave-gpu/core` exports (the engine's calls and types, its error class, the
// tensor factories, the 16-bit float conversions), with the engine that runs operator nodes in place of core's, the
// node API, the pure planner and the dtype table. Internals (GPU plans, executors) stay out of it.

/**
 * Tensor splits on the GPU with WebGPU: the engine ({@link createSplitEngine}), its error class, host tensors
 * ({@link tensor}), operator nodes, the planner, the dtype table and float16 / bfloat16 conversions.
 *
 * @module cleave-gpu
 */

export * from './core.js';
export { createSplitEngine } from './engine/node-engine.js';
export type { NodeOutputs, SplitEngine } from './engine/api.js';
export { inferShapes, resolveNode } from './ops/index.js';
export type { CheckedInput, CheckedNode, OpName, ResolvedNode, SplitNode, TensorLike } from './ops/index.js';
export { DTYPES, ONNX_DTYPES, byteLengthOf, elementBits, hostArrayName, hostLength } from './dtype.js';
export { PACKED_DTYPES, isMsbFirst, isPacked, packedValue } from './dtype.js';
export { bytesOf, hostDataFromBytes } from './host-data.js';
export { MAX_OUTPUTS, MAX_RANK, MAX_STRINGS } from './shape.js';
export { equalParts, planSplit } from './plan.js';
export type { SplitPlan } from './planner/split.js';
