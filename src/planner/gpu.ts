// From a split plan to what the GPU does: where each output lies, and the cheapest correct
// strategy. Pure: device limits arrive as plain numbers. Offsets are counted in bits, so packed
// sub-byte tensors (whose chunks may start inside a byte) take the same path as every other dtype.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, elementBits, isMsbFirst } from '../dtype.js';
import type { SplitPlan } from './split.js';
import { type Dispatch, type Region, type UnitBits, align, align4, planDispatches } from './dispatch.js';

/** Device numbers the layout depends on. */
export interface GpuLimits {
  /** minStorageBufferOffsetAlignment: every output starts at a multiple of it. */
  readonly alignment: number;
  /** maxStorageBufferBindingSize: the largest window one binding may show. */
  readonly maxBindingBytes: number;
  /** maxBufferSize: the largest output buffer. */
  readonly maxBufferBytes: number;
  /**
   * Strided chunks whose rows are at least this many bytes are moved by one copy command per row
   * instead of the shader: ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS on CPU adapters (SwiftShader), where
   * a copy is a memcpy; Infinity (never) on GPUs, where one dispatch beats thousands of commands.
   */
  readonly rowCopyMinBytes: number;
}

/** Where an output lies: in the output buffer, or in the input's buffer for `alias`. */
export interface OutputSlot {
  readonly byteOffset: number;
  readonly byteLength: number;
}

/** One copyBufferToBuffer command: `size` bytes into output `output` (dst is in the shared output buffer). */
export interface ByteCopy {
  readonly output: number;
  readonly src: number;
  readonly dst: number;
  readonly size: number;
}

/**
 * - `alias`: outputs are views of the input buffer; no GPU command at all.
 * - `copy`: copyBufferToBuffer commands (one per output, or per row of strided chunks).
 * - `gather`: the gather shader, one dispatch (more only when a tensor exceeds a binding window).
 */
export type GpuPlan =
  | { readonly strategy: 'alias'; readonly outputs: readonly OutputSlot[] }
  | {
      readonly strategy: 'copy';
      readonly outputs: readonly OutputSlot[];
      readonly bufferBytes: number;
      readonly copies: readonly ByteCopy[];
    }
  | {
      readonly strategy: 'gather';
      readonly outputs: readonly OutputSlot[];
      readonly bufferBytes: number;
      /** Shader word width in bits: 128, 64 or 32 (gather_words), or 1 (gather_bits). */
      readonly unitBits: UnitBits;
      /** Packed values start at bit 7 of each byte (uint1). */
      readonly msbFirst: boolean;
      readonly dispatches: readonly Dispatch[];
    };

export type Strategy = GpuPlan['strategy'];
export type GatherPlan = Extract<GpuPlan, { strategy: 'gather' }>;

export interface GpuPlanOptions {
  /** Byte offset of the input data in its buffer. */
  readonly srcByteOffset: number;
  /** Whether outputs may be views of the input buffer. */
  readonly allowAlias: boolean;
  /** Force a strategy where it is possible; `auto` lets the planner choose. */
  readonly strategy?: Strategy | 'auto';
}

/** Most copy commands the planner issues for contiguous chunks before one gather dispatch is cheaper. */
export const MAX_COPY_COMMANDS = 16;

/** Row length from which row copies beat the gather shader on a CPU adapter (measured by `npm run bench`). */
export const ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS = 1024;

/** Most row copies in one split: past it, encoding the commands costs more than the shader. */
export const MAX_ROW_COPIES = 1 << 16;

/** A region of the input (in bits) on its way to output `output`, before the output's place is known. */
type Run = Omit<Region, 'dst'> & { readonly output: number };

/** Each non-empty output as a region of the input, in bits; a chunk whose rows are back to back is one row. */
function regionsOf(plan: SplitPlan, srcByteOffset: number): Run[] {
  const bits = elementBits(plan.dtype as FixedDType);
  const rowBits = plan.axisLen * plan.inner * bits;
  const runs: Run[] = [];
  for (let i = 0; i < plan.sizes.length; i++) {
    const rowLen = plan.sizes[i]! * plan.inner * bits;
    if (rowLen === 0 || plan.outer === 0) continue;
    const single = plan.outer === 1 || rowLen === rowBits;
    const src = srcByteOffset * 8 + plan.starts[i]! * plan.inner * bits;
    // A single row's stride is its own length, so strides never constrain word widths or copies.
    const total = rowLen * plan.outer;
    runs.push(
      single
        ? { output: i, src, rowLen: total, srcStride: total, rows: 1 }
        : { output: i, src, rowLen, srcStride: rowBits, rows: plan.outer },
    );
  }
  return runs;
}

