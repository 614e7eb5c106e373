// Each output as regions of the input, in bits: where it is read and where it is written (its place in its target
// buffer, or a caller's destination with strides). Offsets are counted in bits, so packed sub-byte tensors (whose
// chunks may start inside a byte) take the same path as every other dtype.

import { check } from '../errors.js';
import { type FixedDType, byteLengthOf, elementBits } from '../dtype.js';
import { rowMajorStrides } from '../shape.js';
import type { SplitPlan } from './split.js';
import type { GpuPlan, OutputPlace, PlanKey, Region, Target } from './types.js';
import { align4 } from './dispatch.js';

/** Most row geometries one destination may take (a destination's strides may cut an output into many). */
export const MAX_DESTINATION_REGIONS = 1 << 16;

/** Where a GPU plan puts the outputs: their places, the targets they lie in, and their regions of the input. */
export type Places = Pick<GpuPlan, 'outputs' | 'targets' | 'regions' | 'outputOf'>;

/**
 * Each non-empty output as regions of the input (in bits), written at its place in its target (see Target): a
 * caller's destination, from its buffer's base (the key gives its offset there and its strides); with `separate`,
 * byte 0 of a buffer of its own; else the engine's shared buffer, at aligned offsets. This runs per output of every
 * split planned: one loop, no closure, one object per output and per region.
 */
export function regionsOf(plan: SplitPlan, key: PlanKey, alignment: number): Places {
  const dtype = plan.dtype as FixedDType;
  const bits = elementBits(dtype);
  const rowBits = plan.axisLen * plan.inner * bits;
  const { outer, inner, sizes, starts } = plan;
  const into = key.into;
  const outputs = new Array<OutputPlace>(sizes.length);
  const [targets, regions, outputOf]: [Target[], Region[], number[]] = [[], [], []];
  const places = { outputs, targets, regions, outputOf };
  for (const d of into ?? []) if (d) targets[d.target] = { kind: 'into', bytes: 0 };
  const shared = key.separate || (into && !into.includes(undefined)) ? -1 : targets.push(SHARED) - 1;
  let [end, at] = [0, 0];
  // What depends on an output's length alone, carried over from the last output: equal parts compute it once.
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
    const src = key.srcByteOffset * 8 + starts[i]! * inner * bits;
    if (d) {
      outputs[i] = { ...d, byteLength };
      if (byteLength > 0) destinationRegions(plan, i, d.strides, d.byteOffset, src, regions, outputOf);
      continue;
    }
    let dst = 0;
    if (shared < 0) {
      const target = targets.push({ kind: 'separate', bytes: align4(byteLength) }) - 1;
      outputs[i] = { target, byteOffset: 0, byteLength };
    } else {
      // `at` is aligned, so the next output's place is at + padded: no division per output.
      outputs[i] = { target: shared, byteOffset: at, byteLength };
      end = at + byteLength;
      dst = at * 8;
      at += padded;
    }
    if (rowLen === 0 || outer === 0) continue;
    regions.push(
      strided
        ? { src, dst, row_len: rowLen, src_stride: rowBits, dst_stride: rowLen, rows: outer }
        : { src, dst, row_len: rowLen, src_stride: rowLen, dst_stride: rowLen, rows: 1 },
    );
    outputOf.push(i);
  }
  if (shared >= 0) targets[shared] = { kind: 'shared', bytes: align4(end) };
  return places;
}

const SHARED: Target = { kind: 'shared', bytes: 0 };

/**
 * Output i written at a caller's destination, as regions: its dimensions (size, source stride, destination stride, in
 * elements) without those of size 1, neighbours merged where both sides are contiguous across them; the innermost, if
 * contiguous on both sides, is the row; the longest other is the rows; every index of the rest starts a region.
 */
function destinationRegions(
  plan: SplitPlan,
  i: number,
  strides: readonly number[],
  byteOffset: number,
  src: number,
  regions: Region[],
  outputOf: number[],
) {
  const bits = elementBits(plan.dtype as FixedDType);
  const dims: [size: number, s: number, d: number][] = [];
  const srcStrides = rowMajorStrides(plan.shape);
  plan.shape.forEach((n, k) => {
    const size = k === plan.axis ? plan.sizes[i]! : n;
    if (size === 1) return;
    const last = dims[dims.length - 1];
    const [s, t] = [srcStrides[k]!, strides[k]!];
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
    regions.push({
      src: src + so * bits,
      dst: byteOffset * 8 + dof * bits,
      row_len: rowLen * bits,
      src_stride: rs * bits,
      dst_stride: rd * bits,
      rows,
    });
    outputOf.push(i);
  }
}
