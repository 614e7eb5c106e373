// Cleave's lighter entry: the engine without operator nodes, its error class, the types its calls take, and the
// same first steps as `cleave-gpu` (the tensor factories, the float16 and bfloat16 conversions). An application
// that only splits imports createSplitEngine from here, and its bundle leaves the operator front-ends out
// (docs/size.md). Everything else (nodes, the planner, the dtype table) is `cleave-gpu`'s.

/**
 * The split engine without operator nodes (`run`): {@link createSplitEngine}, its error class, every type its calls
 * take and give, the tensor factories ({@link tensor}, {@link gpuTensor}) and the float16 / bfloat16 conversions. An
 * application that only splits imports it from here for a smaller bundle.
 *
 * @module cleave-gpu/core
 */

export { createSplitEngine } from './engine/open.js';
export type { CoreSplitEngine, EngineStats, PreparedHostSplit, PreparedSplit, SplitStats } from './engine/api.js';
export type { Backend, Fixed, OutputOptions, SplitEngineOptions, SplitOptions } from './engine/options.js';
export { SplitError } from './errors.js';
export type { SplitErrorCode, SplitSubject, SubjectKey } from './errors.js';
export type { DType, FixedDType, PackedDType } from './dtype.js';
export type { Float16ArrayLike, Float16Data, HostData, HostDataMap, TypedArray } from './host-data.js';
export type { HostInput, HostOutput, HostTensor, HostTensorOf } from './tensor.js';
export type { GpuInput, GpuTensor, GpuTensorOf, Into } from './tensor.js';
export { gpuTensor, tensor } from './make-tensor.js';
export { bfloat16ToNumber, bfloat16sFrom, halfToNumber, halvesFrom, numberToBfloat16, numberToHalf } from './half.js';
export { TENSOR_USAGE } from './usage.js';
export type { Strategy } from './planner/types.js';
export type { CostModel } from './planner/costs.js';
