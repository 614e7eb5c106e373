// Cleave's lighter entry: the engine without operator nodes, its error class and the types its calls take. An
// application that only splits imports createSplitEngine from here, and its bundle leaves the operator front-ends
// out (docs/size.md). Everything else (nodes, the planner, the dtype table) is `cleave-gpu`'s.

/**
 * The split engine without operator nodes (`run`): {@link createSplitEngine}, its error class and the types its calls
 * take. An application that only splits imports it from here for a smaller bundle.
 *
 * @module cleave-gpu/core
 */

export { createSplitEngine } from './engine/create-core.js';
export type { CoreSplitEngine, EngineStats } from './engine/api.js';
export type { Backend, Fixed, OutputOptions, SplitEngineOptions, SplitOptions } from './engine/options.js';
export type { SplitStats } from './stats.js';
export { SplitError } from './errors.js';
export type { SplitErrorCode, SplitSubject } from './errors.js';
export type { DType, FixedDType, PackedDType } from './dtype.js';
export type { HostDataMap, TypedArray } from './host-data.js';
export type { GpuTensor, HostTensor, Into } from './tensor.js';
export { TENSOR_USAGE } from './usage.js';
export type { Strategy } from './planner/types.js';
export type { CostModel } from './planner/costs.js';
