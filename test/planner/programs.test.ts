// Split programs and the one plan cache (src/engine/program.ts) in plain Node: which calls find a kept program, which
// calls of one split make programs of their own (one per plan key), and how a program made for one key serves every
// call placed alike. A program's plan is made for offsets within one alignment of their buffers' bases and recorded at
// the call's bases: checked here against a plan made at the real offsets, command by command.
import { describe, expect, test } from 'vitest';
import { SplitError, createSplitEngine, equalParts, tensor } from '../../src/index.js';
import { type Fields, type Program, programOf } from '../../src/engine/program.js';
import { KEPT_PROGRAMS, PlanCache } from '../../src/engine/plans.js';
import { planGpu } from '../../src/planner/gpu.js';
import { COST_TABLES, type CostModel } from '../../src/planner/costs.js';
import type { GpuLimits, GpuPlan, Strategy } from '../../src/planner/types.js';
import type { Destination } from '../../src/tensor.js';
import type { TensorView } from '../../src/read/tensor.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  targetsPerDispatch: 6,
};

/**
 * A stand-in for an engine (program.ts's Context): a GPU that has only its limits, the strategy and costs it plans
 * with, its plan cache, and the programs that cache retired.
 */
function engineLike(strategy: 'auto' | Strategy = 'auto', costs: CostModel = COST_TABLES.software) {
  const retired: Program[] = [];
  const gpu = { limits: LIMITS };
  const ctx = {
    gpu,
    strategy,
    costs,
    plans: new PlanCache<Program>((p) => void retired.push(p)),
    usable: () => undefined,
    ran: (d: { outputs: unknown[] }) => d.outputs,
    tableFor: () => ({}),
  };
  return { ctx, gpu, retired };
}
type EngineLike = ReturnType<typeof engineLike>;

const view = (dtype: 'float32' | 'int8', shape: number[], kind: 'gpu' | 'host' = 'gpu') =>
  ({ kind, dtype, shape, numel: shape.reduce((a, b) => a * b, 1) }) as unknown as TensorView;

const make = (v: TensorView, o: Fields, e: EngineLike = engineLike()) => programOf(e.ctx as never, v, o, 'split');

/** The program a call of `p`'s split runs (Program.at), for an input at `at` and these destinations, and its bases. */
const placer =
  (p: Program, e: EngineLike) =>
  (at: number, dests?: readonly (Destination | undefined)[], alias = false): [Program, number[]] =>
    p.at(e.gpu as never, at, dests, alias);

/** The programs a cache holds, least recently used first (found by a match that takes none, so none moves). */
function kept(plans: PlanCache<Program>): Program[] {
  const all: Program[] = [];
  plans.find((p) => (all.push(p), false));
  return all.reverse();
}

/** A destination in buffer `b` (a stand-in object: the planner only tells buffers apart). */
const dest = (b: object, byteOffset: number, strides: readonly number[]): Destination => ({
  buffer: b as GPUBuffer,
  byteOffset,
  strides,
  given: undefined,
  bytes: 0,
  source: {},
});
const [K, V, A] = [{}, {}, {}];

