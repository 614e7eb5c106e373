// Split programs (src/engine/program.ts) in plain Node: which calls find a kept program, and which placements of the
// input and outputs share a GPU plan. A placement's plan is made for offsets within one alignment of their buffers'
// bases and recorded at any aligned base: checked here against a plan made at the real offsets, command by command.
import { describe, expect, test } from 'vitest';
import { SplitError, createSplitEngine, equalParts, tensor } from '../../src/index.js';
import { type Fields, type Program, programOf } from '../../src/engine/program.js';
import { retire } from '../../src/gpu/split.js';
import { planSplit } from '../../src/planner/split.js';
import { planGpu } from '../../src/planner/gpu.js';
import { DEFAULT_COSTS } from '../../src/planner/costs.js';
import type { GpuLimits, GpuPlan } from '../../src/planner/types.js';
import type { Destination } from '../../src/tensor.js';
import type { TensorView } from '../../src/read/tensor.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  costs: DEFAULT_COSTS,
};

/** A stand-in for the engine's GPU: its limits (its costs measured already), and the tables it was asked to retire. */
function fakeGpu(limits: GpuLimits = LIMITS) {
  const retired: GPUBuffer[] = [];
  const costs = { costs: DEFAULT_COSTS, running: Promise.resolve(DEFAULT_COSTS) };
  return { limits, costs, device: {}, retired, retire: (b: GPUBuffer) => void retired.push(b) };
}

function runner(gpu = fakeGpu()) {
  return { strategy: 'auto' as const, gpu, usable: () => undefined, requireGpu: () => gpu, ran: () => undefined };
}

const view = (dtype: 'float32' | 'int8', shape: number[], kind: 'gpu' | 'host' = 'gpu') =>
  ({ kind, dtype, shape, numel: shape.reduce((a, b) => a * b, 1) }) as unknown as TensorView;

const make = (v: TensorView, o: Fields) => programOf(runner() as never, v, o, 'split');

type Placing = (gpu: unknown, at: number, alias: boolean, d?: Destination[]) => { p: { gp: GpuPlan }; bases: number[] };
/** A split's placement for an input at `at` and these destinations, as a call finds it, and the bases it fills. */
const placementOf = (p: Program): Placing => {
  const g = p as unknown as {
    placement: (
      gpu: unknown,
      at: number,
      alias: boolean,
      d: Destination[] | undefined,
      bases: number[],
    ) => {
      gp: GpuPlan;
    };
  };
  return (gpu, at, alias, d) => {
    const bases: number[] = [];
    return { p: g.placement(gpu, at, alias, d, bases), bases };
  };
};

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

  test('an engine keeps the programs of its last 16 splits, on the CPU too', async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    for (let n = 1; n <= 20; n++) await cpu.split(tensor('float32', new Float32Array(n), [n]), { parts: 1 });
    const kept = (cpu as unknown as { programs: Program[] }).programs;
    expect(kept.map((p) => p.plan.shape)).toEqual(Array.from({ length: 16 }, (_, i) => [i + 5]));
  });

  test('run finds the program of a node read alike: planned once per node, options and input shape', async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const kept = (cpu as unknown as { programs: Program[] }).programs;
    const node = (n: number, split: number[]) =>
      ({
        op: 'Split',
        opset: 13,
        inputs: [tensor('float32', new Float32Array(n), [n]), tensor('int64', BigInt64Array.from(split, BigInt), [2])],
        attrs: { axis: 0 },
      }) as const;
    for (let k = 0; k < 3; k++) await cpu.run(node(6, [2, 4]));
    expect(kept).toHaveLength(1);
    const first = kept[0];
    await cpu.run(node(6, [2, 4]));
    expect(kept).toEqual([first]);
    // Other split values, another input shape: programs of their own; the first is found again after them.
    await cpu.run(node(6, [3, 3]));
    await cpu.run(node(7, [3, 4]));
    await cpu.run(node(6, [2, 4]));
    expect(kept).toHaveLength(3);
    expect(kept[2]).toBe(first);
  });

  test('a refused call keeps no program', async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const kept = (cpu as unknown as { programs: Program[] }).programs;
    const buffer = { size: 64, usage: 0x80 | 0x4, mapAsync() {}, destroy() {} } as unknown as GPUBuffer;
    const gx = { dtype: 'float32', shape: [4], buffer } as const;
    await expect(cpu.split(gx, { parts: 2 } as never)).rejects.toMatchObject({ code: 'WRONG_BACKEND' });
    const x = tensor('float32', new Float32Array(4), [4]);
    await expect(cpu.split(x, { sizes: [1, 2] })).rejects.toMatchObject({ code: 'SIZE_SUM' });
    await expect(cpu.split(x, { parts: 2, into: [] } as never)).rejects.toMatchObject({ code: 'BAD_OPTIONS' });
    expect(kept).toEqual([]);
  });

  test('a host program refuses GPU options once, when it is made', () => {
    expect(() => make(view('float32', [4], 'host'), { sizes: [2, 2], layout: 'separate' })).toThrow(
      'split: layout and alias place GPU outputs; a host input gives host outputs',
    );
  });
});

