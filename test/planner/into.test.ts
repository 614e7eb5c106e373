// The planner with caller destinations (`into`): regions from a destination's strides, every destination buffer one
// target (several destinations in one buffer are one), one dispatch for up to six targets, the engine's buffer only
// for the outputs it places, and the bit path's rule that a strided destination's rows start words. And the plan key
// of a call with destinations (keyOf), and the bases at which a plan serves another call (basesOf).
import { describe, expect, test } from 'vitest';
import { planSplit } from '../../src/index.js';
import { COST_TABLES } from '../../src/planner/costs.js';
import type { Destination } from '../../src/tensor.js';
import type { GpuLimits, GpuPlan, PlanKey } from '../../src/planner/types.js';
import { basesOf, keyOf, planGpu } from '../../src/planner/gpu.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  targetsPerDispatch: 6,
};

const gather = (g: GpuPlan) => {
  expect(g.strategy).toBe('gather');
  return g;
};

/** What a key holds besides the input's offset and the destinations: views allowed, the software table. */
const REST = { allowAlias: true, separate: false, strategy: 'auto', costs: COST_TABLES.software } as const;

/** The key of a call with these destinations, the input at byte `at` (0 unless given). */
const keyFor = (into: readonly (Destination | undefined)[] | undefined, over: Partial<PlanKey> = {}, at = 0) =>
  keyOf(at, into, LIMITS.alignment, { ...REST, ...over });

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
  test('a KV cache slot: heads rows of d words, T·d apart, in the cache buffers; q in the engine buffer', () => {
    const [H, T, d, t] = [4, 16, 8, 5];
    const plan = planSplit('float32', [1, 3 * H, 1, d], 1, [H, H, H]);
    const slot = (b: object) => dest(b, t * d * 4, [H * T * d, T * d, d, 1]);
    const g = gather(planGpu(plan, LIMITS, keyFor([undefined, slot(K), slot(V)])));
    // The destinations' buffers first, numbered as in the key; then the engine's buffer for q.
    expect(g.targets).toEqual([
      { kind: 'into', bytes: 0 },
      { kind: 'into', bytes: 0 },
      { kind: 'shared', bytes: H * d * 4 },
    ]);
    expect(g.outputs.map((o) => o.target)).toEqual([2, 0, 1]);
    // 0.7: one dispatch binds all three targets.
    expect(g.dispatches.map((x) => x.targets)).toEqual([[0, 1, 2]]);
    const [x] = g.dispatches;
    // Words of 128 bits: d = 8 floats is 2 words a row, T·d floats 32 words apart; the slot 160 bytes from the
    // cache's base (0: the slot's offset rounded down to 256).
    expect(g.unitBits).toBe(128);
    const window = t * d * 4 + ((H - 1) * T * d + d) * 4;
    expect(x!.dstWindows).toEqual([
      [0, window],
      [0, window],
      [0, H * d * 4],
    ]);
    const k = x!.tiles.filter((tile) => tile.dst_binding === 0);
    expect(k).toMatchObject([{ dst: (t * d * 4 * 8) / 128, row_len: 2, src_stride: 2, dst_stride: 32, rows: H }]);
    // V's rows are read H·d floats further into the input, and written alike into its own buffer.
    const v = x!.tiles.filter((tile) => tile.dst_binding === 1);
    expect(v).toEqual(k.map((tile) => ({ ...tile, src: tile.src + (H * d * 32) / 128, dst_binding: 1 })));
  });

  test('prefill: a transposed destination is one region per head, S rows each', () => {
    const [S, H, T, d] = [6, 2, 16, 4];
    const plan = planSplit('float32', [1, S, 3, H, d], 2, [1, 1, 1]);
    const to = dest(K, 0, [H * T * d, d, 0, T * d, 1]);
    const g = gather(planGpu(plan, LIMITS, keyFor([to, undefined, undefined])));
    expect(g.targets.map((x) => x.kind)).toEqual(['into', 'shared']);
    const tiles = g.dispatches.flatMap((x) => x.tiles.filter((tile) => x.targets[tile.dst_binding] === 0));
    const rows = tiles.reduce((n, r) => n + (r.last - r.first), 0);
    expect([rows, tiles.length, tiles.every((r) => r.rows === S)]).toEqual([S * H, H, true]);
  });

  test('every output at a destination: no engine buffer; copies land at each destination, from its base', () => {
    const plan = planSplit('float32', [4, 8], 1, [4, 4]);
    const into = [dest(K, 0, [8, 1]), dest(K, 16, [8, 1])];
    const c = planGpu(plan, LIMITS, keyFor(into, { strategy: 'copy' }));
    expect(c.strategy).toBe('copy');
    // 0.7: both destinations lie in K, so they are one target, counted from its base (the lowest of their offsets,
    // rounded down); no engine buffer to take from the pool.
    expect(c.targets).toEqual([{ kind: 'into', bytes: 0 }]);
    expect(c.outputs.map((o) => [o.target, o.byteOffset])).toEqual([
      [0, 0],
      [0, 16],
    ]);
    expect(c.copies.slice(0, 2)).toEqual([
      { target: 0, src: 0, dst: 0, size: 16 },
      { target: 0, src: 32, dst: 32, size: 16 },
    ]);
    expect(c.copies[4]).toEqual({ target: 0, src: 16, dst: 16, size: 16 });
    expect(gather(planGpu(plan, LIMITS, keyFor(into, { strategy: 'gather' }))).dispatches).toHaveLength(1);
    // In two buffers: two targets, each from its own base, still one dispatch.
    const apart = [dest(K, 0, [8, 1]), dest(V, 16, [8, 1])];
    const two = gather(planGpu(plan, LIMITS, keyFor(apart, { strategy: 'gather' })));
    expect(two.targets).toEqual([
      { kind: 'into', bytes: 0 },
      { kind: 'into', bytes: 0 },
    ]);
    expect(two.outputs.map((o) => [o.target, o.byteOffset])).toEqual([
      [0, 0],
      [1, 16],
    ]);
    expect(two.dispatches.map((x) => x.targets)).toEqual([[0, 1]]);
  });

  test('no views with a destination, even where the input could be viewed', () => {
    const plan = planSplit('float32', [128, 4], 0, [64, 64]);
    expect(planGpu(plan, LIMITS, keyFor(undefined)).strategy).toBe('alias');
    expect(planGpu(plan, LIMITS, keyFor([undefined, dest(K, 0, [4, 1])])).strategy).not.toBe('alias');
  });

  test('the bit path refuses a strided destination whose rows do not start 4-byte words, naming it', () => {
    const plan = planSplit('uint8', [4, 6], 1, [3, 3]);
    const bad = dest(K, 0, [5, 1]);
    let error: unknown;
    try {
      planGpu(plan, LIMITS, keyFor([undefined, bad]));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'BAD_INPUT', subject: { kind: 'option', name: 'into[1]' } });
    const good = dest(K, 0, [8, 1]);
    expect(gather(planGpu(plan, LIMITS, keyFor([undefined, good]))).unitBits).toBe(1);
  });

  test('a destination cut into more pieces than the cap is refused', () => {
    // Rows of one element (the innermost dimension is not contiguous); the longest dimension is the
    // rows, and the rest make 300 · 2 = 600 pieces, or 300 · 300 · 2 = 180,000 (above 2^16).
    const ok = planSplit('float32', [300, 300, 2], 0, [300]);
    expect(() => planGpu(ok, LIMITS, keyFor([dest(K, 0, [2, 600, 180_000])]))).not.toThrow();
    const many = planSplit('float32', [300, 300, 300, 2], 0, [300]);
    const spread = dest(K, 0, [2, 600, 180_000, 54_000_000]);
    expect(() => planGpu(many, LIMITS, keyFor([spread]))).toThrow(/180000 pieces/);
  });
});

