// From a split plan to what the GPU does: where each output lies, and the cheapest correct
// strategy. Pure: device limits arrive as plain numbers. Offsets are counted in bits, so packed
// sub-byte tensors (whose chunks may start inside a byte) take the same path as every other dtype.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, elementBits, isMsbFirst } from '../dtype.js';
import type { SplitPlan } from './split.js';
import { type Dispatch, type Region, type UnitBits, align4, planDispatches } from './dispatch.js';

/** Device numbers the layout depends on. */
export interface GpuLimits {
  /** minStorageBufferOffsetAlignment: every output starts at a multiple of it. */
  readonly alignment: number;
  /** maxStorageBufferBindingSize: the largest window one binding may show. */
  readonly maxBindingBytes: number;
  /** maxBufferSize: the largest output buffer. */
  readonly maxBufferBytes: number;
  /** What copy commands and the gather cost on this device: the planner picks the cheaper. */
  readonly costs: CostModel;
}

/**
 * A device's costs in ns, measured once per device (gpu/calibrate.ts; DEFAULT_COSTS until then):
 * per copy command and per gather dispatch (encoding and running it), and per byte each moves.
 */
export interface CostModel {
  readonly copyCommandNs: number;
  readonly dispatchNs: number;
  readonly copyByteNs: number;
  readonly gatherByteNs: number;
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

/**
 * Costs before (or without) a measurement. They keep 0.2's fixed choices: copy commands for at most
 * 16 contiguous chunks (a dispatch costs 16.5 commands), the gather for strided chunks (the same cost
 * per byte, so row copies never win).
 */
export const DEFAULT_COSTS: CostModel = {
  copyCommandNs: 2000,
  dispatchNs: 33000,
  copyByteNs: 0.01,
  gatherByteNs: 0.01,
};

/**
 * Each non-empty output as a region of the input (in bits) written at its place in the output
 * buffer, `owner[k]` the output of region k. This runs per output of every call: one loop, no
 * closure, one object per output and per region.
 */
function layoutOf(plan: SplitPlan, srcByteOffset: number, alignment: number) {
  const dtype = plan.dtype as FixedDType;
  const bits = elementBits(dtype);
  const rowBits = plan.axisLen * plan.inner * bits;
  const { outer, inner, sizes, starts } = plan;
  const outputs = new Array<OutputSlot>(sizes.length);
  const regions: Region[] = [];
  const owner: number[] = [];
  let [end, at] = [0, 0];
  // What depends on an output's length alone, kept from the last output: equal parts compute it once.
  let [size, byteLength, padded, rowLen, strided] = [-1, 0, 0, 0, false];
  for (let i = 0; i < sizes.length; i++) {
    if (sizes[i] !== size) {
      size = sizes[i]!;
      byteLength = byteLengthOf(dtype, outer * size * inner);
      padded = Math.ceil(byteLength / alignment) * alignment;
      // A single row's stride is its own length, so strides never constrain word widths or copies.
      strided = !(outer === 1 || size * inner * bits === rowBits);
      rowLen = strided ? size * inner * bits : size * inner * bits * outer;
    }
    // `at` is aligned, so the next output's place is at + padded: no division per output.
    outputs[i] = { byteOffset: at, byteLength };
    end = at + byteLength;
    const dst = at * 8;
    at += padded;
    if (rowLen === 0 || outer === 0) continue;
    const src = srcByteOffset * 8 + starts[i]! * inner * bits;
    regions.push(
      strided
        ? { src, dst, rowLen, srcStride: rowBits, rows: outer }
        : { src, dst, rowLen, srcStride: rowLen, rows: 1 },
    );
    owner.push(i);
  }
  return { outputs, end, regions, owner };
}

export function planGpu(plan: SplitPlan, limits: GpuLimits, opts: GpuPlanOptions): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const want = opts.strategy ?? 'auto';
  const l = layoutOf(plan, opts.srcByteOffset, limits.alignment);
  // What each strategy asks of every region, in one loop with no closure. `residues` ORs every
  // offset, length and stride modulo 128: a word width u | 128 divides them all iff u divides it.
  let [contiguous, viewable, copyable, commands, minRowLen, residues] = [true, true, true, 0, Infinity, 0];
  for (const r of l.regions) {
    contiguous &&= r.rows === 1;
    viewable &&= r.src % (limits.alignment * 8) === 0 && r.rowLen % 8 === 0;
    const res = (r.src % 128) | (r.rowLen % 128) | (r.srcStride % 128);
    copyable &&= res % 32 === 0;
    residues |= res | (r.dst % 128);
    commands += r.rows;
    minRowLen = Math.min(minRowLen, r.rowLen);
  }

  // A view must start at an aligned byte and end at a byte boundary (its last byte is its own).
  if (contiguous && viewable && opts.allowAlias && (want === 'auto' || want === 'alias')) {
    const outputs = l.outputs.map((o) => ({ byteOffset: opts.srcByteOffset, byteLength: o.byteLength }));
    for (let k = 0; k < l.regions.length; k++) {
      const o = l.owner[k]!;
      outputs[o] = { byteOffset: l.regions[k]!.src / 8, byteLength: outputs[o]!.byteLength };
    }
    return { strategy: 'alias', outputs };
  }

  const { outputs, regions } = l;
  const bufferBytes = align4(l.end);
  check(
    bufferBytes <= limits.maxBufferBytes,
    'TOO_LARGE',
    () =>
      `split: the outputs need a ${bufferBytes}-byte buffer, above this device's maxBufferSize of ${limits.maxBufferBytes}`,
  );

  // Copy commands move whole 4-byte words at 4-byte offsets; one command per row of each region.
  const bytes = byteLengthOf(dtype, plan.outer * plan.axisLen * plan.inner);
  const copyWins = copyCheaper(limits.costs, commands, bytes, contiguous ? undefined : minRowLen / 8);
  if (regions.length === 0 || (copyable && (want === 'copy' || (want === 'auto' && copyWins)))) {
    return { strategy: 'copy', outputs, bufferBytes, copies: byteCopies(regions, l.owner) };
  }

  const unitBits = chooseUnit(residues, limits.alignment);
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

function byteCopies(regions: readonly Region[], owner: readonly number[]): ByteCopy[] {
  const copies: ByteCopy[] = [];
  regions.forEach((r, k) => {
    const size = r.rowLen / 8;
    for (let row = 0; row < r.rows; row++) {
      copies.push({ output: owner[k]!, src: (r.src + row * r.srcStride) / 8, dst: r.dst / 8 + row * size, size });
    }
  });
  return copies;
}

/**
 * The widest word dividing every offset, length and stride (`residues`, see planGpu; windows are aligned); else bits.
 */
function chooseUnit(residues: number, alignment: number): UnitBits {
  for (const u of [128, 64, 32] as const) if ((alignment * 8) % u === 0 && residues % u === 0) return u;
  return 1;
}

/**
 * Whether copy commands cost less than the gather. Contiguous chunks: `commands` commands moving
 * `bytes` against one dispatch moving them. Strided chunks (a command per row): every row's command
 * against the gather of its bytes, the shortest row (`rowBytes`) deciding, so the plan never
 * depends on the number of rows (a batch size).
 */
export function copyCheaper(c: CostModel, commands: number, bytes: number, rowBytes?: number): boolean {
  return rowBytes === undefined
    ? commands * c.copyCommandNs + bytes * c.copyByteNs < c.dispatchNs + bytes * c.gatherByteNs
    : c.copyCommandNs + rowBytes * c.copyByteNs < rowBytes * c.gatherByteNs;
}