describe('placements', () => {
  const plan = planSplit('float32', [1, 1, 12288], -1, equalParts(12288, 3));

  test('offsets a whole alignment apart share one GPU plan, recorded at their bases', () => {
    const gpu = fakeGpu();
    const p = make(view('float32', [1, 1, 12288]), { axis: -1, parts: 3, alias: 'none' });
    const place = placementOf(p);
    const a = place(gpu, 4, false);
    const b = place(gpu, 4 + 3 * 256, false);
    expect(b.p).toBe(a.p);
    // The engine's shared buffer counts from 0; the input from its own base (x.byteOffset - the plan's offset).
    expect([a.bases, b.bases, a.p.gp.srcByteOffset]).toEqual([[0], [0], 4]);
    // Another offset within the alignment is another plan; four are kept, the oldest retired past them.
    const c = place(gpu, 8, false);
    expect(c.p).not.toBe(a.p);
    expect(place(gpu, 4 + 256, false).p).toBe(a.p);
  });

  test('a plan recorded at a base copies what a plan made at the real offset copies', () => {
    for (const [strategy, at] of [
      ['copy', 4 + 5 * 256],
      ['gather', 3 * 256],
      ['copy', 8],
    ] as const) {
      const phase = planGpu(plan, LIMITS, { srcByteOffset: at % 256, allowAlias: false, strategy });
      const real = planGpu(plan, LIMITS, { srcByteOffset: at, allowAlias: false, strategy });
      const base = at - (at % 256);
      expect(phase.copies.map((c) => ({ ...c, src: c.src + base }))).toEqual(real.copies);
      expect(phase.dispatches.map((d) => [d.srcWindow[0] + base, d.srcWindow[1], d.tiles])).toEqual(
        real.dispatches.map((d) => [d.srcWindow[0], d.srcWindow[1], d.tiles]),
      );
    }
  });

  test("a destination counts from its offset's aligned base", () => {
    const v = view('float32', [2, 4]);
    const p = make(v, { axis: 0, sizes: [1, 1] });
    const place = placementOf(p);
    const buffer = {} as GPUBuffer;
    const at = (byteOffset: number): Destination => ({
      buffer,
      byteOffset,
      strides: [4, 1],
      given: undefined,
      bytes: 16,
      source: {},
    });
    const gpu = fakeGpu();
    const a = place(gpu, 0, false, [at(16), at(48)]);
    expect(a.p.gp.targets.map((t) => [t.kind, t.output])).toEqual([
      ['into', 0],
      ['into', 1],
    ]);
    expect([a.bases, a.p.gp.outputs.map((o) => o.byteOffset)]).toEqual([
      [0, 0],
      [16, 48],
    ]);
    // The same two slots 512 bytes on, or drawn apart by whole alignments, or in two buffers: the same plan (a KV
    // cache's next step), at other bases.
    const b = place(gpu, 0, false, [at(16 + 512), at(48 + 768)]);
    expect([b.p, b.bases]).toEqual([a.p, [512, 768]]);
    expect(place(gpu, 0, false, [at(16), { ...at(48), buffer: {} as GPUBuffer }]).p).toBe(a.p);
    // Within the alignment elsewhere: another plan.
    expect(place(gpu, 0, false, [at(16), at(52)]).p).not.toBe(a.p);
  });

  test('plans made before a calibration are made again after it', () => {
    const limits = { ...LIMITS };
    const gpu = fakeGpu(limits);
    const p = make(view('float32', [64, 4]), { axis: 0, sizes: [32, 32], alias: 'none' });
    const place = placementOf(p);
    const before = place(gpu, 0, false).p;
    limits.costs = { ...DEFAULT_COSTS, copyCommandNs: 1e9 };
    const after = place(gpu, 0, false).p;
    expect(after).not.toBe(before);
    expect([before.gp.strategy, after.gp.strategy]).toEqual(['copy', 'gather']);
  });

  test('a placement past the kept four retires the oldest one', () => {
    const gpu = fakeGpu();
    const p = make(view('float32', [64, 4]), { axis: 0, sizes: [32, 32], alias: 'none' });
    const place = placementOf(p);
    for (const at of [0, 4, 8, 12]) place(gpu, at, false);
    const first = p.placements[0]!;
    Object.assign(first, { table: { buffer: { label: 'first' } } });
    place(gpu, 16, false);
    expect(p.placements).toHaveLength(4);
    expect(p.placements).not.toContain(first);
    expect(gpu.retired).toEqual([{ label: 'first' }]);
    retire(gpu as never, p.placements);
  });
});
