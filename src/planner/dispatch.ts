// Gather dispatches: binding windows and series of regions, in shader units, each series cut into tiles
// (tiles.ts). One dispatch covers every output when the input and the outputs each fit one binding
// window; beyond that, one dispatch per window-sized piece of a region. Outputs in several target
// buffers take a group of dispatches per target.

import { check } from '../errors.js';
import { tilesOf } from './tiles.js';
import type { Dispatch, GpuLimits, OutputSlot, Region, Series, ShaderTile, Target, UnitBits } from './types.js';

/** `x` rounded up to a multiple of `a`. */
export const align = (x: number, a: number) => Math.ceil(x / a) * a;
/** A buffer size for `x` bytes: a multiple of 4, at least 4 (WebGPU sizes and copies are in 4-byte words). */
export const align4 = (x: number) => Math.max(4, align(x, 4));

/** One bit past a region's last row, read from `at` with stride `stride`. */
const endOf = (r: Region, at: number, stride: number) => at + (r.rows - 1) * stride + r.rowLen;

/**
 * Dispatches for `regions` (in bits) read from input bytes [srcBegin, srcEnd) into bytes
 * [dstBegin, dstEnd) of buffer `target`. Offsets inside a window stay below 2^31 shader units so
 * the shader's u32 arithmetic never wraps: 2 GiB for words, 256 MiB for the bit variant.
 */
export function planDispatches(
  regions: readonly Region[],
  src: readonly [begin: number, end: number],
  dst: readonly [begin: number, end: number],
  unit: UnitBits,
  limits: { readonly alignment: number; readonly maxBindingBytes: number },
  target = 0,
): Dispatch[] {
  const a = limits.alignment;
  const span = Math.floor(Math.min(limits.maxBindingBytes, unit === 1 ? 2 ** 28 : 2 ** 31) / a) * a;
  const [srcBase, dstBase] = [Math.floor(src[0] / a) * a, Math.floor(dst[0] / a) * a];
  if (align(src[1], 4) - srcBase <= span && align(dst[1], 4) - dstBase <= span) {
    return [makeDispatch(regions, srcBase, align(src[1], 4), dstBase, align(dst[1], 4), unit, target)];
  }
  // One dispatch per tile, each tile a block of rows (or of one row's bits) small enough that its
  // source and destination each fit one window.
  const room = (span - a) * 8;
  const out: Dispatch[] = [];
  for (const r of regions) {
    for (const t of tileRegion(r, room, unit)) {
      const [sb, db] = [Math.floor(t.src / 8 / a) * a, Math.floor(t.dst / 8 / a) * a];
      const [se, de] = [Math.ceil(endOf(t, t.src, t.srcStride) / 8), Math.ceil(endOf(t, t.dst, t.dstStride) / 8)];
      out.push(makeDispatch([t], sb, align(se, 4), db, align(de, 4), unit, target));
    }
  }
  return out;
}

/** Cuts a region into pieces whose source and destination spans are at most `room` bits. */
export function tileRegion(r: Region, room: number, unit: UnitBits): Region[] {
  const out: Region[] = [];
  if (r.rowLen <= room) {
    const stride = Math.max(r.srcStride, r.dstStride);
    const k = Math.max(1, Math.min(r.rows, Math.floor((room - r.rowLen) / stride) + 1));
    for (let row = 0; row < r.rows; row += k) {
      out.push({
        ...r,
        src: r.src + row * r.srcStride,
        dst: r.dst + row * r.dstStride,
        rows: Math.min(k, r.rows - row),
      });
    }
    return out;
  }
  const step = Math.floor(room / Math.max(unit, 32)) * Math.max(unit, 32);
  for (let row = 0; row < r.rows; row++) {
    for (let col = 0; col < r.rowLen; col += step) {
      const rowLen = Math.min(step, r.rowLen - col);
      out.push({
        src: r.src + row * r.srcStride + col,
        dst: r.dst + row * r.dstStride + col,
        rowLen,
        srcStride: rowLen,
        dstStride: rowLen,
        rows: 1,
      });
    }
  }
  return out;
}

