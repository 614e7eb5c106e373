// Assertions shared by the GPU tiers: outputs compared byte for byte with the independent reference
// (test/helpers/reference.ts), and proof from engine.stats that the WebGPU path did the work.
import { expect } from 'vitest';
import type { GpuTensor, SplitEngine } from '../../src/index.js';
import { REF_TYPES, type RefDType, numel } from './dtypes.js';
import { type RefTensor, bitsOf, splitMismatch } from './reference.js';

/** `outs` is the split of `x` along `axis` into `sizes`: dtypes, shapes, array classes and every byte. */
export function expectSplitOf(outs: readonly RefTensor[], x: RefTensor, axis: number, sizes: readonly number[]): void {
  const where = `split of ${x.dtype} [${x.shape.join(',')}] axis ${axis} into [${sizes.join(',')}]`;
  expect(splitMismatch(outs, x, axis, sizes) ?? 'as the reference', where).toBe('as the reference');
}

/**
 * Whether the chunks of a split are views the WebGPU path should give without moving a byte: each
 * non-empty chunk one contiguous run (one row, or whole rows) starting at a multiple of the
 * device's storage offset alignment and ending on a byte. Computed from the reference widths.
 */
export function aliasable(x: RefTensor, axis: number, sizes: readonly number[], alignment: number): boolean {
  const ax = axis < 0 ? axis + x.shape.length : axis;
  const bits = REF_TYPES[x.dtype as RefDType].bits;
  const outer = numel(x.shape.slice(0, ax));
  const inner = numel(x.shape.slice(ax + 1));
  let start = 0;
  return sizes.every((size) => {
    const from = start * inner * bits;
    start += size;
    const total = size * inner * outer * bits;
    if (total === 0) return true;
    return (outer === 1 || size === x.shape[ax]) && from % (alignment * 8) === 0 && total % 8 === 0;
  });
}

type Outputs = readonly (RefTensor | GpuTensor)[];
function byteLength(o: RefTensor | GpuTensor): number {
  if ('buffer' in o) return o.byteLength;
  const b = bitsOf(o);
  return b instanceof Uint8Array ? b.byteLength : b.length;
}

/**
 * The last split ran on the WebGPU path and did GPU work for its outputs: a dispatch of the gather
 * shader, at least one copy command per non-empty output, or (only where `alias` allows it, and
 * required where it is true) views of the input's buffer.
 */
export function expectGpuWork(
  e: SplitEngine,
  outs: Outputs,
  opts: { readonly alias?: boolean; readonly input?: GpuTensor } = {},
): void {
  const s = e.stats;
  const nonEmpty = outs.filter((o) => byteLength(o) > 0).length;
  const got = { backend: e.backend, strategy: s.strategy, dispatches: s.dispatches, copies: s.copies };
  expect(e.backend, 'backend').toBe('webgpu');
  expect(['alias', 'copy', 'gather'], `a GPU strategy ran: ${JSON.stringify(got)}`).toContain(s.strategy);
  if (opts.alias === true) expect(s.strategy, 'aliased where it should').toBe('alias');
  if (opts.alias !== true && opts.alias !== undefined) expect(s.strategy, 'no alias here').not.toBe('alias');
  if (s.strategy === 'alias') {
    expect(opts.input, 'alias only for a GPU-resident input').toBeDefined();
    for (const o of outs) if ('buffer' in o && o.byteLength > 0) expect(o.buffer === opts.input!.buffer).toBe(true);
  } else if (s.strategy === 'copy') {
    expect(s.copies, `copy commands for ${nonEmpty} non-empty outputs`).toBeGreaterThanOrEqual(nonEmpty);
  } else if (nonEmpty > 0) {
    expect(s.dispatches, 'gather dispatches').toBeGreaterThanOrEqual(1);
    expect([1, 32, 64, 128], 'gather word width').toContain(s.unitBits);
  }
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
