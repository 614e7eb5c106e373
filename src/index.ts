// Cleave's public entry: the engine, its error class, the node API, the pure planner, and the
// dtype table (names, widths, host arrays). Internals (GPU plans, executors) stay out of it.

/**
 * Tensor splits on the GPU with WebGPU: the engine ({@link createSplitEngine}), its error class, operator nodes,
 * the planner and the dtype table.
 *
 * @module cleave-gpu
 */

export { createSplitEngine } from './engine/create.js';
export type { CoreSplitEngine, EngineStats, NodeOutputs, SplitEngine } from './engine/api.js';
export type { Backend, Fixed, OutputOptions, SplitEngineOptions, SplitOptions } from './engine/options.js';
export type { SplitStats } from './stats.js';
export { SplitError } from './errors.js';
export type { SplitErrorCode, SplitSubject } from './errors.js';
export { inferShapes, resolveNode } from './ops/index.js';
export type { OpName, ResolvedNode, SplitNode } from './ops/index.js';
export type { DType, FixedDType, PackedDType } from './dtype.js';
export {
  DTYPES,
  ONNX_DTYPES,
  PACKED_DTYPES,
  byteLengthOf,
  elementBits,
  halfToNumber,
  hostArrayName,
  hostLength,
  isMsbFirst,
  isPacked,
  packedValue,
} from './dtype.js';
export type { HostDataMap, TypedArray } from './host-data.js';
export { bytesOf, hostDataFromBytes } from './host-data.js';
export type { GpuTensor, HostTensor, Into } from './tensor.js';
export { MAX_OUTPUTS, MAX_RANK, MAX_STRINGS } from './shape.js';
export { TENSOR_USAGE } from './usage.js';
export { equalParts, planSplit } from './plan.js';
export type { SplitPlan } from './planner/split.js';
export type { Strategy } from './planner/types.js';
export type { CostModel } from './planner/costs.js';
