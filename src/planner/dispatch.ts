// Gather dispatches: which target buffers each binds, binding windows, and the regions as geometries in shader units,
// each cut into tiles (tiles.ts). One dispatch writes every output of up to `targetsPerDispatch` target buffers when
// the input and each of those targets fit one binding window; past that many targets, one dispatch per group of them;
// past a window, one dispatch per window-sized piece of a region.

import { coverRegion } from './tiles.js';
import type { Dispatch, GpuLimits, OutputPlace, Region, ShaderTile, Target, UnitBits } from './types.js';

/** `x` rounded up to a multiple of `a`. */
export const align = (x: number, a: number) => Math.ceil(x / a) * a;
/** A buffer size for `x` bytes: a multiple of 4, at least 4 (WebGPU sizes and copies are in 4-byte words). */
export const align4 = (x: number) => Math.max(4, align(x, 4));

/** One bit past a region's last row, read from `at` with stride `stride`. */
const endOf = (r: Region, at: number, stride: number) => at + (r.rows - 1) * stride + r.row_len;

/**
 * The dispatches of a gather of `regions` (in bits; region k is output `outputOf[k]`'s) read from input bytes
 * [src[0], src[1]). Offsets inside a window stay below 2^31 shader units, so the shader's u32 arithmetic never wraps:
 * 2 GiB for words, 256 MiB for the bit variant.
 */
export function planDispatches(
  regions: readonly Region[],
  outputOf: readonly number[],
  outputs: readonly OutputPlace[],
  targets: readonly Target[],
  src: readonly [begin: number, end: number],
  unit: UnitBits,
  limits: GpuLimits,
): Dispatch[] {
  const a = limits.alignment;
  const span = Math.floor(Math.min(limits.maxBindingBytes, unit === 1 ? 2 ** 28 : 2 ** 31) / a) * a;
  // Each target's regions, and the bytes they write from its base (the engine's buffers: the whole buffer).
  const byTarget = targets.map((t) => ({ regions: [] as Region[], end: t.kind === 'into' ? 0 : t.bytes * 8 }));
  regions.forEach((r, k) => {
    const t = byTarget[outputs[outputOf[k]!]!.target]!;
    t.regions.push(r);
    if (targets[outputs[outputOf[k]!]!.target]!.kind === 'into') t.end = Math.max(t.end, endOf(r, r.dst, r.dst_stride));
  });
  const srcBase = Math.floor(src[0] / a) * a;
  const srcWindow = [srcBase, align(src[1], 4) - srcBase] as const;
  // A target's one window: from its base to past the last byte it writes.
  const windowOf = (t: number) => [0, align(Math.ceil(byTarget[t]!.end / 8), 4)] as const;
  const out: Dispatch[] = [];
  // The targets with something to write, in groups of targetsPerDispatch.
  const written = [...targets.keys()].filter((t) => byTarget[t]!.regions.length > 0);
  for (let first = 0; first < written.length; first += limits.targetsPerDispatch) {
    const bound = written.slice(first, first + limits.targetsPerDispatch);
    const windows = bound.map(windowOf);
    if (srcWindow[1] <= span && windows.every((w) => w[1] <= span)) {
      const lists = bound.map((t) => byTarget[t]!.regions);
      out.push(dispatchOf(bound, srcWindow, windows, lists, unit));
      continue;
    }
    // One dispatch per piece of a region small enough that its source and destination each fit one window.
    const room = (span - a) * 8;
    for (const t of bound)
      for (const r of byTarget[t]!.regions)
        for (const p of tileRegion(r, room, unit)) {
          const [sb, db] = [Math.floor(p.src / 8 / a) * a, Math.floor(p.dst / 8 / a) * a];
          const [se, de] = [Math.ceil(endOf(p, p.src, p.src_stride) / 8), Math.ceil(endOf(p, p.dst, p.dst_stride) / 8)];
          out.push(dispatchOf([t], [sb, align(se, 4) - sb], [[db, align(de, 4) - db]], [[p]], unit));
        }
  }
  return out;
}

