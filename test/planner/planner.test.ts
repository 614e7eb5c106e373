// Tier 1: the planner in plain Node. No GPU objects anywhere: a destination's buffer is a stand-in object, since the
// planner only tells buffers apart. Where a plan's tiles are checked against the split, they are walked bit by bit as
// the shader's Tile struct reads them (planner/types.ts) and compared with where each element of each output must go,
// worked out here from the split alone.
import { describe, expect, test } from 'vitest';
import { MAX_OUTPUTS, SplitError, equalParts, planSplit } from '../../src/index.js';
import { type SplitPlan, planSplit as planChecked } from '../../src/planner/split.js';
import { COST_TABLES, type CostModel, copyCheaper, costTableFor } from '../../src/planner/costs.js';
import type { GpuLimits, GpuPlan, PlanKey } from '../../src/planner/types.js';
import { basesOf, keyOf, planGpu } from '../../src/planner/gpu.js';
import { TILE_POSITIONS, WORD_TILE_WORDS } from '../../src/planner/tiles.js';
import { tileRegion } from '../../src/planner/dispatch.js';
import { TARGETS_PER_DISPATCH } from '../../src/gpu/shader.js';
import { foldGrid } from '../../src/gpu/encode.js';
import type { Destination } from '../../src/tensor.js';
import { REF_TYPES, type RefDType, numel } from '../helpers/dtypes.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  targetsPerDispatch: TARGETS_PER_DISPATCH,
};
// A CPU adapter's costs (ns): a copy command 1 µs, a dispatch 40 µs; a copied byte 0.1 ns, a gathered one 1 ns. Row
// copies break even at rows of 1000 / (1 - 0.1) = 1111 bytes, and win by the planner's 15% margin from rows of
// 1150 / (1 - 0.115) = 1299 bytes.
const CPU_COSTS: CostModel = { copyCommandNs: 1000, dispatchNs: 40_000, copyByteNs: 0.1, gatherByteNs: 1 };

/** A plan key as an engine builds one for a call without destinations: the input at byte 0, views not allowed. */
const key = (over: Partial<PlanKey> = {}): PlanKey => ({
  srcByteOffset: 0,
  allowAlias: false,
  separate: false,
  strategy: 'auto',
  costs: COST_TABLES.software,
  into: undefined,
  ...over,
});
const gather = key({ strategy: 'gather' });

/** A destination in buffer `b` (a stand-in object), at `byteOffset` with element strides `strides`. */
const dest = (b: object, byteOffset: number, strides: readonly number[]): Destination => ({
  buffer: b as GPUBuffer,
  byteOffset,
  strides,
  given: strides,
  bytes: 0,
  source: {},
});

/** The key of a call with these destinations (keyOf, as the engine calls it), the input at byte 0. */
const intoKey = (dests: readonly (Destination | undefined)[], over: Partial<PlanKey> = {}): PlanKey =>
  keyOf(0, dests, LIMITS.alignment, { ...key(over) });

/** Row-major element strides of a shape. */
const stridesOf = (shape: readonly number[]) => shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));

/**
 * Where every bit of every output must go: per plan target, the bit from the target's base each bit is written to,
 * and the input bit (from the input's base) it comes from. Worked out from the split plan and each output's place
 * (at `byteOffset`, row-major, or at a destination's strides), not from the plan's regions or tiles.
 */
function wanted(plan: SplitPlan, gp: GpuPlan): Map<number, number>[] {
  const bits = REF_TYPES[plan.dtype as RefDType].bits;
  const out = gp.targets.map(() => new Map<number, number>());
  const srcStrides = stridesOf(plan.shape);
  plan.outputShapes.forEach((shape, i) => {
    const place = gp.outputs[i]!;
    const strides = place.strides ?? stridesOf(shape);
    for (let e = 0; e < numel(shape); e++) {
      let [q, src, dst] = [e, 0, 0];
      for (let k = shape.length - 1; k >= 0; k--) {
        const idx = q % shape[k]!;
        q = Math.floor(q / shape[k]!);
        src += (k === plan.axis ? idx + plan.starts[i]! : idx) * srcStrides[k]!;
        dst += idx * strides[k]!;
      }
      for (let b = 0; b < bits; b++)
        out[place.target]!.set(place.byteOffset * 8 + dst * bits + b, gp.key.srcByteOffset * 8 + src * bits + b);
    }
  });
  return out;
}

/**
 * What the plan's tiles write, as the shader reads a Tile: per plan target, the bit from the target's base each bit is
 * written to, and the input bit it is read from; how many bits were written more than once, and how many were read or
 * written outside the dispatch's windows.
 */