describe('keys and bases', () => {
  const [A, B, C] = [{}, {}, {}];

  test("keyOf numbers buffers by first appearance and counts offsets from the buffer's base", () => {
    const s = [4, 1];
    const k = keyFor([undefined, dest(V, 1000, s), dest(K, 600, s), dest(V, 300, s)], {}, 260);
    // V's base: its lowest destination offset (300), rounded down to 256; K's: 600 rounded down, 512.
    expect(k.into).toEqual([
      undefined,
      { target: 0, byteOffset: 744, strides: s },
      { target: 1, byteOffset: 88, strides: s },
      { target: 0, byteOffset: 44, strides: s },
    ]);
    // The input's offset within the alignment; the rest as given.
    expect({ ...k, into: undefined }).toEqual({ ...REST, srcByteOffset: 4, into: undefined });
    expect(keyFor(undefined).into).toBeUndefined();
    // The same places in other buffers, or at other bases a whole alignment apart: the same key.
    const moved = keyFor([undefined, dest(K, 1000 + 512, s), dest(A, 600 - 512, s), dest(K, 300 + 512, s)], {}, 4);
    expect(moved).toEqual(k);
  });

  // A KV cache's slot: q to the engine's buffer, k and v at slot t of caches K and V.
  const [H, T, d] = [4, 16, 8];
  const plan = planSplit('float32', [1, 3 * H, 1, d], 1, [H, H, H]);
  const strides = [H * T * d, T * d, d, 1];
  const at = (b: object, t: number, s = strides) => dest(b, t * d * 4, s);
  const gp = gather(planGpu(plan, LIMITS, keyFor([undefined, at(K, 5), at(V, 5)])));

  test('basesOf serves a call placed alike, at bases that are multiples of the alignment', () => {
    expect(basesOf(gp, 0, [undefined, at(K, 5), at(V, 5)], true, 256)).toEqual([0, 0, 0]);
    // Slot 5 + 8k is 256k bytes on: the same offsets within the alignment, at bases 256k.
    const bases = basesOf(gp, 512, [undefined, at(K, 13), at(V, 21)], true, 256)!;
    expect(bases).toEqual([256, 512, 0]);
    // In other buffers, or in each other's: targets are numbered by first appearance.
    expect(basesOf(gp, 0, [undefined, at(A, 5), at(B, 13)], true, 256)).toEqual([0, 256, 0]);
    expect(basesOf(gp, 0, [undefined, at(V, 5), at(K, 5)], true, 256)).toEqual([0, 0, 0]);
    for (const t of [5, 13, 21, 5 + 8 * 100])
      for (const b of basesOf(gp, 0, [undefined, at(K, t), at(V, 5)], true, 256)!) expect(b % 256).toBe(0);
  });

  test('basesOf answers undefined for a call whose key differs', () => {
    const ok = [undefined, at(K, 5), at(V, 5)];
    const other = (x: number, dests: readonly (Destination | undefined)[] | undefined, alias = true) =>
      basesOf(gp, x, dests, alias, 256);
    // The input at another offset within the alignment; destinations or none.
    expect(other(4, ok)).toBeUndefined();
    // A plan made where views were allowed, and not a view, serves a call where they are not (an encode's).
    expect(gp.strategy).not.toBe('alias');
    expect(other(0, ok, false)).toEqual(other(0, ok));
    // One made where views were not allowed does not serve a call where they are: the planner could give views.
    const key = { srcByteOffset: 0, allowAlias: false, separate: false, strategy: 'auto', into: undefined } as const;
    const noViews = planGpu(planSplit('float32', [2, 64], 0, [1, 1]), LIMITS, { ...key, costs: COST_TABLES.software });
    expect(basesOf(noViews, 0, undefined, true, 256)).toBeUndefined();
    expect(basesOf(noViews, 0, undefined, false, 256)).toEqual([0]);
    expect(other(0, undefined)).toBeUndefined();
    // A destination at another offset within the alignment (slot 6: 192 bytes, not 160).
    expect(other(0, [undefined, at(K, 6), at(V, 5)])).toBeUndefined();
    expect(other(0, [undefined, at(K, 5), at(V, 6)])).toBeUndefined();
    // Another strides list (a cache of 32 slots), or a destination given where the key has none, or none given.
    const longer = [H * 32 * d, 32 * d, d, 1];
    expect(other(0, [undefined, at(K, 5, longer), at(V, 5)])).toBeUndefined();
    expect(other(0, [at(A, 5, [3 * H * d, d, d, 1]), at(K, 5), at(V, 5)])).toBeUndefined();
    expect(other(0, [undefined, undefined, at(V, 5)])).toBeUndefined();
    // k and v in one buffer: v's destination moved into a buffer an earlier target already has.
    expect(other(0, [undefined, at(K, 5), at(K, 5 + 64)])).toBeUndefined();
  });

  test('two destinations swapped between buffers are another key; so are buffers grouped otherwise', () => {
    // Three outputs: the first two in K, the third in V.
    const three = planSplit('float32', [4, 12], 1, [4, 4, 4]);
    const s = [4, 1];
    const g = gather(planGpu(three, LIMITS, keyFor([dest(K, 0, s), dest(K, 64, s), dest(V, 0, s)])));
    expect(g.targets).toHaveLength(2);
    expect(basesOf(g, 0, [dest(A, 256, s), dest(A, 320, s), dest(B, 512, s)], true, 256)).toEqual([256, 512]);
    // The second and third swap buffers: K holds the first and third.
    expect(basesOf(g, 0, [dest(K, 0, s), dest(V, 64, s), dest(K, 0, s)], true, 256)).toBeUndefined();
    // Each in a buffer of its own, or all three in one.
    expect(basesOf(g, 0, [dest(A, 0, s), dest(B, 64, s), dest(C, 0, s)], true, 256)).toBeUndefined();
    expect(basesOf(g, 0, [dest(K, 0, s), dest(K, 64, s), dest(K, 512, s)], true, 256)).toBeUndefined();
    // The keys say the same.
    expect(keyFor([dest(K, 0, s), dest(V, 64, s), dest(K, 0, s)])).not.toEqual(g.key);
  });

  test('many destination buffers (past 16 targets) are told apart alike', () => {
    const twenty = planSplit('float32', [4, 20], 1, Array<number>(20).fill(1));
    const s = [20, 1];
    const buffers = Array.from({ length: 20 }, () => ({}));
    const g = planGpu(
      twenty,
      LIMITS,
      keyFor(
        buffers.map((b) => dest(b, 0, s)),
        { strategy: 'gather' },
      ),
    );
    expect([g.targets.length, g.dispatches.length]).toEqual([20, 4]);
    const fresh = Array.from({ length: 20 }, (_, i) => dest({}, 256 * i, s));
    expect(basesOf(g, 0, fresh, true, 256)).toEqual(Array.from({ length: 20 }, (_, i) => 256 * i));
    // The last destination in the first one's buffer: a buffer an earlier target already has.
    const reused = [...fresh.slice(0, 19), dest(fresh[0]!.buffer, 4096, s)];
    expect(basesOf(g, 0, reused, true, 256)).toBeUndefined();
  });
});