/** Cuts a region into pieces whose source and destination spans are at most `room` bits. */
export function tileRegion(r: Region, room: number, unit: UnitBits): Region[] {
  const out: Region[] = [];
  if (r.row_len <= room) {
    const stride = Math.max(r.src_stride, r.dst_stride);
    const k = Math.max(1, Math.min(r.rows, Math.floor((room - r.row_len) / stride) + 1));
    for (let row = 0; row < r.rows; row += k)
      out.push({
        ...r,
        src: r.src + row * r.src_stride,
        dst: r.dst + row * r.dst_stride,
        rows: Math.min(k, r.rows - row),
      });
    return out;
  }
  const step = Math.floor(room / Math.max(unit, 32)) * Math.max(unit, 32);
  for (let row = 0; row < r.rows; row++)
    for (let col = 0; col < r.row_len; col += step) {
      const len = Math.min(step, r.row_len - col);
      const [src, dst] = [r.src + row * r.src_stride + col, r.dst + row * r.dst_stride + col];
      out.push({ src, dst, row_len: len, src_stride: len, dst_stride: len, rows: 1 });
    }
  return out;
}

/**
 * One dispatch binding `targets` (their regions in `regions`, in bits) through the source window and one window per
 * target (bytes). Equal one-row regions at equal steps (4096 equal outputs) are one geometry whose strides are the
 * steps; every other region is a geometry of its own.
 */
function dispatchOf(
  targets: readonly number[],
  srcWindow: readonly [number, number],
  dstWindows: readonly (readonly [number, number])[],
  regions: readonly (readonly Region[])[],
  unit: UnitBits,
): Dispatch {
  const tiles: ShaderTile[] = [];
  regions.forEach((rs, target) => {
    const [srcAt, dstAt] = [srcWindow[0] * 8, dstWindows[target]![0] * 8];
    for (let i = 0; i < rs.length;) {
      const r = rs[i]!;
      const count = seriesLength(rs, i, unit);
      const [srcStep, dstStep] = count > 1 ? [rs[i + 1]!.src - r.src, rs[i + 1]!.dst - r.dst] : [0, 0];
      const g: Region = {
        src: (r.src - srcAt) / unit,
        dst: (r.dst - dstAt) / unit,
        row_len: r.row_len / unit,
        rows: r.rows,
        src_stride: r.src_stride / unit,
        dst_stride: r.dst_stride / unit,
      };
      // A lone row's strides never matter; equal lone rows: the steps are the strides.
      const strides =
        count > 1
          ? { rows: count, src_stride: srcStep / unit, dst_stride: dstStep / unit }
          : r.rows === 1 && { src_stride: g.row_len, dst_stride: g.row_len };
      coverRegion(strides ? { ...g, ...strides } : g, unit, target, tiles);
      i += count;
    }
  });
  return { targets, srcWindow, dstWindows, tiles };
}

/**
 * How many regions from `i` have the same form at the same distance (one geometry for the shader when they are single
 * rows). The bit variant takes only one-row regions whose destinations start words and stay whole words apart: each row
 * then owns its destination words.
 */
function seriesLength(regions: readonly Region[], i: number, unit: UnitBits): number {
  const r = regions[i]!;
  const next = regions[i + 1];
  if (!next || r.rows !== 1) return 1;
  const srcStep = next.src - r.src;
  const dstStep = next.dst - r.dst;
  if (unit === 1 && (r.dst % 32 !== 0 || dstStep % 32 !== 0 || dstStep < r.row_len)) return 1;
  let count = 1;
  while (i + count < regions.length) {
    const q = regions[i + count]!;
    if (
      q.rows !== 1 ||
      q.row_len !== r.row_len ||
      q.src - r.src !== count * srcStep ||
      q.dst - r.dst !== count * dstStep
    )
      break;
    count++;
  }
  return count;
}