function written(gp: GpuPlan): { bits: Map<number, number>[]; twice: number; outside: number } {
  const out = gp.targets.map(() => new Map<number, number>());
  const u = gp.unitBits;
  let [twice, outside] = [0, 0];
  for (const d of gp.dispatches)
    for (const t of d.tiles) {
      // A tile writes one of the dispatch's bound targets.
      expect(t.dst_binding).toBeLessThan(d.targets.length);
      const map = out[d.targets[t.dst_binding]!]!;
      const [srcAt, dstAt] = [d.srcWindow[0] * 8, d.dstWindows[t.dst_binding]![0] * 8];
      const [srcEnd, dstEnd] = [d.srcWindow[1] * 8, d.dstWindows[t.dst_binding]![1] * 8];
      const put = (dst: number, src: number) => {
        if (map.has(dstAt + dst)) twice++;
        // The shader indexes its bindings from the windows' starts, in u32 arithmetic: a bit outside a window is lost.
        if (!(src >= 0 && src < srcEnd && dst >= 0 && dst < dstEnd)) outside++;
        map.set(dstAt + dst, srcAt + src);
      };
      if (u !== 1) {
        // Words: positions are rows; each row's row_len words.
        for (let r = t.first; r < t.last; r++)
          for (let b = 0; b < t.row_len * u; b++)
            put((t.dst + r * t.dst_stride) * u + b, (t.src + r * t.src_stride) * u + b);
      } else if (t.dst_stride === t.row_len) {
        // Bits, rows back to back: positions are the window's destination words.
        const end = t.dst + t.rows * t.row_len;
        for (let x = Math.max(t.first * 32, t.dst); x < Math.min(t.last * 32, end); x++) {
          const k = x - t.dst;
          put(x, t.src + Math.floor(k / t.row_len) * t.src_stride + (k % t.row_len));
        }
      } else {
        // Bits, strided rows: positions are (row, word of the row).
        const words = Math.ceil(t.row_len / 32);
        for (let p = t.first; p < t.last; p++) {
          const [r, w] = [Math.floor(p / words), p % words];
          for (let c = w * 32; c < Math.min(w * 32 + 32, t.row_len); c++)
            put(t.dst + r * t.dst_stride + c, t.src + r * t.src_stride + c);
        }
      }
    }
  return { bits: out, twice, outside };
}

/** The plan's tiles write every bit of every output where it must go, from where it must come, and nothing else. */
function expectGathered(plan: SplitPlan, gp: GpuPlan): void {
  const [want, { bits: got, twice, outside }] = [wanted(plan, gp), written(gp)];
  expect([twice, outside], 'bits written more than once, bits outside a window').toEqual([0, 0]);
  got.forEach((m, t) => {
    // Counted first: a short or long target says so before a diff of thousands of bits.
    expect(m.size, `bits written to target ${t}`).toBe(want[t]!.size);
    for (const [dst, src] of want[t]!) if (m.get(dst) !== src) expect([t, dst, m.get(dst)]).toEqual([t, dst, src]);
  });
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof SplitError) return e.code;
    throw e;
  }
  return undefined;
}

function as(g: GpuPlan, s: GpuPlan['strategy']): GpuPlan {
  expect(g.strategy).toBe(s);
  return g;
}

describe('equalParts', () => {
  test.each([
    [6, 3, [2, 2, 2]],
    [7, 4, [2, 2, 2, 1]],
    [5, 4, [2, 2, 1, 0]],
    [2, 3, [1, 1, 0]],
    [0, 3, [0, 0, 0]],
    [1, 1, [1]],
    [8, 3, [3, 3, 2]],
  ])('%i into %i', (dim, parts, want) => {
    expect(equalParts(dim, parts)).toEqual(want);
  });
});

describe('planSplit', () => {
  test('views the tensor as [outer, axis, inner]', () => {
    const p = planSplit('float32', [2, 3, 4, 5], -2, [1, 3]);
    expect(p).toMatchObject({ axis: 2, outer: 6, axisLen: 4, inner: 5, starts: [0, 1] });
    expect(p.outputShapes).toEqual([
      [2, 3, 1, 5],
      [2, 3, 3, 5],
    ]);
  });
  test('rules, each with its own code, subject and the values in the message', () => {
    expect(() => planSplit('float32', [6], 1, [6])).toThrow(/axis 1 is outside \[-1, 0\] for rank 1/);
    expect(codeOf(() => planSplit('float32', [6], -2, [6]))).toBe('AXIS_RANGE');
    expect(codeOf(() => planSplit('float32', [6], 0.5, [6]))).toBe('AXIS_RANGE');
    expect(codeOf(() => planSplit('float32', [], 0, [1]))).toBe('RANK');
    expect(() => planSplit('float32', [2, 6], 1, [3, 4])).toThrow(
      /split lengths \[3, 4\] sum to 7 but dimension 1 of the input has length 6/,
    );
    expect(codeOf(() => planSplit('float32', [6], 0, [7, -1]))).toBe('BAD_SIZE');
    expect(codeOf(() => planSplit('float32', [6], 0, [2.5, 3.5]))).toBe('BAD_SIZE');
    expect(codeOf(() => planSplit('float32', [6], 0, [Symbol('x'), 6] as never))).toBe('BAD_SIZE');
    expect(codeOf(() => planSplit('float32', [6], 0, []))).toBe('BAD_SIZE');
    expect(codeOf(() => planSplit('float32', [6], 0, new Array(MAX_OUTPUTS + 1).fill(0)))).toBe('TOO_LARGE');
    expect(planSplit('float32', [2, 0], 1, []).outputShapes).toEqual([]);
    let err: unknown;
    try {
      planSplit('float32', [6], 0, [1, 2]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'SIZE_SUM', subject: { kind: 'option', name: 'sizes' } });
  });
  test('-0 never reaches an output shape', () => {
    const p = planSplit('float32', [0, 3], 0, [-0, 0]);
    expect(p.outputShapes.every((s) => !Object.is(s[0], -0))).toBe(true);
  });
  test('the axis is resolved once, in the planner, and its message names who asked', () => {
    expect(() => planChecked('float32', [2, 2], 3, [1, 1], 'Split-18')).toThrow(/^Split-18: axis 3/);
    const seen: [number, number][] = [];
    const p = planChecked('float32', [2, 6], -1, (dim, axis) => (seen.push([dim, axis]), [dim - 2, 2]));
    expect([seen, p.sizes]).toEqual([[[6, 1]], [4, 2]]);
  });
  test('a size-sum error whose axis defaulted to 0 says so', () => {
    expect(() => planChecked('float32', [6, 2], undefined, [3, 4])).toThrow(
      'split: split lengths [3, 4] sum to 7 but dimension 0 of the input has length 6 ' +
        '(the axis defaulted to 0: give one to split another)',
    );
  });
});