/** One dispatch over windows [srcBase, srcEnd) and [dstBase, dstEnd) (bytes) and regions in bits. */
function makeDispatch(
  regions: readonly Region[],
  srcBase: number,
  srcEnd: number,
  dstBase: number,
  dstEnd: number,
  unit: UnitBits,
  target: number,
): Dispatch {
  const series: Series[] = [];
  const tiles: ShaderTile[] = [];
  for (let i = 0; i < regions.length;) {
    const r = regions[i]!;
    const count = seriesLength(regions, i, unit);
    const next = regions[i + 1];
    const [srcStep, dstStep] = count > 1 ? [next!.src - r.src, next!.dst - r.dst] : [0, 0];
    const ser: Series = {
      src: (r.src - srcBase * 8) / unit,
      dst: (r.dst - dstBase * 8) / unit,
      row_len: r.rowLen / unit,
      src_stride: r.srcStride / unit,
      dst_stride: r.dstStride / unit,
      rows: r.rows,
      count,
      src_step: srcStep / unit,
      dst_step: dstStep / unit,
    };
    series.push(ser);
    tilesOf(ser, unit, tiles);
    i += count;
  }
  return { target, srcWindow: [srcBase, srcEnd - srcBase], dstWindow: [dstBase, dstEnd - dstBase], series, tiles };
}

/**
 * How many regions from `i` have the same form at the same distance (a series the shader walks as
 * one). The bit variant takes a series only of one-row regions whose destinations start words and
 * stay whole words apart: each row then owns its destination words.
 */
function seriesLength(regions: readonly Region[], i: number, unit: UnitBits): number {
  const r = regions[i]!;
  const next = regions[i + 1];
  if (!next) return 1;
  const srcStep = next.src - r.src;
  const dstStep = next.dst - r.dst;
  if (unit === 1 && (r.rows !== 1 || r.dst % 32 !== 0 || dstStep % 32 !== 0 || dstStep < r.rowLen)) return 1;
  let count = 1;
  while (i + count < regions.length) {
    const q = regions[i + count]!;
    if (
      q.rows !== r.rows ||
      q.rowLen !== r.rowLen ||
      q.srcStride !== r.srcStride ||
      q.dstStride !== r.dstStride ||
      q.src - r.src !== count * srcStep ||
      q.dst - r.dst !== count * dstStep
    )
      break;
    count++;
  }
  return count;
}

/**
 * A gather's dispatches when outputs go to several target buffers (a caller's destinations, or with layout 'separate'
 * a buffer per output): one group per target (the shader binds one output buffer), each over the span its regions
 * write. On the bit path a caller's strided destination's rows must each start a 4-byte word: a word is then written
 * by one thread only, and the bytes between rows are left as they were. An output's own buffer is the engine's: its
 * tail bits are zeroed.
 */
export function targetDispatches(
  regions: readonly Region[],
  owner: readonly number[],
  outputs: readonly OutputSlot[],
  targets: readonly Target[],
  src: [number, number],
  unit: UnitBits,
  limits: GpuLimits,
): Dispatch[] {
  const groups = new Map<number, Region[]>();
  regions.forEach((r, k) => {
    const o = owner[k]!;
    const target = outputs[o]!.target;
    check(
      unit !== 1 ||
        targets[target]!.kind !== 'into' ||
        (r.dst % 32 === 0 && (r.rows === 1 || r.dstStride === r.rowLen || r.dstStride % 32 === 0)),
      'BAD_INPUT',
      () =>
        `split: into[${o}]: this split moves bits, not whole 4-byte words, ` +
        'so every row of a strided destination must start at a multiple of 4 bytes ' +
        '(its row strides in bytes must be multiples of 4); a row starting inside a byte never can',
      `option:into[${o}]`,
    );
    let g = groups.get(target);
    if (!g) groups.set(target, (g = []));
    g.push(r);
  });
  return [...groups].flatMap(([target, rs]) => {
    // The span the regions write (a loop: a destination may have 65,536 regions, too many to spread).
    const t = targets[target]!;
    let [begin, end] = t.kind === 'into' ? [Infinity, 0] : [0, t.bytes * 8];
    if (t.kind === 'into')
      for (const r of rs) [begin, end] = [Math.min(begin, r.dst), Math.max(end, endOf(r, r.dst, r.dstStride))];
    return planDispatches(rs, src, [Math.floor(begin / 8), Math.ceil(end / 8)], unit, limits, target);
  });
}