export function planGpu(plan: SplitPlan, limits: GpuLimits, opts: GpuPlanOptions): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const outBytes = plan.sizes.map((s) => byteLengthOf(dtype, plan.outer * s * plan.inner));
  const want = opts.strategy ?? 'auto';
  const runs = regionsOf(plan, opts.srcByteOffset);
  const contiguous = runs.every((r) => r.rows === 1);

  // A view must start at an aligned byte and end at a byte boundary (its last byte is its own).
  if (
    contiguous &&
    opts.allowAlias &&
    (want === 'auto' || want === 'alias') &&
    runs.every((r) => r.src % (limits.alignment * 8) === 0 && r.rowLen % 8 === 0)
  ) {
    const outputs = outBytes.map((n) => ({ byteOffset: opts.srcByteOffset, byteLength: n }));
    for (const r of runs) outputs[r.output] = { byteOffset: r.src / 8, byteLength: outBytes[r.output]! };
    return { strategy: 'alias', outputs };
  }

  const outputs: OutputSlot[] = [];
  let end = 0;
  for (const n of outBytes) {
    const at = align(end, limits.alignment);
    outputs.push({ byteOffset: at, byteLength: n });
    end = at + n;
  }
  const bufferBytes = align4(end);
  check(
    bufferBytes <= limits.maxBufferBytes,
    'TOO_LARGE',
    () =>
      `split: the outputs need a ${bufferBytes}-byte buffer, above this device's maxBufferSize of ${limits.maxBufferBytes}`,
  );
  // Plain literals of one shape (no spread): this runs per output of every call.
  const regions: Region[] = runs.map((r) => ({
    src: r.src,
    dst: outputs[r.output]!.byteOffset * 8,
    rowLen: r.rowLen,
    srcStride: r.srcStride,
    rows: r.rows,
  }));

  // Copy commands move whole 4-byte words at 4-byte offsets; one command per row of each region.
  const copyable = runs.every((r) => r.src % 32 === 0 && r.rowLen % 32 === 0 && r.srcStride % 32 === 0);
  const commands = runs.reduce((n, r) => n + r.rows, 0);
  const copyWins = contiguous
    ? commands <= MAX_COPY_COMMANDS
    : commands <= MAX_ROW_COPIES && runs.every((r) => r.rowLen >= limits.rowCopyMinBytes * 8);
  if (runs.length === 0 || (copyable && (want === 'copy' || (want === 'auto' && copyWins)))) {
    return { strategy: 'copy', outputs, bufferBytes, copies: byteCopies(runs, outputs) };
  }

  const unitBits = chooseUnit(regions, limits.alignment);
  const srcEnd = opts.srcByteOffset + byteLengthOf(dtype, plan.outer * plan.axisLen * plan.inner);
  return {
    strategy: 'gather',
    outputs,
    bufferBytes,
    unitBits,
    msbFirst: isMsbFirst(plan.dtype),
    dispatches: planDispatches(regions, opts.srcByteOffset, srcEnd, bufferBytes, unitBits, limits),
  };
}

function byteCopies(runs: readonly Run[], outputs: readonly OutputSlot[]): ByteCopy[] {
  const copies: ByteCopy[] = [];
  for (const r of runs) {
    const size = r.rowLen / 8;
    for (let row = 0; row < r.rows; row++) {
      copies.push({
        output: r.output,
        src: (r.src + row * r.srcStride) / 8,
        dst: outputs[r.output]!.byteOffset + row * size,
        size,
      });
    }
  }
  return copies;
}

/** The widest word that divides every offset, length and stride (window bases are aligned); else bits. */
function chooseUnit(regions: readonly Region[], alignment: number): UnitBits {
  for (const u of [128, 64, 32] as const) {
    if (
      (alignment * 8) % u === 0 &&
      regions.every((r) => r.src % u === 0 && r.dst % u === 0 && r.rowLen % u === 0 && r.srcStride % u === 0)
    )
      return u;
  }
  return 1;
}