describe('planGpu', () => {
  test('outputs start at multiples of the offset alignment, in one buffer', () => {
    const g = as(planGpu(planSplit('float32', [3, 10], 1, [3, 0, 7]), LIMITS, gather), 'gather');
    expect(g.outputs).toEqual([
      { target: 0, byteOffset: 0, byteLength: 36 },
      { target: 0, byteOffset: 256, byteLength: 0 },
      { target: 0, byteOffset: 256, byteLength: 84 },
    ]);
    expect(g.targets).toEqual([{ kind: 'shared', bytes: 340 }]);
    expect(g.dispatches).toHaveLength(1);
    expect(g.unitBits).toBe(32);
  });

  test('the widest word that divides every offset is chosen; else the bit-level variant', () => {
    const unit = (...a: Parameters<typeof planSplit>) =>
      as(planGpu(planSplit(...a), LIMITS, gather), 'gather').unitBits;
    expect(unit('float32', [4, 8], 1, [4, 4])).toBe(128);
    expect(unit('float32', [4, 6], 1, [4, 2])).toBe(64);
    expect(unit('int64', [4, 3], 1, [1, 2])).toBe(64);
    expect(unit('complex128', [4, 3], 1, [1, 2])).toBe(128);
    expect(unit('uint8', [4, 6], 1, [3, 3])).toBe(1);
    expect(unit('float16', [4, 6], 1, [2, 4])).toBe(32);
    expect(unit('float16', [4, 6], 1, [3, 3])).toBe(1);
    expect(unit('uint4', [4, 8], 1, [4, 4])).toBe(1);
    expect(unit('uint4', [4, 64], 1, [32, 32])).toBe(128);
  });

  test('regions are rows of the input, in bits; a chunk spanning the axis is one row', () => {
    // Tiles carry the regions in shader units (here 128-bit words), each written to its dispatch's binding 0.
    const plan = planSplit('int32', [2, 3, 4], 1, [1, 2]);
    const g = as(planGpu(plan, LIMITS, gather), 'gather');
    expect(g.dispatches[0]!.tiles.map((r) => [r.src, r.dst, r.row_len, r.src_stride, r.rows, r.dst_binding])).toEqual([
      [0, 0, 1, 3, 2, 0],
      [1, 16, 2, 3, 2, 0],
    ]);
    expectGathered(plan, g);
    const whole = as(planGpu(planSplit('int32', [2, 3, 4], 1, [0, 3]), LIMITS, gather), 'gather');
    expect(whole.dispatches[0]!.tiles).toMatchObject([{ src: 0, dst: 0, row_len: 6, src_stride: 6, rows: 1 }]);
  });

  test('packed types: regions start at any bit; outputs are whole bytes at aligned offsets', () => {
    // uint3 [2, 5] into [2, 3]: rows of 15 bits, chunks of 6 and 9 bits.
    const plan = planSplit('uint3', [2, 5], 1, [2, 3]);
    const g = as(planGpu(plan, LIMITS, gather), 'gather');
    expect(g.outputs).toEqual([
      { target: 0, byteOffset: 0, byteLength: 2 },
      { target: 0, byteOffset: 256, byteLength: 3 },
    ]);
    expect(g.dispatches[0]!.tiles.map((r) => [r.src, r.dst, r.row_len, r.src_stride, r.rows])).toEqual([
      [0, 0, 6, 15, 2],
      [6, 2048, 9, 15, 2],
    ]);
    expectGathered(plan, g);
    expect(g.msbFirst).toBe(false);
    expect(as(planGpu(planSplit('uint1', [9], 0, [3, 6]), LIMITS, gather), 'gather').msbFirst).toBe(true);
    // Chunks on byte boundaries of a packed tensor may alias; a chunk ending inside a byte may not.
    const views = key({ allowAlias: true });
    expect(planGpu(planSplit('uint4', [1024], 0, [512, 512]), LIMITS, views).strategy).toBe('alias');
    expect(planGpu(planSplit('uint4', [1023], 0, [512, 511]), LIMITS, views).strategy).toBe('gather');
  });

  test('tiles cover the destination words, TILE_POSITIONS at most each', () => {
    expect(TILE_POSITIONS).toBe(2048);
    expect(WORD_TILE_WORDS).toBe(4096);
    // Bit variant: 3, 114 and 3 bytes touch words [0, 1), [64, 93) and [128, 129) of the window.
    const b = as(planGpu(planSplit('uint8', [3, 40], 1, [1, 38, 1]), LIMITS, gather), 'gather');
    expect(b.dispatches[0]!.tiles.map((t) => [t.first, t.last])).toEqual([
      [0, 1],
      [64, 93],
      [128, 129],
    ]);
    // Word variant: positions are rows. 3 rows of 1 and of 9 16-byte words, one tile each.
    const w = as(planGpu(planSplit('float32', [3, 40], 1, [4, 36]), LIMITS, gather), 'gather');
    expect(w.unitBits).toBe(128);
    expect(w.dispatches[0]!.tiles.map((t) => [t.row_len, t.first, t.last])).toEqual([
      [1, 0, 3],
      [9, 0, 3],
    ]);
    // Short rows: whole passes of 256 / row_len rows, about WORD_TILE_WORDS words a tile.
    const short = as(planGpu(planSplit('float32', [10000, 12], 1, [4, 8]), LIMITS, gather), 'gather');
    expect(short.dispatches[0]!.tiles.map((t) => [t.row_len, t.first, t.last])).toEqual([
      [1, 0, 4096],
      [1, 4096, 8192],
      [1, 8192, 10000],
      ...[0, 2048, 4096, 6144, 8192].map((r) => [2, r, Math.min(10000, r + 2048)]),
    ]);
    // Rows longer than the workgroup: columns of 256 words, each a geometry with the row's strides.
    const long = as(planGpu(planSplit('float32', [2, 4096], 1, [2048, 2048]), LIMITS, gather), 'gather');
    expect(long.dispatches[0]!.tiles.map((t) => [t.src, t.dst, t.row_len, t.src_stride, t.first, t.last])).toEqual([
      [0, 0, 256, 1024, 0, 2],
      [256, 256, 256, 1024, 0, 2],
      [512, 1024, 256, 1024, 0, 2],
      [768, 1280, 256, 1024, 0, 2],
    ]);
    // A contiguous chunk (one row of 1025 16-byte words): rows of 256 words, then the one word left.
    const run = as(planGpu(planSplit('float32', [4100], 0, [4100]), LIMITS, gather), 'gather');
    expect(run.dispatches[0]!.tiles.map((t) => [t.src, t.dst, t.row_len, t.src_stride, t.first, t.last])).toEqual([
      [0, 0, 256, 256, 0, 4],
      [1024, 1024, 1, 256, 0, 1],
    ]);
  });

  test('strategy: alias for aligned contiguous GPU inputs, copy for few contiguous chunks, else gather', () => {
    const contiguous = planSplit('float32', [1024, 64], 0, [512, 512]);
    const views = key({ allowAlias: true });
    const aliased = as(planGpu(contiguous, LIMITS, views), 'alias');
    // Views count from the input's base, its offset rounded down to the alignment: an input at byte 256 gets this
    // plan at base 256, its outputs at bytes 256 and 131328 of its buffer.
    expect([aliased.targets, aliased.outputs]).toEqual([
      [{ kind: 'input', bytes: 0 }],
      [
        { target: 0, byteOffset: 0, byteLength: 131072 },
        { target: 0, byteOffset: 131072, byteLength: 131072 },
      ],
    ]);
    expect(basesOf(aliased, 256, undefined, true, 256)).toEqual([256]);
    expect(planGpu(contiguous, LIMITS, key()).strategy).toBe('copy');
    expect(planGpu(planSplit('float32', [1024, 64], 1, [32, 32]), LIMITS, views).strategy).toBe('gather');
    // The software table chooses at most 56 copy commands for contiguous chunks of 16 KiB in all.
    const many = planSplit('float32', [4096], 0, [4040, ...Array<number>(56).fill(1)]); // 57 chunks
    const at4 = key({ srcByteOffset: 4, allowAlias: true });
    expect(planGpu(many, LIMITS, at4).strategy).toBe('gather');
    const fiftySix = planSplit('float32', [4096], 0, [4041, ...Array<number>(55).fill(1)]);
    expect(planGpu(fiftySix, LIMITS, at4).strategy).toBe('copy');
    expect(planGpu(planSplit('uint8', [10], 0, [3, 7]), LIMITS, key()).strategy).toBe('gather');
  });

  test('the cost model: copy commands where they cost less than the gather, pinned for given costs', () => {
    const strategy = (plan: ReturnType<typeof planSplit>, costs: CostModel) =>
      planGpu(plan, LIMITS, key({ costs })).strategy;
    const SOFTWARE = COST_TABLES.software;
    // Contiguous: n commands against one dispatch, plus what each moves its bytes at.
    // 17 one-element chunks of float32 [4096]: 17 µs of commands against 40 µs of dispatch; on the software table,
    // 25.8 µs against 84.6 µs (its dispatch 60 µs, its gather 1.5 ns a byte).
    const seventeen = planSplit('float32', [4096], 0, [4080, ...Array<number>(16).fill(1)]);
    expect(strategy(seventeen, CPU_COSTS)).toBe('copy');
    expect(strategy(seventeen, SOFTWARE)).toBe('copy');
    // 64 chunks of 4 KiB: 64 µs of commands, but the gather's 0.9 ns more per byte costs 236 µs more.
    const sixtyFour = planSplit('float32', [64 * 1024], 0, Array<number>(64).fill(1024));
    expect(strategy(sixtyFour, CPU_COSTS)).toBe('copy');
    expect(strategy(sixtyFour, SOFTWARE)).toBe('copy');
    // 4096 one-element chunks: 4.1 ms of commands against 56 µs.
    expect(strategy(planSplit('float32', [4096], 0, Array<number>(4096).fill(1)), CPU_COSTS)).toBe('gather');
    // Strided: a command per row, each against the gather of its bytes, so the row length decides, never the number
    // of rows. Rows are copied from 1299 bytes: 1024-byte rows stay with the shader, 2048-byte rows are copied.
    for (const outer of [1024, 8, 65_536]) {
      expect(strategy(planSplit('float32', [outer, 512], 1, [256, 256]), CPU_COSTS), `${outer} rows`).toBe('gather');
      expect(strategy(planSplit('float32', [outer, 1024], 1, [512, 512]), CPU_COSTS), `${outer} rows`).toBe('copy');
    }
    // The shortest row decides: rows of 4096 and 1024 bytes stay with the shader.
    expect(strategy(planSplit('float32', [64, 1280], 1, [1024, 256]), CPU_COSTS)).toBe('gather');
    // The software table copies rows from 1168 bytes: (1500 + r × 0.02) × 1.15 < r × 1.5.
    expect(strategy(planSplit('float32', [8, 1 << 16], 1, [1 << 15, 1 << 15]), SOFTWARE)).toBe('copy');
    expect(strategy(planSplit('float32', [8, 512], 1, [256, 256]), SOFTWARE)).toBe('gather');
    // The arithmetic itself: 10 contiguous commands moving 1000 bytes, 10.1 µs against one dispatch's 41 µs; one row
    // of 1000 bytes, 1.1 µs against 1 µs; one of 2000 bytes, 1.2 µs (1.38 with the margin) against 2 µs; one of 1200
    // bytes, 1.12 µs against 1.2 µs, cheaper but not by the margin (1.288 µs).
    expect(copyCheaper(CPU_COSTS, 10, 1000, 1)).toBe(true);
    expect(copyCheaper(CPU_COSTS, 10, 1000, 1, 1000)).toBe(false);
    expect(copyCheaper(CPU_COSTS, 10, 1000, 1, 2000)).toBe(true);
    expect(copyCheaper(CPU_COSTS, 10, 1000, 1, 1200)).toBe(false);
    expect(copyCheaper(CPU_COSTS, 10, 1000, 1, 1300)).toBe(true);
    // Contiguous: 50 commands moving 1000 bytes (50.1 µs) lose to one dispatch (41 µs), win against two (81 µs).
    expect(copyCheaper(CPU_COSTS, 50, 1000, 1)).toBe(false);
    expect(copyCheaper(CPU_COSTS, 50, 1000, 2)).toBe(true);
    // A forced strategy ignores the costs: copy wherever offsets are 4-byte multiples, else the gather.
    const rows = planSplit('float32', [1024, 1024], 1, [256, 256, 256, 256]);
    expect(as(planGpu(rows, LIMITS, key({ strategy: 'copy' })), 'copy').copies).toHaveLength(4096);
    expect(planGpu(rows, LIMITS, key({ strategy: 'gather', costs: CPU_COSTS })).strategy).toBe('gather');
    expect(planGpu(planSplit('uint8', [4, 6], 1, [3, 3]), LIMITS, key({ strategy: 'copy' })).strategy).toBe('gather');
  });

  test("copies name their target and land at the output's offset", () => {
    const c = as(planGpu(planSplit('float32', [8], 0, [4, 4]), LIMITS, key()), 'copy');
    expect(c.copies).toEqual([
      { target: 0, src: 0, dst: 0, size: 16 },
      { target: 0, src: 16, dst: 256, size: 16 },
    ]);
  });

  test('equal one-row outputs form one run: 4096 outputs are one shader geometry', () => {
    // 4096 one-element outputs at equal steps: one geometry whose rows are the outputs, one tile.
    const ones = planSplit('float32', [1, 4096], 1, Array<number>(4096).fill(1));
    const g = as(planGpu(ones, LIMITS, gather), 'gather');
    expect(g.dispatches[0]!.tiles).toEqual([
      { src: 0, dst: 0, row_len: 1, rows: 4096, src_stride: 1, dst_stride: 64, first: 0, last: 4096, dst_binding: 0 },
    ]);
    expectGathered(ones, g);
    // Outputs of several rows are a geometry each (the tile has one pair of strides, and its rows are theirs).
    const rows = planSplit('float32', [3, 4096], 1, Array<number>(4096).fill(1));
    const r = as(planGpu(rows, LIMITS, gather), 'gather');
    expect(r.dispatches[0]!.tiles).toHaveLength(4096);
    expect(r.dispatches[0]!.tiles[4095]).toEqual({
      src: 4095,
      dst: 4095 * 64,
      row_len: 1,
      rows: 3,
      src_stride: 4096,
      dst_stride: 1,
      first: 0,
      last: 3,
      dst_binding: 0,
    });
    expectGathered(rows, r);
    // A different last chunk starts a run of its own.
    const uneven = planSplit('float32', [1, 7], 1, [2, 2, 2, 1]);
    const u = as(planGpu(uneven, LIMITS, gather), 'gather');
    expect(u.dispatches[0]!.tiles.map((t) => t.rows)).toEqual([3, 1]);
    expectGathered(uneven, u);
  });

  test('no copies and no dispatch for empty outputs', () => {
    const g = as(planGpu(planSplit('float32', [0, 4], 1, [2, 2]), LIMITS, gather), 'copy');
    expect(g.copies).toEqual([]);
    expect(g.targets[0]!.bytes).toBe(4);
  });

  test('beyond one binding window: one dispatch per tile, every window within the limit, every bit covered', () => {
    const small: GpuLimits = { ...LIMITS, maxBindingBytes: 4096, maxBufferBytes: 1 << 30 };
    for (const [dtype, dim, sizes] of [
      ['float32', 100, [30, 70]],
      ['uint8', 200, [61, 139]],
      ['uint3', 1000, [333, 667]],
    ] as const) {
      const plan = planSplit(dtype, [40, dim], 1, sizes);
      const g = as(planGpu(plan, small, gather), 'gather');
      expect(g.dispatches.length).toBeGreaterThan(1);
      for (const d of g.dispatches) {
        // Past a window: one target a dispatch.
        expect(d.targets).toEqual([0]);
        expect(d.dstWindows).toHaveLength(1);
        expect(d.srcWindow[0] % 256).toBe(0);
        expect(d.dstWindows[0]![0] % 256).toBe(0);
        expect(d.srcWindow[1]).toBeLessThanOrEqual(4096);
        expect(d.dstWindows[0]![1]).toBeLessThanOrEqual(4096);
      }
      const bits = { float32: 32, uint8: 8, uint3: 3 }[dtype];
      expect(written(g).bits[0]!.size, dtype).toBe(40 * dim * bits);
      expectGathered(plan, g);
    }
  });

  test('a row longer than a window is cut into column blocks', () => {
    const tiles = tileRegion(
      { src: 0, dst: 0, row_len: 80_000, src_stride: 160_000, dst_stride: 80_000, rows: 2 },
      32_768,
      32,
    );
    expect(tiles).toHaveLength(6);
    expect(tiles.every((t) => t.row_len <= 32_768 && t.rows === 1)).toBe(true);
    expect(tiles.reduce((n, t) => n + t.row_len, 0)).toBe(160_000);
  });

  test('an output buffer beyond maxBufferSize is refused before any GPU work', () => {
    const tiny: GpuLimits = { ...LIMITS, maxBufferBytes: 1024 };
    expect(codeOf(() => planGpu(planSplit('float32', [2, 200], 1, [100, 100]), tiny, gather))).toBe('TOO_LARGE');
  });
});

