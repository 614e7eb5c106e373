// The planner with caller destinations (`into`): regions from a destination's strides, one group
// of dispatches per target buffer, the engine's buffer only for the outputs it places, and the bit
// path's rule that a strided destination's rows start words.
import { describe, expect, test } from 'vitest';
import { planSplit } from '../../src/index.js';
import { DEFAULT_COSTS } from '../../src/planner/costs.js';
import type { Destination } from '../../src/tensor.js';
import type { GpuLimits, GpuPlan } from '../../src/planner/types.js';
import { planGpu } from '../../src/planner/gpu.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  costs: DEFAULT_COSTS,
};

const gather = (g: GpuPlan) => {
  expect(g.strategy).toBe('gather');
  return g as GpuPlan;
};

const auto = { srcByteOffset: 0, allowAlias: true } as const;

describe('planGpu with into', () => {
  test('a KV cache slot: heads rows of d words, T·d apart, in the cache buffer; q in the engine buffer', () => {
    const [H, T, d, t] = [4, 16, 8, 5];
    const plan = planSplit('float32', [1, 3 * H, 1, d], 1, [H, H, H]);
    const slot = (target: number): Destination => ({
      target,
      byteOffset: t * d * 4,
      strides: [H * T * d, T * d, d, 1],
    });
    const g = gather(planGpu(plan, LIMITS, { ...auto, into: [undefined, slot(1), slot(2)] }));
    expect(g.outputs.map((o) => o.target ?? 0)).toEqual([0, 1, 2]);
    expect(g.bufferBytes).toBe(H * d * 4);
    expect(g.dispatches.map((x) => x.target)).toEqual([0, 1, 2]);
    const k = g.dispatches[1]!;
    // Words of 128 bits: d = 8 floats is 2 words a row, T·d floats 32 words apart.
    expect(g.unitBits).toBe(128);
    expect(k.dstWindow).toEqual([0, t * d * 4 + ((H - 1) * T * d + d) * 4]);
    expect(k.runs).toMatchObject([{ dst: (t * d * 4 * 8) / 128, row_len: 2, src_stride: 2, dst_stride: 32, rows: H }]);
  });

  test('prefill: a transposed destination is one region per head, S rows each', () => {
    const [S, H, T, d] = [6, 2, 16, 4];
    const plan = planSplit('float32', [1, S, 3, H, d], 2, [1, 1, 1]);
    const dest: Destination = { target: 1, byteOffset: 0, strides: [H * T * d, d, 0, T * d, 1] };
    const g = gather(planGpu(plan, LIMITS, { ...auto, into: [dest, undefined, undefined] }));
    const runs = g.dispatches.filter((x) => x.target === 1).flatMap((x) => x.runs);
    const rows = runs.reduce((n, r) => n + r.count * r.rows, 0);
    expect([rows, runs.every((r) => r.rows === S || r.count === S)]).toEqual([S * H, true]);
  });

  test('every output at a destination: no engine buffer; copies land at the destination', () => {
    const plan = planSplit('float32', [4, 8], 1, [4, 4]);
    const into: Destination[] = [
      { target: 1, byteOffset: 0, strides: [8, 1] },
      { target: 1, byteOffset: 16, strides: [8, 1] },
    ];
    const c = planGpu(plan, LIMITS, { ...auto, strategy: 'copy', into });
    expect(c.strategy).toBe('copy');
    if (c.strategy !== 'copy') return;
    expect(c.bufferBytes).toBe(0);
    expect(c.copies.slice(0, 2)).toEqual([
      { output: 0, target: 1, src: 0, dst: 0, size: 16 },
      { output: 0, target: 1, src: 32, dst: 32, size: 16 },
    ]);
    expect(gather(planGpu(plan, LIMITS, { ...auto, strategy: 'gather', into })).dispatches).toHaveLength(1);
  });

  test('no views with a destination, even where the input could be viewed', () => {
    const plan = planSplit('float32', [128, 4], 0, [64, 64]);
    expect(planGpu(plan, LIMITS, auto).strategy).toBe('alias');
    const into = [undefined, { target: 1, byteOffset: 0, strides: [4, 1] }];
    expect(planGpu(plan, LIMITS, { ...auto, into }).strategy).not.toBe('alias');
  });

  test('the bit path refuses a strided destination whose rows do not start 4-byte words, naming it', () => {
    const plan = planSplit('uint8', [4, 6], 1, [3, 3]);
    const bad = { target: 1, byteOffset: 0, strides: [5, 1] };
    let error: unknown;
    try {
      planGpu(plan, LIMITS, { ...auto, into: [undefined, bad] });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'BAD_INPUT', subject: { kind: 'option', name: 'into[1]' } });
    const good = { target: 1, byteOffset: 0, strides: [8, 1] };
    expect(gather(planGpu(plan, LIMITS, { ...auto, into: [undefined, good] })).unitBits).toBe(1);
  });

  test('a destination cut into more pieces than the cap is refused', () => {
    // Rows of one element (the innermost dimension is not contiguous); the longest dimension is the
    // rows, and the rest make 300 · 2 = 600 pieces, or 300 · 300 · 2 = 180,000 (above 2^16).
    const ok = planSplit('float32', [300, 300, 2], 0, [300]);
    expect(() =>
      planGpu(ok, LIMITS, { ...auto, into: [{ target: 1, byteOffset: 0, strides: [2, 600, 180_000] }] }),
    ).not.toThrow();
    const many = planSplit('float32', [300, 300, 300, 2], 0, [300]);
    const spread = { target: 1, byteOffset: 0, strides: [2, 600, 180_000, 54_000_000] };
    expect(() => planGpu(many, LIMITS, { ...auto, into: [spread] })).toThrow(/180000 pieces/);
  });
});