describe('programs kept for repeated splits', () => {
  test('equal options find the program, compared value by value', () => {
    const v = view('float32', [4096, 1]);
    const p = make(v, { sizes: equalParts(4096, 4096) });
    expect(p.matches(v, { sizes: [...equalParts(4096, 4096)] })).toBe(true);
    const q = make(v, { axis: -1, parts: 3 });
    expect(q.matches(view('float32', [4096, 1]), { axis: -1, parts: 3 })).toBe(true);
  });

  test('any difference in the input or the options is a program of its own', () => {
    const v = view('float32', [6, 6]);
    const p = make(v, { axis: 0, sizes: [2, 4], layout: 'shared' });
    const others: [TensorView, Fields][] = [
      [view('int8', [6, 6]), { axis: 0, sizes: [2, 4], layout: 'shared' }],
      [view('float32', [6, 6], 'host'), { axis: 0, sizes: [2, 4], layout: 'shared' }],
      [view('float32', [6, 7]), { axis: 0, sizes: [2, 4], layout: 'shared' }],
      [view('float32', [6, 6, 1]), { axis: 0, sizes: [2, 4], layout: 'shared' }],
      [v, { axis: 1, sizes: [2, 4], layout: 'shared' }],
      [v, { sizes: [2, 4], layout: 'shared' }],
      [v, { axis: 0, sizes: [4, 2], layout: 'shared' }],
      [v, { axis: 0, sizes: [2, 4, 0], layout: 'shared' }],
      [v, { axis: 0, sizes: [2, 4] }],
      [v, { axis: 0, sizes: [2, 4], layout: 'shared', alias: 'none' }],
      [v, { axis: 0, sizes: [2, 4], layout: 'shared', into: [] }],
      [v, { axis: 0, parts: 2, layout: 'shared' }],
      [v, { axis: 0, sizes: [2, 4], parts: 2, layout: 'shared' }],
    ];
    for (const [w, o] of others) expect(p.matches(w, o)).toBe(false);
    expect(p.matches(v, { axis: 0, sizes: [2, 4], layout: 'shared' })).toBe(true);
  });

  test('lengths and an axis that only look equal are never answered by a kept program: they are checked', () => {
    const v = view('float32', [2, 3]);
    const p = make(v, { axis: 1, sizes: [1, 2] });
    // -0.9999999999999999 + 2 === 1 in floating point, but it is no integer axis.
    for (const o of [
      { axis: -0.9999999999999999, sizes: [1, 2] },
      { axis: 1, sizes: ['1', 2] },
      { axis: 1, sizes: [1, 2.5] },
    ])
      expect(p.matches(v, o)).toBe(false);
    expect(() => make(v, { axis: -0.9999999999999999, sizes: [1, 2] })).toThrow(/axis must be an integer/);
    expect(() => make(v, { axis: 1, sizes: [1, 2.5] })).toThrow(SplitError);
    // -0 is 0: the same lengths.
    expect(p.matches(v, { axis: 1, sizes: [1, 2] })).toBe(true);
    expect(make(view('float32', [3]), { sizes: [3, 0] }).matches(view('float32', [3]), { sizes: [3, -0] })).toBe(true);
  });

  test(`an engine keeps the programs of its last ${KEPT_PROGRAMS} splits, on the CPU too`, async () => {
    expect(KEPT_PROGRAMS).toBe(32);
    const cpu = await createSplitEngine({ backend: 'cpu' });
    for (let n = 1; n <= 40; n++) await cpu.split(tensor('float32', new Float32Array(n), [n]), { parts: 1 });
    const plans = (cpu as unknown as { plans: PlanCache<Program> }).plans;
    expect(kept(plans).map((p) => p.spec.plan.shape)).toEqual(Array.from({ length: 32 }, (_, i) => [i + 9]));
  });

  test('run finds the program of a node read alike: planned once per node, options and input shape', async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const plans = (cpu as unknown as { plans: PlanCache<Program> }).plans;
    const node = (n: number, split: number[]) =>
      ({
        op: 'Split',
        opset: 13,
        inputs: [tensor('float32', new Float32Array(n), [n]), tensor('int64', BigInt64Array.from(split, BigInt), [2])],
        attrs: { axis: 0 },
      }) as const;
    for (let k = 0; k < 3; k++) await cpu.run(node(6, [2, 4]));
    expect(plans.size).toBe(1);
    const [first] = kept(plans);
    await cpu.run(node(6, [2, 4]));
    expect(kept(plans)).toEqual([first]);
    expect(kept(plans)[0]).toBe(first);
    // Other split values, another input shape: programs of their own; the first is found again after them.
    await cpu.run(node(6, [3, 3]));
    await cpu.run(node(7, [3, 4]));
    await cpu.run(node(6, [2, 4]));
    expect(plans.size).toBe(3);
    expect(kept(plans)[2]).toBe(first);
  });

  test('a refused call keeps no program', async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const plans = (cpu as unknown as { plans: PlanCache<Program> }).plans;
    const buffer = { size: 64, usage: 0x80 | 0x4, mapAsync() {}, destroy() {} } as unknown as GPUBuffer;
    const gx = { dtype: 'float32', shape: [4], buffer } as const;
    await expect(cpu.split(gx, { parts: 2 } as never)).rejects.toMatchObject({ code: 'WRONG_BACKEND' });
    const x = tensor('float32', new Float32Array(4), [4]);
    await expect(cpu.split(x, { sizes: [1, 2] })).rejects.toMatchObject({ code: 'SIZE_SUM' });
    await expect(cpu.split(x, { parts: 2, into: [] } as never)).rejects.toMatchObject({ code: 'BAD_OPTIONS' });
    expect(plans.size).toBe(0);
  });

  test('a host program refuses GPU options once, when it is made', () => {
    expect(() => make(view('float32', [4], 'host'), { sizes: [2, 2], layout: 'separate' })).toThrow(
      'split: layout and alias place GPU outputs; a host input gives host outputs',
    );
  });
});