describe('dispatch grouping', () => {
  const [K, V, W, X, Y] = [{}, {}, {}, {}, {}];

  /**
   * A gather of `plan` under `k`, with everything in one binding window: ceil(targets / 6) dispatches, each binding
   * the next targets in order (every target once, at most 6 a dispatch, a window each), every tile writing one of its
   * dispatch's bound targets, and every output's bits written where they must go.
   */
  function expectGrouped(plan: SplitPlan, k: PlanKey, targets: number, dispatches: number): GpuPlan {
    const g = as(planGpu(plan, LIMITS, k), 'gather');
    expect(g.targets).toHaveLength(targets);
    expect(g.dispatches).toHaveLength(dispatches);
    expect(Math.ceil(targets / 6)).toBe(dispatches);
    expect(g.dispatches.flatMap((d) => d.targets)).toEqual([...g.targets.keys()]);
    for (const d of g.dispatches) {
      expect(d.targets.length).toBeLessThanOrEqual(6);
      expect(d.dstWindows).toHaveLength(d.targets.length);
      expect(d.tiles.every((t) => t.dst_binding < TARGETS_PER_DISPATCH && t.dst_binding < d.targets.length)).toBe(true);
      // Every bound target is written by a tile of this dispatch.
      expect(new Set(d.tiles.map((t) => t.dst_binding)).size).toBe(d.targets.length);
    }
    expectGathered(plan, g);
    return g;
  }

  test('three destinations in one buffer are one target: one dispatch', () => {
    const plan = planSplit('float32', [4, 12], 1, [4, 4, 4]);
    const into = [dest(K, 0, [4, 1]), dest(K, 64, [4, 1]), dest(K, 128, [4, 1])];
    const g = expectGrouped(plan, intoKey(into, { strategy: 'gather' }), 1, 1);
    expect(g.targets).toEqual([{ kind: 'into', bytes: 0 }]);
    expect(g.outputs.map((o) => [o.target, o.byteOffset])).toEqual([
      [0, 0],
      [0, 64],
      [0, 128],
    ]);
  });

  test('three destinations in three buffers: three targets, one dispatch', () => {
    const plan = planSplit('float32', [4, 12], 1, [4, 4, 4]);
    // Strided destinations, rows 32 or 48 bytes apart: the walk of the tiles follows a destination's strides too.
    const into = [dest(K, 0, [8, 1]), dest(V, 16, [8, 1]), dest(W, 0, [12, 1])];
    const g = expectGrouped(plan, intoKey(into, { strategy: 'gather' }), 3, 1);
    expect(g.dispatches[0]!.targets).toEqual([0, 1, 2]);
  });

  test("six 'separate' outputs: one dispatch; seven: two (six targets, then one)", () => {
    const six = expectGrouped(planSplit('float32', [4, 6], 1, equalParts(6, 6)), key({ separate: true }), 6, 1);
    expect(six.targets.every((t) => t.kind === 'separate' && t.bytes === 16)).toBe(true);
    const seven = expectGrouped(planSplit('float32', [4, 7], 1, equalParts(7, 7)), key({ separate: true }), 7, 2);
    expect(seven.dispatches.map((d) => d.targets)).toEqual([[0, 1, 2, 3, 4, 5], [6]]);
    // The bit variant groups alike.
    const bits = expectGrouped(
      planSplit('uint4', [4, 7], 1, equalParts(7, 7)),
      key({ separate: true, strategy: 'gather' }),
      7,
      2,
    );
    expect(bits.unitBits).toBe(1);
  });

  test("64 'separate' outputs: 11 dispatches", () => {
    const g = expectGrouped(planSplit('float32', [4, 64], 1, equalParts(64, 64)), key({ separate: true }), 64, 11);
    expect(g.dispatches.map((d) => d.targets.length)).toEqual([...Array<number>(10).fill(6), 4]);
  });

  test('destinations and engine buffers in any mix count as targets alike', () => {
    const plan = planSplit('float32', [4, 8], 1, equalParts(8, 8));
    const none = Array<undefined>(5).fill(undefined);
    // Two destination buffers and the engine's shared buffer for the other six outputs: three targets.
    const shared = intoKey([dest(K, 0, [1, 1]), dest(V, 0, [1, 1]), ...none, undefined], { strategy: 'gather' });
    const s = expectGrouped(plan, shared, 3, 1);
    expect(s.targets.map((t) => t.kind)).toEqual(['into', 'into', 'shared']);
    // Five destination buffers (two destinations in K) and 'separate' buffers for the other two outputs: seven.
    const five = [K, V, W, X, Y].map((b) => dest(b, 0, [1, 1]));
    const mixed = intoKey([...five, dest(K, 256, [1, 1]), undefined, undefined], {
      separate: true,
      strategy: 'gather',
    });
    const m = expectGrouped(plan, mixed, 7, 2);
    expect(m.targets.map((t) => t.kind)).toEqual(['into', 'into', 'into', 'into', 'into', 'separate', 'separate']);
    // Past a binding window each piece is a dispatch of its own, one target each, whatever the grouping.
    const small: GpuLimits = { ...LIMITS, maxBindingBytes: 1024 };
    const wide = planSplit('float32', [64, 8], 1, equalParts(8, 8));
    const w = as(planGpu(wide, small, key({ separate: true, strategy: 'gather' })), 'gather');
    expect(w.dispatches.length).toBeGreaterThan(8);
    expect(w.dispatches.every((d) => d.targets.length === 1)).toBe(true);
    expectGathered(wide, w);
  });
});

