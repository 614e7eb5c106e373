// Assertions shared by the GPU tiers: outputs compared byte for byte with the independent reference
// (test/helpers/reference.ts), and proof from engine.stats that the WebGPU path did the work.
import { expect } from 'vitest';
import type { SplitEngine } from '../../src/index.js';
import { type GpuWorkOptions, type Outputs, gpuWorkProblem } from './gpu-work.js';
import { type RefTensor, splitMismatch } from './reference.js';

export { aliasable } from './gpu-work.js';

/** `outs` is the split of `x` along `axis` into `sizes`: dtypes, shapes, array classes and every byte. */
export function expectSplitOf(outs: readonly RefTensor[], x: RefTensor, axis: number, sizes: readonly number[]): void {
  const where = `split of ${x.dtype} [${x.shape.join(',')}] axis ${axis} into [${sizes.join(',')}]`;
  expect(splitMismatch(outs, x, axis, sizes) ?? 'as the reference', where).toBe('as the reference');
}

/**
 * The last split ran on the WebGPU path and did GPU work for its outputs: a dispatch of the gather
 * shader, at least one copy command per non-empty output, or (only where `alias` allows it, and
 * required where it is true) views of the input's buffer (gpu-work.ts holds the rule).
 */
export function expectGpuWork(e: SplitEngine, outs: Outputs, opts: GpuWorkOptions = {}): void {
  expect(gpuWorkProblem(e, outs, opts) ?? 'GPU work as required', 'the GPU path did the work').toBe(
    'GPU work as required',
  );
}

/**
 * A host split on the WebGPU engine took the path its dtype must: the CPU executor for strings and
 * complex host tensors (ARCHITECTURE.md), GPU work for every other dtype.
 */
export function expectGpuPath(e: SplitEngine, dtype: string, outs: Outputs): void {
  if (['string', 'complex64', 'complex128'].includes(dtype)) {
    expect([e.backend, e.stats.strategy], `${dtype} on the host goes to the CPU executor`).toEqual(['webgpu', 'cpu']);
  } else {
    expectGpuWork(e, outs, { alias: false });
  }
}
