// From a split plan to what the GPU does: the cheapest correct strategy (views of the input,
// copy commands, or the gather shader) for the outputs' regions, and its commands or dispatches.
// Pure: device limits and costs arrive as plain numbers.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, isMsbFirst } from '../dtype.js';
import type { SplitPlan } from './split.js';
import { copyCheaper } from './costs.js';
import { planDispatches, targetDispatches } from './dispatch.js';
import { regionsOf } from './regions.js';
import type { ByteCopy, GpuLimits, GpuPlan, OutputSlot, Region, Strategy, UnitBits } from './types.js';
import type { CostModel } from './costs.js';
import type { Destination } from '../tensor.js';
import { sameList } from '../shape.js';

/**
 * The GPU plan of a split whose input starts at `srcByteOffset` (0 <= it < the alignment: a plan holds at any base
 * that is a multiple of it), with views allowed or not, `into` the caller's destinations (one entry per output), with
 * layout 'separate' or not, under a forced strategy where it is possible ('auto' lets the costs choose).
 */
export function planGpu(
  plan: SplitPlan,
  limits: GpuLimits,
  at: {
    readonly srcByteOffset: number;
    readonly allowAlias: boolean;
    readonly strategy?: Strategy | 'auto';
    readonly into?: readonly (Destination | undefined)[];
    readonly separate?: boolean;
  },
): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const want = at.strategy ?? 'auto';
  const separate = at.separate ?? false;
  const l = regionsOf(plan, at.srcByteOffset, limits.alignment, at.into, separate);
  const made = { srcByteOffset: at.srcByteOffset, allowAlias: at.allowAlias, costs: limits.costs };
  const { contiguous, viewable, copyable, commands, minRowLen, residues } = survey(l.regions, limits.alignment);

  // A view must start at an aligned byte and end at a byte boundary (its last byte is its own).
  if (contiguous && viewable && at.allowAlias && !at.into && !separate && (want === 'auto' || want === 'alias'))
    return { ...NONE, ...made, strategy: 'alias', targets: INPUT, outputs: views(l, at.srcByteOffset) };

  const { outputs, regions, owner, targets } = l;
  const buffers = targets.flatMap((t) => (t.kind === 'shared' || t.kind === 'separate' ? [t.bytes] : []));
  const largest = Math.max(0, ...buffers);
  check(
    largest <= limits.maxBufferBytes,
    'TOO_LARGE',
    () =>
      `split: the outputs need a ${largest}-byte buffer, above this device's maxBufferSize of ${limits.maxBufferBytes}`,
  );

  // Copy commands move whole 4-byte words at 4-byte offsets; one command per row of each region.
  const bytes = byteLengthOf(dtype, plan.outer * plan.axisLen * plan.inner);
  // The gather takes a dispatch per target buffer it writes.
  const dispatches = new Set(owner.map((o) => outputs[o]!.target)).size;
  const copyWins = copyCheaper(limits.costs, commands, bytes, contiguous ? undefined : minRowLen / 8, dispatches);
  const plans = { ...NONE, ...made, targets, outputs, buffers };
  if (regions.length === 0 || (copyable && (want === 'copy' || (want === 'auto' && copyWins))))
    return { ...plans, strategy: 'copy', copies: byteCopies(regions, owner, outputs) };

  const unitBits = chooseUnit(residues, limits.alignment);
  const src: [number, number] = [at.srcByteOffset, at.srcByteOffset + bytes];
  return {
    ...plans,
    strategy: 'gather',
    unitBits,
    msbFirst: isMsbFirst(plan.dtype),
    dispatches:
      targets.length > 1 || targets[0]?.kind !== 'shared'
        ? targetDispatches(regions, owner, outputs, targets, src, unitBits, limits)
        : planDispatches(regions, src, [0, targets[0].bytes], unitBits, limits),
  };
}

/**
 * Whether `gp` was made for this placement (see GpuPlan): the input at `srcByteOffset` within the alignment, views
 * allowed as then, the same costs, and each destination at the same offset within the alignment, with the same
 * strides. When it was, `bases` holds each target's base for this call (the input's for views, 0 for the engine's
 * buffers, a destination's offset rounded down to the alignment).
 */
export function fits(
  gp: GpuPlan,
  srcByteOffset: number,
  allowAlias: boolean,
  costs: CostModel,
  into: readonly (Destination | undefined)[] | undefined,
  alignment: number,
  bases: number[],
): boolean {
  const srcAt = srcByteOffset % alignment;
  if (gp.srcByteOffset !== srcAt || gp.allowAlias !== allowAlias || gp.costs !== costs) return false;
  for (let t = 0; t < gp.targets.length; t++) bases[t] = 0;
  if (gp.strategy === 'alias') bases[0] = srcByteOffset - srcAt;
  for (let i = 0; i < gp.outputs.length; i++) {
    const [d, o] = [into?.[i], gp.outputs[i]!];
    if (!o.strides) {
      if (d) return false;
    } else if (!d || d.byteOffset % alignment !== o.byteOffset || !sameList(d.strides, o.strides)) return false;
    else bases[o.target] = d.byteOffset - o.byteOffset;
  }
  return true;
}

/**
 * What each strategy asks of every region, in one loop with no closure. `residues` ORs every offset, length and
 * stride modulo 128: a word width u | 128 divides them all iff u divides it.
 */
function survey(regions: readonly Region[], alignment: number) {
  let [contiguous, viewable, copyable, commands, minRowLen, residues] = [true, true, true, 0, Infinity, 0];
  for (const r of regions) {
    contiguous &&= r.rows === 1;
    viewable &&= r.src % (alignment * 8) === 0 && r.rowLen % 8 === 0;
    const res = (r.src % 128) | (r.rowLen % 128) | (r.srcStride % 128) | (r.dst % 128) | (r.dstStride % 128);
    copyable &&= res % 32 === 0;
    residues |= res;
    commands += r.rows;
    minRowLen = Math.min(minRowLen, r.rowLen);
  }
  return { contiguous, viewable, copyable, commands, minRowLen, residues };
}

/** What a strategy leaves empty. */
const NONE = { buffers: [], copies: [], unitBits: 0, msbFirst: false, dispatches: [] } as const;

/** The one target of views: the input's buffer. */
const INPUT = [{ kind: 'input', output: -1, bytes: 0 }] as const;

/** Each output as a view of the input: its one region's first byte (empty outputs at the input's). */
function views(l: ReturnType<typeof regionsOf>, srcByteOffset: number): OutputSlot[] {
  const outputs = l.outputs.map((o) => ({ target: 0, byteOffset: srcByteOffset, byteLength: o.byteLength }));
  for (let k = 0; k < l.regions.length; k++) {
    const o = l.owner[k]!;
    outputs[o] = { target: 0, byteOffset: l.regions[k]!.src / 8, byteLength: outputs[o]!.byteLength };
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