describe('cost tables', () => {
  test("each table's break-evens are as its documentation says", () => {
    expect(COST_TABLES.software).toEqual({
      copyCommandNs: 1500,
      dispatchNs: 60000,
      copyByteNs: 0.02,
      gatherByteNs: 1.5,
    });
    // software: contiguous chunks of 16 KiB in all are copied up to 56 commands (84.3 µs against 84.6 µs), gathered
    // past; strided rows are copied from 1168 bytes: (1500 + r × 0.02) × 1.15 < r × 1.5.
    expect(copyCheaper(COST_TABLES.software, 56, 16384, 1)).toBe(true);
    expect(copyCheaper(COST_TABLES.software, 57, 16384, 1)).toBe(false);
    expect(copyCheaper(COST_TABLES.software, 1, 1 << 24, 1, 1167)).toBe(false);
    expect(copyCheaper(COST_TABLES.software, 1, 1 << 24, 1, 1168)).toBe(true);
    // gpu: 3 contiguous chunks (1 KiB in all) copied (16.6 µs against 17.8 µs), 4 gathered; rows copied from about
    // 190 kB: (5540 + r × 0.001) × 1.15 < r × 0.035 from r = 188,213 bytes.
    expect(copyCheaper(COST_TABLES.gpu, 3, 1024, 1)).toBe(true);
    expect(copyCheaper(COST_TABLES.gpu, 4, 1024, 1)).toBe(false);
    expect(copyCheaper(COST_TABLES.gpu, 1, 188_212, 1, 188_212)).toBe(false);
    expect(copyCheaper(COST_TABLES.gpu, 1, 188_213, 1, 188_213)).toBe(true);
  });

  test("costTableFor: 'software' for a CPU adapter or a fallback one, 'gpu' for the rest", () => {
    const software = [
      // SwiftShader as Dawn in Node reports it (the adapter of Cleave's GPU tests here), and by its names alone.
      {
        vendor: 'google',
        architecture: 'swiftshader',
        device: 'swiftshader-device-subzero-',
        description: 'SwiftShader driver 5.0.0',
        isFallbackAdapter: true,
      },
      { vendor: 'google', architecture: 'swiftshader' },
      // Mesa's llvmpipe and lavapipe (Dawn: vendor 'mesa', architecture 'software'), named in the device or description.
      { vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 15.0.7, 256 bits)', description: '' },
      { vendor: 'mesa', architecture: 'software', device: '', description: 'llvmpipe (LLVM 17.0.6, 256 bits)' },
      { vendor: 'mesa', architecture: 'software', device: '', description: 'Mesa 24.0.5 (lavapipe)' },
      // Microsoft's WARP (Dawn: vendor 'microsoft', architecture 'warp').
      { vendor: 'microsoft', architecture: 'warp', description: 'Microsoft Basic Render Driver' },
      { vendor: 'microsoft', architecture: 'WARP' },
      // A fallback adapter, whatever it says of itself.
      { isFallbackAdapter: true },
      { vendor: 'nvidia', architecture: 'ampere', isFallbackAdapter: true },
    ];
    for (const info of software) expect(costTableFor(info), JSON.stringify(info)).toBe(COST_TABLES.software);
    const gpu = [
      undefined,
      {},
      { vendor: 'nvidia', architecture: 'hopper', device: '', description: 'NVIDIA H100 80GB HBM3' },
      { vendor: 'nvidia', architecture: 'lovelace', description: 'NVIDIA GeForce RTX 4090', isFallbackAdapter: false },
      { vendor: 'amd', architecture: 'rdna-3', description: 'AMD Radeon RX 7900 XTX' },
      { vendor: 'apple', architecture: 'metal-3', description: 'Apple M2 Max' },
      { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel(R) UHD Graphics 770' },
      { vendor: 'intel', architecture: 'xe-lpg', description: 'Intel(R) Arc(TM) Graphics' },
      { vendor: 'qualcomm', architecture: 'adreno-7xx', description: 'Qualcomm(R) Adreno(TM) X1-85 GPU' },
    ];
    for (const info of gpu) expect(costTableFor(info), JSON.stringify(info)).toBe(COST_TABLES.gpu);
  });

  test("the planner counts dispatches: seven 'separate' buffers weigh two dispatches against seven copies", () => {
    // float32 [7 × 4096] in seven contiguous chunks of 16 KiB, on the gpu table: seven commands cost 38.9 µs; one
    // dispatch and its bytes 21.8 µs, two 39.6 µs.
    const costs = COST_TABLES.gpu;
    const plan = planSplit('float32', [7 * 4096], 0, equalParts(7 * 4096, 7));
    expect(planGpu(plan, LIMITS, key({ costs })).strategy).toBe('gather');
    expect(planGpu(plan, LIMITS, key({ costs, strategy: 'gather', separate: true })).dispatches).toHaveLength(2);
    const separate = as(planGpu(plan, LIMITS, key({ costs, separate: true })), 'copy');
    expect(separate.copies).toHaveLength(7);
    expect([copyCheaper(costs, 7, 7 * 16384, 1), copyCheaper(costs, 7, 7 * 16384, 2)]).toEqual([false, true]);
    // Six chunks in six buffers fit one dispatch: gathered (33.3 µs of commands against 21.2 µs).
    const six = planSplit('float32', [6 * 4096], 0, equalParts(6 * 4096, 6));
    expect(planGpu(six, LIMITS, key({ costs, separate: true })).strategy).toBe('gather');
  });
});

test('grids beyond 65535 workgroups fold into 2-D and cover every group', () => {
  expect(foldGrid(100, 65535)).toEqual([100, 1]);
  const [x, y] = foldGrid(200_000, 65535);
  expect(y).toBe(4);
  expect(x).toBeLessThanOrEqual(65535);
  expect(x * y).toBeGreaterThanOrEqual(200_000);
});
