// From a split plan to what the GPU does: the cheapest correct strategy (views of the input,
// copy commands, or the gather shader) for the outputs' regions, and its commands or dispatches.
// Pure: device limits and costs arrive as plain numbers.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, isMsbFirst } from '../dtype.js';
import type { SplitPlan } from './split.js';
import { copyCheaper } from './costs.js';
import { align4, planDispatches, targetDispatches } from './dispatch.js';
import { regionsOf } from './regions.js';
import type { ByteCopy, GpuLimits, GpuPlan, OutputSlot, Placement, Region, UnitBits } from './types.js';

export function planGpu(plan: SplitPlan, limits: GpuLimits, opts: Placement): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const want = opts.strategy ?? 'auto';
  const separate = opts.separate ?? false;
  const l = regionsOf(plan, opts.srcByteOffset, limits.alignment, opts.into, separate);
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
  if (contiguous && viewable && opts.allowAlias && !opts.into && !separate && (want === 'auto' || want === 'alias'))
    return { ...NONE, strategy: 'alias', outputs: views(l, opts.srcByteOffset) };

  const { outputs, regions, owner } = l;
  // No output in the engine's shared buffer (each at a caller's destination or in its own): none.
  const targeted = opts.into !== undefined || separate;
  const bufferBytes = targeted && outputs.every((o) => o.target) ? 0 : align4(l.end);
  check(
    bufferBytes <= limits.maxBufferBytes,
    'TOO_LARGE',
    () =>
      `split: the outputs need a ${bufferBytes}-byte buffer, ` +
      `above this device's maxBufferSize of ${limits.maxBufferBytes}`,
  );

  // Copy commands move whole 4-byte words at 4-byte offsets; one command per row of each region.
  const bytes = byteLengthOf(dtype, plan.outer * plan.axisLen * plan.inner);
  // With layout 'separate' the gather takes a dispatch per output buffer it writes.
  const dispatches = separate ? new Set(owner).size : 1;
  const copyWins = copyCheaper(limits.costs, commands, bytes, contiguous ? undefined : minRowLen / 8, dispatches);
  const buffers = bufferBytes > 0 ? [bufferBytes] : [];
  for (const o of outputs) if (o.separate) buffers.push(align4(o.byteLength));
  if (regions.length === 0 || (copyable && (want === 'copy' || (want === 'auto' && copyWins)))) {
    return { ...NONE, strategy: 'copy', outputs, bufferBytes, buffers, copies: byteCopies(regions, owner, outputs) };
  }

  const unitBits = chooseUnit(residues, limits.alignment);
  const src: [number, number] = [opts.srcByteOffset, opts.srcByteOffset + bytes];
  return {
    ...NONE,
    strategy: 'gather',
    outputs,
    bufferBytes,
    buffers,
    unitBits,
    msbFirst: isMsbFirst(plan.dtype),
    dispatches: targeted
      ? targetDispatches(regions, owner, outputs, src, bufferBytes, unitBits, limits)
      : planDispatches(regions, src, [0, bufferBytes], unitBits, limits),
  };
}

/** What a strategy leaves empty. */
const NONE = { bufferBytes: 0, buffers: [], copies: [], unitBits: 0, msbFirst: false, dispatches: [] } as const;

/** Each output as a view of the input: its one region's first byte (empty outputs at the input's). */
function views(l: ReturnType<typeof regionsOf>, srcByteOffset: number): OutputSlot[] {
  const outputs = l.outputs.map((o) => ({ byteOffset: srcByteOffset, byteLength: o.byteLength }));
  for (let k = 0; k < l.regions.length; k++) {
    const o = l.owner[k]!;
    outputs[o] = { byteOffset: l.regions[k]!.src / 8, byteLength: outputs[o]!.byteLength };
  }
  return outputs;
}

/** One copy command per row of each region, into its output. */
function byteCopies(regions: readonly Region[], owner: readonly number[], outputs: readonly OutputSlot[]): ByteCopy[] {
  const copies: ByteCopy[] = [];
  regions.forEach((r, k) => {
    const size = r.rowLen / 8;
    const target = outputs[owner[k]!]!.target ?? 0;
    for (let row = 0; row < r.rows; row++) {
      copies.push({
        output: owner[k]!,
        target,
        src: (r.src + row * r.srcStride) / 8,
        dst: (r.dst + row * r.dstStride) / 8,
        size,
      });
    }
  });
  return copies;
}

/**
 * The widest word dividing every offset, length and stride (`residues`, see planGpu; windows are
 * aligned); else bits.
 */
function chooseUnit(residues: number, alignment: number): UnitBits {
  for (const u of [128, 64, 32] as const) if ((alignment * 8) % u === 0 && residues % u === 0) return u;
  return 1;
}
