// From a split plan to what the GPU does: where each output lies, and the cheapest correct
// strategy. Pure: device limits arrive as plain numbers. Offsets are counted in bits, so packed
// sub-byte tensors (whose chunks may start inside a byte) take the same path as every other dtype.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, elementBits, isMsbFirst } from '../dtype.js';
import { rowMajorStrides } from '../shape.js';
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

/**
 * Where an output lies: in the output buffer, in the input's buffer for `alias`, or, with `target`
 * k > 0, at the caller's destination in the k-th distinct buffer of `into`.
 */
export interface OutputSlot {
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly target?: number;
}

/**
 * A caller's destination for one output (`into`): the `target` buffer (k > 0, the k-th distinct
 * one), its byte offset, and its strides in elements over the plan's output shape.
 */
export interface Destination {
  readonly target: number;
  readonly byteOffset: number;
  readonly strides: readonly number[];
}

/** One copyBufferToBuffer command: `size` bytes into output `output` (dst is in its target buffer). */
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
  /** Outputs written at the caller's destinations (no views then), one entry per output. */
  readonly into?: readonly (Destination | undefined)[];
}

/** Most row geometries one destination may take (a destination's strides may cut an output into many). */
export const MAX_DESTINATION_REGIONS = 1 << 16;

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
function layoutOf(plan: SplitPlan, srcByteOffset: number, alignment: number, into?: GpuPlanOptions['into']) {
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
    const d = into?.[i];
    if (d) {
      outputs[i] = { byteOffset: d.byteOffset, byteLength, target: d.target };
      if (byteLength > 0) destinationRegions(plan, i, d, srcByteOffset * 8 + starts[i]! * inner * bits, regions, owner);
      continue;
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
        ? { src, dst, rowLen, srcStride: rowBits, dstStride: rowLen, rows: outer }
        : { src, dst, rowLen, srcStride: rowLen, dstStride: rowLen, rows: 1 },
    );
    owner.push(i);
  }
  return { outputs, end, regions, owner };
}

/**
 * Output i written at a caller's destination, as regions: its dimensions (size, source stride,
 * destination stride, in elements) without those of size 1, neighbours merged where both sides
 * are contiguous across them; the innermost, if contiguous on both sides, is the row; the longest
 * other is the rows; every index of the rest starts a region of its own.
 */
function destinationRegions(plan: SplitPlan, i: number, d: Destination, src: number, out: Region[], owner: number[]) {
  const bits = elementBits(plan.dtype as FixedDType);
  const dims: [size: number, s: number, d: number][] = [];
  const srcStrides = rowMajorStrides(plan.shape);
  plan.shape.forEach((n, k) => {
    const size = k === plan.axis ? plan.sizes[i]! : n;
    if (size === 1) return;
    const last = dims[dims.length - 1];
    const [s, t] = [srcStrides[k]!, d.strides[k]!];
    if (last && last[1] === size * s && last[2] === size * t) dims[dims.length - 1] = [last[0] * size, s, t];
    else dims.push([size, s, t]);
  });
  const inner = dims[dims.length - 1];
  const rowLen = inner && inner[1] === 1 && inner[2] === 1 ? dims.pop()![0] : 1;
  let longest = -1;
  dims.forEach((x, k) => (longest = longest < 0 || x[0] > dims[longest]![0] ? k : longest));
  const [rows, rs, rd] = longest < 0 ? [1, rowLen, rowLen] : dims.splice(longest, 1)[0]!;
  const count = dims.reduce((a, x) => a * x[0], 1);
  check(
    count <= MAX_DESTINATION_REGIONS,
    'TOO_LARGE',
    () => `split: into[${i}]: its strides cut the output into ${count} pieces; at most ${MAX_DESTINATION_REGIONS}`,
    `option:into[${i}]`,
  );
  for (let c = 0; c < count; c++) {
    // Index c of the remaining dimensions, innermost fastest, as source and destination offsets.
    let [q, so, dof] = [c, 0, 0];
    for (let k = dims.length - 1; k >= 0; k--) {
      const [n, s, t] = dims[k]!;
      [so, dof, q] = [so + (q % n) * s, dof + (q % n) * t, Math.floor(q / n)];
    }
    out.push({
      src: src + so * bits,
      dst: d.byteOffset * 8 + dof * bits,
      rowLen: rowLen * bits,
      srcStride: rs * bits,
      dstStride: rd * bits,
      rows,
    });
    owner.push(i);
  }
}

