// From a split plan to what the GPU does: the cheapest correct strategy (views of the input, copy commands, or the
// gather shader) for the outputs' regions, and its commands or dispatches; the key a call's arguments give, and the
// bases at which a plan made for that key serves a call. Pure: device limits and costs arrive as plain numbers.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, isMsbFirst } from '../dtype.js';
import type { Destination } from '../tensor.js';
import { sameList } from '../shape.js';
import type { SplitPlan } from './split.js';
import { copyCheaper } from './costs.js';
import { planDispatches } from './dispatch.js';
import { type Places, regionsOf } from './regions.js';
import type { ByteCopy, GpuLimits, GpuPlan, OutputPlace, PlanKey, Region } from './types.js';

/** The GPU plan of a split for `key` (see PlanKey): a forced strategy where it is possible, else the cheapest. */
export function planGpu(plan: SplitPlan, limits: GpuLimits, key: PlanKey): GpuPlan {
  const dtype = plan.dtype as FixedDType;
  const want = key.strategy;
  const l = regionsOf(plan, key, limits.alignment);
  const { contiguous, viewable, copyable, commands, minRowLen, residues } = survey(l.regions, limits.alignment);

  // A view must start at an aligned byte and end at a byte boundary (its last byte is its own).
  if (contiguous && viewable && key.allowAlias && !key.into && !key.separate && (want === 'auto' || want === 'alias'))
    return { ...l, ...NONE, key, strategy: 'alias', targets: INPUT, outputs: views(l, key.srcByteOffset) };

  let largest = 0;
  for (const t of l.targets) if (t.kind !== 'into') largest = Math.max(largest, t.bytes);
  check(
    largest <= limits.maxBufferBytes,
    'TOO_LARGE',
    () =>
      `split: the outputs need a ${largest}-byte buffer, above this device's maxBufferSize of ${limits.maxBufferBytes}`,
  );
  const made = { ...l, ...NONE, key };
  const copies = (): GpuPlan => ({ ...made, strategy: 'copy', copies: byteCopies(l) });
  if (l.regions.length === 0 || (copyable && want === 'copy')) return copies();

  // Copy commands move whole 4-byte words at 4-byte offsets; one command per row of each region.
  const bytes = byteLengthOf(dtype, plan.outer * plan.axisLen * plan.inner);
  // The widest word dividing every offset, length and stride (`residues`: see survey; windows are aligned); or bits.
  const unitBits = ([128, 64, 32] as const).find((u) => (limits.alignment * 8) % u === 0 && residues % u === 0) ?? 1;
  if (unitBits === 1) checkBitRows(l);
  const src = [key.srcByteOffset, key.srcByteOffset + bytes] as const;
  const dispatches = planDispatches(l.regions, l.outputOf, l.outputs, l.targets, src, unitBits, limits);
  const gather: GpuPlan = { ...made, strategy: 'gather', unitBits, msbFirst: isMsbFirst(dtype), dispatches };
  if (!copyable || want === 'gather') return gather;
  const rowBytes = contiguous ? undefined : minRowLen / 8;
  return copyCheaper(key.costs, commands, bytes, dispatches.length, rowBytes) ? copies() : gather;
}

/**
 * The key of a call (see PlanKey): the input at `srcByteOffset`, and `dests` numbered by buffer in order of first
 * appearance, each at its offset from its buffer's base (the lowest destination offset in it, rounded down).
 */
export function keyOf(
  srcByteOffset: number,
  dests: readonly (Destination | undefined)[] | undefined,
  alignment: number,
  rest: Omit<PlanKey, 'srcByteOffset' | 'into'>,
): PlanKey {
  const byBuffer = new Map<GPUBuffer, { target: number; base: number }>();
  for (const d of dests ?? []) {
    if (!d) continue;
    const t = byBuffer.get(d.buffer) ?? { target: byBuffer.size, base: Infinity };
    byBuffer.set(d.buffer, { target: t.target, base: Math.min(t.base, d.byteOffset) });
  }
  const into = dests?.map((d) => {
    if (!d) return undefined;
    const { target, base } = byBuffer.get(d.buffer)!;
    return { target, byteOffset: d.byteOffset - Math.floor(base / alignment) * alignment, strides: d.strides };
  });
  return { ...rest, srcByteOffset: srcByteOffset % alignment, into };
}

/**
 * The bases at which `gp` serves a call whose key would equal its own (see PlanKey), one per target: the input's
 * offset rounded down for views, 0 for the engine's buffers, each destination buffer's base; undefined when the call's
 * key differs. Compared in place, with nothing made but the bases.
 */
