// Cleave's public entry: the engine, its error class, and the types a caller needs.

export { createSplitEngine } from './engine.js';
export type { Backend, EngineStats, NodeOutputs, SplitEngine, SplitEngineOptions, SplitOptions } from './engine.js';
export { SplitError } from './errors.js';
export { inferShapes, resolveNode } from './ops/index.js';
export type { OpName, ResolvedNode, SplitNode } from './ops/index.js';
export type { SplitErrorCode } from './errors.js';
export type { DType, FixedDType, HostDataMap } from './dtype.js';
export { DTYPES, halfToNumber } from './dtype.js';
export type { GpuTensor, HostTensor } from './tensor.js';
export { equalParts, planGpu, planSplit } from './planner.js';
export type { GpuLimits, GpuPlan, SplitPlan, Strategy } from './planner.js';