export function planGpu(plan: SplitPlan, limits: GpuLimits, opts: GpuPlanOptions): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const want = opts.strategy ?? 'auto';
  const l = layoutOf(plan, opts.srcByteOffset, limits.alignment, opts.into);
  // What each strategy asks of every region, in one loop with no closure. `residues` ORs every
  // offset, length and stride modulo 128: a word width u | 128 divides them all iff u divides it.
  let [contiguous, viewable, copyable, commands, minRowLen, residues] = [true, true, true, 0, Infinity, 0];
  for (const r of l.regions) {
    contiguous &&= r.rows === 1;
    viewable &&= r.src % (limits.alignment * 8) === 0 && r.rowLen % 8 === 0;
    const res = (r.src % 128) | (r.rowLen % 128) | (r.srcStride % 128) | (r.dst % 128) | (r.dstStride % 128);
    copyable &&= res % 32 === 0;
    residues |= res;
    commands += r.rows;
    minRowLen = Math.min(minRowLen, r.rowLen);
  }

  // A view must start at an aligned byte and end at a byte boundary (its last byte is its own).
  if (contiguous && viewable && opts.allowAlias && !opts.into && (want === 'auto' || want === 'alias')) {
    const outputs = l.outputs.map((o) => ({ byteOffset: opts.srcByteOffset, byteLength: o.byteLength }));
    for (let k = 0; k < l.regions.length; k++) {
      const o = l.owner[k]!;
      outputs[o] = { byteOffset: l.regions[k]!.src / 8, byteLength: outputs[o]!.byteLength };
    }
    return { strategy: 'alias', outputs };
  }

  const { outputs, regions, owner } = l;
  // No output of the engine's own (every one at a caller's destination): no output buffer.
  const bufferBytes = opts.into && outputs.every((o) => o.target) ? 0 : align4(l.end);
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
    return { strategy: 'copy', outputs, bufferBytes, copies: byteCopies(regions, owner) };
  }

  const unitBits = chooseUnit(residues, limits.alignment);
  const src: [number, number] = [opts.srcByteOffset, opts.srcByteOffset + bytes];
  return {
    strategy: 'gather',
    outputs,
    bufferBytes,
    unitBits,
    msbFirst: isMsbFirst(plan.dtype),
    dispatches: opts.into
      ? targetDispatches(regions, owner, outputs, src, bufferBytes, unitBits, limits)
      : planDispatches(regions, src, [0, bufferBytes], unitBits, limits),
  };
}

/**
 * A gather's dispatches when some outputs go to a caller's destinations: one group per target
 * buffer (the shader binds one output buffer), each over the span its regions write. On the bit
 * path a strided destination's rows must each start a 4-byte word: a word is then written by one
 * thread only, and the bytes between rows are kept.
 */
function targetDispatches(
  regions: readonly Region[],
  owner: readonly number[],
  outputs: readonly OutputSlot[],
  src: [number, number],
  bufferBytes: number,
  unit: UnitBits,
  limits: GpuLimits,
): Dispatch[] {
  const groups = new Map<number, Region[]>();
  regions.forEach((r, k) => {
    const o = owner[k]!;
    const target = outputs[o]!.target ?? 0;
    check(
      unit !== 1 ||
        !target ||
        (r.dst % 32 === 0 && (r.rows === 1 || r.dstStride === r.rowLen || r.dstStride % 32 === 0)),
      'BAD_INPUT',
      () =>
        `split: into[${o}]: this split moves bits, not whole 4-byte words, so every row of a strided destination ` +
        'must start at a multiple of 4 bytes (its row strides in bytes must be multiples of 4); a row starting inside a byte never can',
      `option:into[${o}]`,
    );
    let g = groups.get(target);
    if (!g) groups.set(target, (g = []));
    g.push(r);
  });
  return [...groups].flatMap(([target, rs]) => {
    // The span the regions write (a loop: a destination may have 65,536 regions, too many to spread).
    let [begin, end] = target ? [Infinity, 0] : [0, bufferBytes * 8];
    if (target)
      for (const r of rs)
        [begin, end] = [Math.min(begin, r.dst), Math.max(end, r.dst + (r.rows - 1) * r.dstStride + r.rowLen)];
    return planDispatches(rs, src, [Math.floor(begin / 8), Math.ceil(end / 8)], unit, limits, target);
  });
}

function byteCopies(regions: readonly Region[], owner: readonly number[]): ByteCopy[] {
  const copies: ByteCopy[] = [];
  regions.forEach((r, k) => {
    const size = r.rowLen / 8;
    for (let row = 0; row < r.rows; row++) {
      copies.push({
        output: owner[k]!,
        src: (r.src + row * r.srcStride) / 8,
        dst: (r.dst + row * r.dstStride) / 8,
        size,
      });
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
