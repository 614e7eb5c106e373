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

/** A destination in buffer `b` (a stand-in: the planner only tells buffers apart). */
const dest = (b: object, byteOffset: number, strides: number[]): Destination => ({
  buffer: b as GPUBuffer,
  byteOffset,
  strides,
  given: strides,
  bytes: 0,
  source: {},
});
const [K, V] = [{}, {}];

describe('planGpu with into', () => {
  test('a KV cache slot: heads rows of d words, T·d apart, in the cache buffer; q in the engine buffer', () => {
    const [H, T, d, t] = [4, 16, 8, 5];
    const plan = planSplit('float32', [1, 3 * H, 1, d], 1, [H, H, H]);
    const slot = (b: object) => dest(b, t * d * 4, [H * T * d, T * d, d, 1]);
    const g = gather(planGpu(plan, LIMITS, { ...auto, into: [undefined, slot(K), slot(V)] }));
    expect(g.targets).toEqual([
      { kind: 'shared', output: -1, bytes: H * d * 4 },
      { kind: 'into', output: 1, bytes: 0 },
      { kind: 'into', output: 2, bytes: 0 },
    ]);
    expect(g.outputs.map((o) => o.target)).toEqual([0, 1, 2]);
    expect(g.dispatches.map((x) => x.target)).toEqual([0, 1, 2]);
    const k = g.dispatches[1]!;
    // Words of 128 bits: d = 8 floats is 2 words a row, T·d floats 32 words apart; the slot 160 bytes from the
    // cache's base (0: the slot's offset rounded down to 256).
    expect(g.unitBits).toBe(128);
    expect(k.dstWindow).toEqual([0, t * d * 4 + ((H - 1) * T * d + d) * 4]);
    expect(k.series).toMatchObject([
      { dst: (t * d * 4 * 8) / 128, row_len: 2, src_stride: 2, dst_stride: 32, rows: H },
    ]);
  });

  test('prefill: a transposed destination is one region per head, S rows each', () => {
    const [S, H, T, d] = [6, 2, 16, 4];
    const plan = planSplit('float32', [1, S, 3, H, d], 2, [1, 1, 1]);
    const to = dest(K, 0, [H * T * d, d, 0, T * d, 1]);
    const g = gather(planGpu(plan, LIMITS, { ...auto, into: [to, undefined, undefined] }));
    const series = g.dispatches.filter((x) => g.targets[x.target]!.kind === 'into').flatMap((x) => x.series);
    const rows = series.reduce((n, r) => n + r.count * r.rows, 0);
    expect([rows, series.every((r) => r.rows === S || r.count === S)]).toEqual([S * H, true]);
  });

  test('every output at a destination: no engine buffer; copies land at each destination, from its base', () => {
    const plan = planSplit('float32', [4, 8], 1, [4, 4]);
    const into = [dest(K, 0, [8, 1]), dest(K, 16, [8, 1])];
    const c = planGpu(plan, LIMITS, { ...auto, strategy: 'copy', into });
    expect(c.strategy).toBe('copy');
    if (c.strategy !== 'copy') return;
    // A target per destination, counted from its own base: no engine buffer to take from the pool.
    expect([c.targets, c.buffers]).toEqual([
      [
        { kind: 'into', output: 0, bytes: 0 },
        { kind: 'into', output: 1, bytes: 0 },
      ],
      [],
    ]);
    expect(c.copies.slice(0, 2)).toEqual([
      { output: 0, target: 0, src: 0, dst: 0, size: 16 },
      { output: 0, target: 0, src: 32, dst: 32, size: 16 },
    ]);
    expect(c.copies[4]).toEqual({ output: 1, target: 1, src: 16, dst: 16, size: 16 });
    expect(gather(planGpu(plan, LIMITS, { ...auto, strategy: 'gather', into })).dispatches).toHaveLength(2);
  });

  test('no views with a destination, even where the input could be viewed', () => {
    const plan = planSplit('float32', [128, 4], 0, [64, 64]);
    expect(planGpu(plan, LIMITS, auto).strategy).toBe('alias');
    expect(planGpu(plan, LIMITS, { ...auto, into: [undefined, dest(K, 0, [4, 1])] }).strategy).not.toBe('alias');
  });

  test('the bit path refuses a strided destination whose rows do not start 4-byte words, naming it', () => {
    const plan = planSplit('uint8', [4, 6], 1, [3, 3]);
    const bad = dest(K, 0, [5, 1]);
    let error: unknown;
    try {
      planGpu(plan, LIMITS, { ...auto, into: [undefined, bad] });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'BAD_INPUT', subject: { kind: 'option', name: 'into[1]' } });
    const good = dest(K, 0, [8, 1]);
    expect(gather(planGpu(plan, LIMITS, { ...auto, into: [undefined, good] })).unitBits).toBe(1);
  });

  test('a destination cut into more pieces than the cap is refused', () => {
    // Rows of one element (the innermost dimension is not contiguous); the longest dimension is the
    // rows, and the rest make 300 · 2 = 600 pieces, or 300 · 300 · 2 = 180,000 (above 2^16).
    const ok = planSplit('float32', [300, 300, 2], 0, [300]);
    expect(() => planGpu(ok, LIMITS, { ...auto, into: [dest(K, 0, [2, 600, 180_000])] })).not.toThrow();
    const many = planSplit('float32', [300, 300, 300, 2], 0, [300]);
    const spread = dest(K, 0, [2, 600, 180_000, 54_000_000]);
    expect(() => planGpu(many, LIMITS, { ...auto, into: [spread] })).toThrow(/180000 pieces/);
  });
});
