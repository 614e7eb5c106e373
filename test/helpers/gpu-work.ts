// Whether a split's GPU path did the work, read from engine.stats, and whether its chunks may be
// views: the logic behind check.ts's expectGpuWork, kept free of vitest and of src/ at run time so
// the conformance suite runs it under Deno (wgpu) as well as under vitest (Dawn).

import type { GpuTensor, SplitEngine } from '../../src/index.js';
import { REF_TYPES, type RefDType, numel } from './dtypes.js';
import { type RefTensor, bitsOf } from './reference.js';

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

export type Outputs = readonly (RefTensor | GpuTensor)[];

function byteLength(o: RefTensor | GpuTensor): number {
  if ('buffer' in o) return o.byteLength;
  const b = bitsOf(o);
  return b instanceof Uint8Array ? b.byteLength : b.length;
}

export interface GpuWorkOptions {
  /** true: the split must give views of the input; false: it must not; undefined: either. */
  readonly alias?: boolean;
  /** The GPU input, which views must share a buffer with. */
  readonly input?: GpuTensor;
}

/**
 * What is wrong with the last split's claim to have run on the WebGPU path, or undefined: it must
 * show a dispatch of the gather shader, at least one copy command per non-empty output, or (only
 * where `alias` allows it, and required where it is true) views of the input's buffer.
 */
export function gpuWorkProblem(
  e: Pick<SplitEngine, 'backend' | 'stats'>,
  outs: Outputs,
  opts: GpuWorkOptions = {},
): string | undefined {
  const s = e.stats;
  const nonEmpty = outs.filter((o) => byteLength(o) > 0).length;
  const got = JSON.stringify({ backend: e.backend, strategy: s.strategy, dispatches: s.dispatches, copies: s.copies });
  if (e.backend !== 'webgpu') return `backend ${e.backend}, want webgpu`;
  if (!['alias', 'copy', 'gather'].includes(s.strategy)) return `no GPU strategy ran: ${got}`;
  if (opts.alias === true && s.strategy !== 'alias') return `not aliased where it should be: ${got}`;
  if (opts.alias === false && s.strategy === 'alias') return `aliased where it must not be: ${got}`;
  if (s.strategy === 'alias') {
    if (!opts.input) return 'aliased, but only a GPU-resident input can be viewed';
    const i = outs.findIndex((o) => 'buffer' in o && o.byteLength > 0 && o.buffer !== opts.input!.buffer);
    if (i >= 0) return `aliased, but output ${i} is not in the input's buffer`;
  } else if (s.strategy === 'copy') {
    if (s.copies < nonEmpty) return `${s.copies} copy commands for ${nonEmpty} non-empty outputs: ${got}`;
  } else if (nonEmpty > 0) {
    if (s.dispatches < 1) return `a gather with no dispatch: ${got}`;
    if (![1, 32, 64, 128].includes(s.unitBits)) return `gather word width ${s.unitBits}`;
  }
  return undefined;
}

/** The target buffers one gather dispatch binds (the shader's dst0..dst5), as the 0.7 shader is written. */
export const TARGETS_PER_DISPATCH = 6;

/**
 * How many dispatches a gather takes when its input and every target fit one binding window: one per six target
 * buffers that have anything to write (`written[k]`: target k gets a non-empty output); an empty output's buffer
 * (layout 'separate') is bound by none.
 */
export function gatherDispatches(written: readonly boolean[]): number {
  return Math.ceil(written.filter(Boolean).length / TARGETS_PER_DISPATCH);
}