export function basesOf(
  gp: GpuPlan,
  srcByteOffset: number,
  dests: readonly (Destination | undefined)[] | undefined,
  allowAlias: boolean,
  alignment: number,
): number[] | undefined {
  const { key } = gp;
  const srcAt = srcByteOffset % alignment;
  // A plan that may give views and gives none serves a call that may not: the planner would make it again.
  const views = key.allowAlias === allowAlias || (key.allowAlias && gp.strategy !== 'alias');
  if (key.srcByteOffset !== srcAt || !views || !key.into !== !dests) return undefined;
  const bases = new Array<number>(gp.targets.length).fill(0);
  if (gp.strategy === 'alias') bases[0] = srcByteOffset - srcAt;
  const buffers: GPUBuffer[] = [];
  // Many buffers are looked up in a set; a few (a decode step's) in the list, with nothing made.
  const many = gp.targets.length > 16 ? new Set<GPUBuffer>() : undefined;
  for (let i = 0; key.into && i < key.into.length; i++) {
    const [want, d] = [key.into[i], dests![i]];
    if (!want || !d) {
      if (want || d) return undefined;
      continue;
    }
    const t = want.target;
    if (!sameList(d.strides, want.strides)) return undefined;
    if (t === buffers.length) {
      // The first destination of a target: its base, and a buffer no earlier target has.
      bases[t] = d.byteOffset - want.byteOffset;
      if (bases[t] % alignment !== 0 || (many ? many.has(d.buffer) : buffers.includes(d.buffer))) return undefined;
      buffers.push(d.buffer);
      many?.add(d.buffer);
    } else if (buffers[t] !== d.buffer || d.byteOffset - bases[t]! !== want.byteOffset) return undefined;
  }
  return bases;
}

/**
 * What each strategy asks of every region, in one loop with no closure. `residues` ORs every offset, length and
 * stride modulo 128: a word width u | 128 divides them all iff u divides it.
 */
function survey(regions: readonly Region[], alignment: number) {
  let [contiguous, viewable, copyable, commands, minRowLen, residues] = [true, true, true, 0, Infinity, 0];
  for (const r of regions) {
    contiguous &&= r.rows === 1;
    viewable &&= r.src % (alignment * 8) === 0 && r.row_len % 8 === 0;
    const res = (r.src % 128) | (r.row_len % 128) | (r.src_stride % 128) | (r.dst % 128) | (r.dst_stride % 128);
    copyable &&= res % 32 === 0;
    residues |= res;
    commands += r.rows;
    minRowLen = Math.min(minRowLen, r.row_len);
  }
  return { contiguous, viewable, copyable, commands, minRowLen, residues };
}

/**
 * On the bit path a caller's strided destination's rows must each start a 4-byte word: a word is then written by one
 * thread only, and the bytes between rows are left as they were.
 */
function checkBitRows(l: Places): void {
  l.regions.forEach((r, k) => {
    const o = l.outputOf[k]!;
    check(
      l.targets[l.outputs[o]!.target]!.kind !== 'into' ||
        (r.dst % 32 === 0 && (r.rows === 1 || r.dst_stride === r.row_len || r.dst_stride % 32 === 0)),
      'BAD_INPUT',
      () =>
        `split: into[${o}]: this split moves bits, not whole 4-byte words, ` +
        'so every row of a strided destination must start at a multiple of 4 bytes ' +
        '(its row strides in bytes must be multiples of 4); a row starting inside a byte never can',
      `option:into[${o}]`,
    );
  });
}

/** What a strategy leaves empty. */
const NONE = { copies: [], unitBits: 0, msbFirst: false, dispatches: [] } as const;

/** The one target of views: the input's buffer. */
const INPUT = [{ kind: 'input', bytes: 0 }] as const;

/** Each output as a view of the input: its one region's first byte (empty outputs at the input's). */
function views(l: Places, srcByteOffset: number): OutputPlace[] {
  const outputs = l.outputs.map((o) => ({ target: 0, byteOffset: srcByteOffset, byteLength: o.byteLength }));
  l.regions.forEach((r, k) => (outputs[l.outputOf[k]!]!.byteOffset = r.src / 8));
  return outputs;
}

/** One copy command per row of each region, into its output's target. */
function byteCopies(l: Places): ByteCopy[] {
  const copies: ByteCopy[] = [];
  l.regions.forEach((r, k) => {
    const [target, size] = [l.outputs[l.outputOf[k]!]!.target, r.row_len / 8];
    for (let row = 0; row < r.rows; row++)
      copies.push({ target, src: (r.src + row * r.src_stride) / 8, dst: (r.dst + row * r.dst_stride) / 8, size });
  });
  return copies;
}
