// Cleave's public entry: the engine, its error class, the host tensor factory, the node API, the
// pure planner, the dtype table (names, widths, host arrays) and the 16-bit float conversions.
// Internals (GPU plans, executors) stay out of it.

/**
 * Tensor splits on the GPU with WebGPU: the engine ({@link createSplitEngine}), its error class, host tensors
 * ({@link tensor}), operator nodes, the planner, the dtype table and float16 / bfloat16 conversions.
 *
 * @module cleave-gpu
 */

export { createSplitEngine } from './engine/node-engine.js';
export type {
  CoreSplitEngine,
  EngineStats,
  PreparedHostSplit,
  PreparedSplit,
  SplitStats,
  NodeOutputs,
  SplitEngine,
} from './engine/api.js';
export type { Backend, Fixed, OutputOptions, SplitEngineOptions, SplitOptions } from './engine/options.js';
export { SplitError } from './errors.js';
export type { SplitErrorCode, SplitSubject, SubjectKey } from './errors.js';
export { inferShapes, resolveNode } from './ops/index.js';
export type { CheckedInput, CheckedNode, OpName, ResolvedNode, SplitNode, TensorLike } from './ops/index.js';
export type { DType, FixedDType, PackedDType } from './dtype.js';
export {
  DTYPES,
  ONNX_DTYPES,
  PACKED_DTYPES,
  byteLengthOf,
  elementBits,
  hostArrayName,
  hostLength,
  isMsbFirst,
  isPacked,
  packedValue,
} from './dtype.js';
export type { Float16ArrayLike, Float16Data, HostData, HostDataMap, TypedArray } from './host-data.js';
export { bytesOf, hostDataFromBytes } from './host-data.js';
export { bfloat16ToNumber, bfloat16sFrom, halfToNumber, halvesFrom, numberToBfloat16, numberToHalf } from './half.js';
export type {
  GpuInput,
  GpuTensor,
  GpuTensorOf,
  HostInput,
  HostOutput,
  HostTensor,
  HostTensorOf,
  Into,
} from './tensor.js';
export { gpuTensor, tensor } from './make-tensor.js';
export { MAX_OUTPUTS, MAX_RANK, MAX_STRINGS } from './shape.js';
export { TENSOR_USAGE } from './usage.js';
export { equalParts, planSplit } from './plan.js';
export type { SplitPlan } from './planner/split.js';
export type { Strategy } from './planner/types.js';
export type { CostModel } from './planner/costs.js';