describe('the plan cache', () => {
  test('most recently used last; past KEPT_PROGRAMS the least recently used is retired; a failed one forgotten', () => {
    const retired: Program[] = [];
    const cache = new PlanCache<Program>((p) => void retired.push(p));
    // Stand-ins, told apart by their number (the cache reads only `prepared`).
    const ps = Array.from({ length: KEPT_PROGRAMS + 1 }, (_, n) => ({ prepared: false, n }) as unknown as Program);
    for (const p of ps.slice(0, KEPT_PROGRAMS)) cache.keep(p);
    expect([cache.size, retired]).toEqual([KEPT_PROGRAMS, []]);
    // Found: now the most recently used, so the second is the least.
    expect(cache.find((p) => p === ps[0])).toBe(ps[0]);
    expect(kept(cache)).toEqual([...ps.slice(1, KEPT_PROGRAMS), ps[0]]);
    cache.keep(ps[KEPT_PROGRAMS]!);
    expect(cache.size).toBe(KEPT_PROGRAMS);
    expect(retired).toHaveLength(1);
    expect(retired[0]).toBe(ps[1]);
    // The newest of several that match answers; none that matches, none.
    expect(cache.find((p) => p === ps[3] || p === ps[4])).toBe(ps[4]);
    expect(cache.find(() => false)).toBeUndefined();
    // Kept again: moved, never twice.
    cache.keep(ps[3]!);
    expect(kept(cache).slice(-2)).toEqual([ps[4], ps[3]]);
    expect(cache.size).toBe(KEPT_PROGRAMS);
    // A call that failed: forgotten and retired, once.
    cache.forget(ps[5]!);
    cache.forget(ps[5]!);
    expect(cache.size).toBe(KEPT_PROGRAMS - 1);
    expect(retired).toHaveLength(2);
    expect(retired[1]).toBe(ps[5]);
    // A prepared split is its caller's: never kept here.
    cache.keep({ prepared: true } as Program);
    expect(cache.size).toBe(KEPT_PROGRAMS - 1);
  });

  test('a call finds a kept program by its split, then the program of its key; one joins once a call went through', () => {
    const e = engineLike();
    const o = { axis: -1, parts: 3, alias: 'none' } as const;
    const v = view('float32', [1, 1, 12288]);
    const p = make(v, o, e);
    const place = placer(p, e);
    const [a, aBases] = place(4);
    expect(a.gp!.key.srcByteOffset).toBe(4);
    // Not kept yet (no call of it went through): the next call makes another.
    expect(place(4)[0]).not.toBe(a);
    expect(e.ctx.plans.size).toBe(0);
    e.ctx.plans.keep(a);
    // The engine finds a program of the split by the call's options, then the program of the call's key: an input a
    // whole number of alignments further on gets this one, its plan, at its bases.
    expect(e.ctx.plans.find((q) => q.matches(v, o))).toBe(a);
    const [b, bBases] = placer(a, e)(4 + 3 * 256);
    expect(b).toBe(a);
    expect(b.gp).toBe(a.gp);
    // The engine's shared buffer counts from 0; the input from its own base (its offset less the plan's).
    expect([aBases, bBases]).toEqual([[0], [0]]);
    expect(place(4 + 256)[0]).toBe(a);
    // Another split with the same options is never answered by it: programs share their split, not their options.
    expect(placer(make(v, o, e), e)(4)[0]).not.toBe(a);
  });

  test('programs of one split under different keys are different entries, each found again by its own calls', () => {
    const e = engineLike();
    const p = make(view('float32', [2, 8]), { axis: 1, sizes: [4, 4] }, e);
    const place = placer(p, e);
    const s = [8, 1];
    const calls: [string, number, Destination[]][] = [
      ['the first call', 0, [dest(K, 16, s), dest(K, 48, s)]],
      ['the input 4 bytes further within the alignment', 4, [dest(K, 16, s), dest(K, 48, s)]],
      ["a destination's offset residue", 0, [dest(K, 16, s), dest(K, 52, s)]],
      ['destination strides', 0, [dest(K, 16, [16, 1]), dest(K, 48, [16, 1])]],
      ['two destinations in one buffer at another distance', 0, [dest(K, 16, s), dest(K, 48 + 512, s)]],
      ['the two in two buffers', 0, [dest(K, 16, s), dest(V, 48, s)]],
    ];
    const programs = calls.map(([, at, d]) => {
      const [q] = place(at, d);
      e.ctx.plans.keep(q);
      return q;
    });
    expect(new Set(programs).size).toBe(calls.length);
    expect(new Set(programs.map((q) => q.gp)).size).toBe(calls.length);
    expect(e.ctx.plans.size).toBe(calls.length);
    // Each found again by a call placed alike: the input and its destinations whole alignments on, in other buffers.
    calls.forEach(([name, at, d], i) => {
      const moved = d.map((x) => ({
        ...x,
        buffer: (x.buffer === K ? A : K) as GPUBuffer,
        byteOffset: x.byteOffset + 1024,
      }));
      const [q, bases] = place(at + 512, moved);
      expect(q, name).toBe(programs[i]);
      expect(bases.every((b) => b % 256 === 0 && b >= 1024)).toBe(true);
    });
    expect(e.ctx.plans.size).toBe(calls.length);
  });

  test('a call placed alike at other bases gets the same GpuPlan, its bases moved by whole alignments', () => {
    // A KV cache's slot: q to the engine's buffer, k and v at slot t of caches K and V (32 bytes a slot).
    const [H, T, d] = [4, 16, 8];
    const e = engineLike();
    const p = make(view('float32', [1, 3 * H, 1, d]), { axis: 1, sizes: [H, H, H] }, e);
    const place = placer(p, e);
    const strides = [H * T * d, T * d, d, 1];
    const slot = (t: number, u = t) => [undefined, dest(K, t * d * 4, strides), dest(V, u * d * 4, strides)];
    const [a, bases] = place(0, slot(5));
    e.ctx.plans.keep(a);
    expect(bases).toEqual([0, 0, 0]);
    // Slots 13 and 21 are 256 and 512 bytes on: the same plan; the targets' bases move, the engine's buffer's stays 0.
    for (const [t, u, want] of [
      [13, 13, [256, 256, 0]],
      [13, 21, [256, 512, 0]],
      [5 + 8 * 7, 5, [7 * 256, 0, 0]],
    ] as const) {
      const [b, moved] = place(0, slot(t, u));
      expect(b).toBe(a);
      expect(b.gp).toBe(a.gp);
      expect(moved).toEqual(want);
    }
    // Slot 6 is in another alignment class: a program of its own (kept once its call goes through).
    expect(place(0, slot(6))[0]).not.toBe(a);
    // Views: the input's base moves with it.
    const views = engineLike();
    const q = make(view('float32', [1024, 64]), { axis: 0, sizes: [512, 512], alias: 'any' }, views);
    const [c, at512] = placer(q, views)(512, undefined, true);
    views.ctx.plans.keep(c);
    expect([c.gp!.strategy, at512]).toEqual(['alias', [512]]);
    const [c2, at1792] = placer(q, views)(512 + 5 * 256, undefined, true);
    expect([c2, at1792]).toEqual([c, [1792]]);
  });

  test('a plan recorded at its bases writes what a plan made at the real offsets writes, command by command', () => {
    const [H, T, d] = [4, 16, 8];
    const kv = [H * T * d, T * d, d, 1];
    const s = [8, 1];
    type Case = [string, 'auto' | Strategy, TensorView, Fields, number, (Destination | undefined)[]?, boolean?];
    const cases: Case[] = [
      [
        'copies, the input 4 bytes past a base',
        'copy',
        view('float32', [1, 1, 12288]),
        { axis: -1, parts: 3 },
        4 + 5 * 256,
      ],
      ['the gather, at a base', 'gather', view('float32', [1, 1, 12288]), { axis: -1, parts: 3 }, 3 * 256],
      ['copies, 8 bytes in', 'copy', view('float32', [1, 1, 12288]), { axis: -1, parts: 3 }, 8],
      ['strided copies', 'copy', view('float32', [6, 12]), { axis: 1, parts: 2 }, 260],
      [
        'the gather of a KV slot',
        'gather',
        view('float32', [1, 3 * H, 1, d]),
        { axis: 1, sizes: [H, H, H] },
        260,
        [undefined, dest(K, 13 * d * 4, kv), dest(V, 21 * d * 4, kv)],
      ],
      [
        'copies into one buffer',
        'copy',
        view('float32', [2, 8]),
        { axis: 1, sizes: [4, 4] },
        0,
        [dest(K, 16 + 512, s), dest(K, 48 + 1024, s)],
      ],
      [
        'views',
        'auto',
        view('float32', [1024, 64]),
        { axis: 0, sizes: [512, 512], alias: 'any' },
        768,
        undefined,
        true,
      ],
    ];
    for (const [name, strategy, v, o, at, dests, alias] of cases) {
      const e = engineLike(strategy);
      const [q, bases] = placer(make(v, o, e), e)(at, dests, alias ?? false);
      const gp = q.gp!;
      // The plan made at the real offsets: the input's, and each destination's from its buffer's byte 0.
      const real = planGpu(q.spec.plan, LIMITS, {
        ...gp.key,
        srcByteOffset: at,
        into: gp.key.into?.map((w, i) => w && { ...w, byteOffset: dests![i]!.byteOffset }),
      });
      expect([gp.strategy, gp.targets], name).toEqual([real.strategy, real.targets]);
      const zeros = gp.targets.map(() => 0);
      expect(recorded(gp, at, bases), name).toEqual(recorded(real, at, zeros));
      expect(gp.strategy, name).toBe(strategy === 'auto' ? 'alias' : strategy);
    }
  });

  test('plans made before a calibration are made again after it; a prepared split keeps its costs', () => {
    const e = engineLike();
    const v = view('float32', [64, 4]);
    const o = { axis: 0, sizes: [32, 32], alias: 'none' } as const;
    const p = make(v, o, e);
    const [before] = placer(p, e)(0);
    e.ctx.plans.keep(before);
    e.ctx.costs = { ...COST_TABLES.software, copyCommandNs: 1e9 };
    const [after] = placer(p, e)(0);
    expect(after).not.toBe(before);
    expect([before.gp!.strategy, after.gp!.strategy]).toEqual(['copy', 'gather']);
    expect(after.gp!.key.costs).toBe(e.ctx.costs);
    // A split prepared with the costs of then plans with them whatever the engine's are now.
    const prepared = programOf(e.ctx as never, v, o, 'prepare', COST_TABLES.software);
    const [r] = placer(prepared, e)(0);
    expect(r.gp!.strategy).toBe('copy');
    expect(r.gp!.key.costs).toBe(COST_TABLES.software);
  });
});

/**
 * What a plan records at `bases` for an input at byte `at`, in absolute byte and bit offsets (as gpu/encode.ts and
 * gpu/split.ts add them): each copy's source and destination, each view's place, and each dispatch's tiles, their
 * source and destination counted from the buffers' byte 0 and naming the plan's target they write.
 */
function recorded(gp: GpuPlan, at: number, bases: readonly number[]) {
  const srcBase = at - gp.key.srcByteOffset;
  const u = gp.unitBits;
  return {
    copies: gp.copies.map((c) => ({
      target: c.target,
      src: srcBase + c.src,
      dst: bases[c.target]! + c.dst,
      size: c.size,
    })),
    outputs: gp.outputs.map((o) => ({ ...o, byteOffset: bases[o.target]! + o.byteOffset })),
    dispatches: gp.dispatches.map((d) =>
      d.tiles.map((t) => ({
        ...t,
        src: (srcBase + d.srcWindow[0]) * (8 / u) + t.src,
        dst: (bases[d.targets[t.dst_binding]!]! + d.dstWindows[t.dst_binding]![0]) * (8 / u) + t.dst,
        dst_binding: d.targets[t.dst_binding],
      })),
    ),
  };
}
